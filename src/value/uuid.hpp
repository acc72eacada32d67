#pragma once
// UUIDs as text, the way the broker's API reads and stores them; what the
// client verbs and the broker share.

#include <string>
#include <string_view>

namespace sindri {

// True for 8-4-4-4-12 hexadecimal, in either case.
bool is_uuid(std::string_view text);
// A UUID as the broker stores and compares it: lower-case (as Brokkr's
// parser, it takes upper-case too).
std::string stored_uuid(std::string_view uuid);

}  // namespace sindri
