#pragma once
// Identifiers and timestamps the broker hands out.

#include <string>
#include <string_view>

namespace sindri::broker {

// A random (version 4) UUID, lower-case.
std::string new_uuid();
// True for 8-4-4-4-12 hexadecimal.
bool is_uuid(std::string_view text);
// Now, UTC, RFC 3339 with microseconds: "2026-11-21T09:30:00.123456Z". The
// fixed width makes text order the same as time order.
std::string now_timestamp();
// Random text of `length` characters from [A-Za-z0-9].
std::string random_alphanumeric(size_t length);

}  // namespace sindri::broker
