#pragma once
// Regular expressions for the `matching` test, implemented with PCRE2 in
// regex.cpp (UTF + Unicode properties, `$` only at the end, as Rust's regex
// crate does by default) with a match limit so no pattern can hang a render.

#include <string_view>

#include "tera/budget.hpp"
#include "value/result.hpp"

namespace sindri::tera::builtins::regex {

// True if `pattern` matches somewhere in `subject`. An invalid pattern is an
// error whose message describes the problem. The budget is charged for the
// compiled pattern and for the backtracking the match may do.
Result<bool> is_match(std::string_view pattern, std::string_view subject, Budget& budget);

}  // namespace sindri::tera::builtins::regex
