#pragma once
// Settings as people write them, for the broker's and the agent's settings
// alike: a number in an environment variable or a flag, a list as a
// sequence or as comma-separated text, and durations written back the way
// they are read. Errors begin with `where` (the file and key, variable or
// flag).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri {

// The whole of `text` as a decimal integer.
Result<int64_t> integer_from_text(std::string_view text, std::string_view where);

// A sequence of strings, or one string of comma-separated items; items are
// trimmed of spaces and empty ones dropped.
Result<std::vector<std::string>> string_list(const Value& value, const std::string& where);

// Seconds in the shortest form that reads back the same ("0.5", "3600").
std::string duration_text(double seconds);

}  // namespace sindri
