#pragma once
// Values to KCL literals, for values that land inside KCL source.
//
// Strings are double-quoted and escaped so that KCL's lexer
// (kclvm/parser/src/lexer/string.rs, str_content_eval) reads back the same
// text: `\\`, `\"`, `\n`, `\r`, `\t`; every other control character
// (U+0000-U+001F, U+007F-U+009F) and the line separators U+2028/U+2029 as
// `\xHH` / `\uHHHH`; any other character as its UTF-8 bytes. KCL interpolates
// every non-raw string whose *unescaped* value contains `${` (the parser's
// parse_joined_string checks the value, so no escape prevents it): such a
// string is written as a parenthesised concatenation split between `$` and
// `{`, e.g. `("a$" + "{b}")`, whose pieces hold no `${`. Text that is not
// valid UTF-8 cannot be KCL source and is an error.
//
// Ints are decimal; floats are the shortest digits that read back to the same
// double, always with a `.` or an exponent (`1.0`, `1e16`); NaN and the
// infinities are errors. Booleans are `True`/`False`, null is `None`.
// Dicts are `{key = value}` with members in key order (the Value order);
// a key is written bare when it is an identifier that is not a keyword and
// does not start with `_`, quoted otherwise. A dict holding at most one
// member whose value is itself written on one line stays on one line, as
// does a list of scalars; anything larger spreads over lines indented by
// four spaces per level.
//
// An expression (see expression()) is written as its text, unquoted.

#include <string>
#include <string_view>

#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::kcl {

// A marker meaning "this is KCL source, not data", such as the reference
// `oxr.spec.parameters.size.replicas`: a single-member object
// {"$kclExpression": text}.
Value expression(std::string_view text);
bool is_expression(const Value& value);
std::string_view expression_text(const Value& value);  // requires is_expression

// [A-Za-z_][A-Za-z0-9_]*, keywords included.
bool is_identifier(std::string_view name);
bool is_keyword(std::string_view name);

// The KCL text of a value. Continuation lines of a multi-line result are
// indented relative to column 0; the caller prefixes them as needed. The
// error names what cannot be written and where (a JSON pointer).
Result<std::string> to_kcl(const Value& value);

// A KCL string expression whose value is `text` (see above).
Result<std::string> string_literal(std::string_view text);

}  // namespace sindri::kcl
