#pragma once
// TOML text as a Value, for Brokkr's configuration files (BROKKR_CONFIG_FILE
// names a TOML file). toml++ stays inside toml_config.cpp.

#include <string>
#include <string_view>

#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::agent {

// Tables become objects, arrays arrays; strings, integers, floats and
// booleans stay what they are; dates, times and date-times become their TOML
// text ("1979-05-27T07:32:00Z"). An error reads "FILE:LINE:COLUMN: what is
// wrong".
Result<Value> parse_toml(std::string_view text, const std::string& file);

}  // namespace sindri::agent
