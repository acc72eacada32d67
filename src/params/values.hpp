#pragma once
// Template parameters as users give them, the way Helm takes them: values
// files (YAML or JSON) merged in order, then `--set` and `--set-string`
// assignments on top.
//
//   Value values{Object{}};
//   for (file : files) values = merge_values(values, parse_values(text, file)->value);
//   apply_set(values, "image.tag=1.2,replicas=3", SetMode::Typed);

#include <cstddef>
#include <string>
#include <string_view>

#include "value/result.hpp"
#include "value/value.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::params {

// A JSON or YAML document, told apart by content: text whose first
// non-blank character is `{` or `[` is strict JSON (so that `1.0` stays a
// float, and a JSON file with a stray comma is reported as bad JSON rather
// than read as YAML flow style); anything else is one YAML document read
// with Kubernetes' scalar rules. Positions are recorded for YAML only.
// Errors read "FILE:LINE:COLUMN: MESSAGE".
Result<YamlDocument> parse_document(std::string_view text, std::string_view file_name);

// The rule parse_document reads JSON by: the first non-blank character is
// `{` or `[`.
bool looks_like_json(std::string_view text);

// A values file: a document holding a mapping. An empty file (or `~`) is an
// empty mapping, as in Helm.
Result<YamlDocument> parse_values(std::string_view text, std::string_view file_name);

// `overlay` over `base`: where both hold a mapping the two are merged key by
// key, recursively; anything else in `overlay` (a list, a scalar, null)
// replaces what `base` holds. This is Helm's merge of `-f` files; a null is
// kept as null (Helm removes such keys only against a chart's defaults,
// which Sindri does not have).
Value merge_values(const Value& base, const Value& overlay);

enum class SetMode {
  Typed,   // --set: values typed as Helm types them (see typed_value)
  String,  // --set-string: every value a string
};

// Helm's typing of a --set value: `true`/`false` in any case are bools,
// `null` in any case is null, `0` and decimal integers that fit in int64 and
// do not start with `0` are ints (`+5` is 5); everything else, floats, `007`
// and numbers too large for int64 included, stays a string.
Value typed_value(std::string_view text);

struct SetError {
  std::string argument;  // the whole --set argument
  size_t column = 0;     // 1-based, in bytes, where the problem was found
  std::string message;
  // "`ARGUMENT` at column C: MESSAGE"
  std::string describe() const;
};

// Applies one --set argument: comma-separated `path=value` assignments, as
// Helm's strvals parses them. A path is names joined by `.`, each optionally
// followed by list indexes (`a.b[0].c`, `m[1][0]`); a value is a scalar, or
// a list `{x,y}` (`{}` is an empty list). `\` escapes the next character, so
// `a\.b=1` sets the key "a.b" and `v=x\,y` the string "x,y". A mapping or
// list in the way of a path is created; anything else in the way is
// replaced. Indexes beyond a list's end pad it with nulls.
Result<Ok, SetError> apply_set(Value& values, std::string_view argument, SetMode mode);

}  // namespace sindri::params
