#pragma once
// Regular expressions for the `matching` test, implemented with PCRE2 in
// regex.cpp (UTF + Unicode properties, `$` only at the end, as Rust's regex
// crate does by default) with a match limit so no pattern can hang a render.

#include <string_view>

#include "value/result.hpp"

namespace sindri::tera::builtins::regex {

// True if `pattern` matches somewhere in `subject`. An invalid pattern is an
// error whose message describes the problem.
Result<bool> is_match(std::string_view pattern, std::string_view subject);

}  // namespace sindri::tera::builtins::regex
