#pragma once
// Structural placeholders: data injected into YAML that already carries other
// template syntaxes (Helm's `{{ }}`, KCL's `${}`, CEL) without a second
// textual template layer.
//
// A node that is exactly a single-key map `{$slapperRef: PATH}` is replaced
// by the value at PATH. PATH is dotted; its first segment names a registered
// root and the rest (possibly empty) is that root's to interpret. When the
// value is a KCL expression (kcl::expression, e.g. a `.kcl` view) the node
// becomes its source text as a string.
//
// Inside a string scalar a placeholder is recognised by this grammar, on one
// line:
//     "{" WS* "$slapperRef" WS* ":" WS* PATH WS* "}"
//     WS   = space or tab
//     PATH = one or more of A-Z a-z 0-9 _ . -
// and replaced by the value's KCL text (kcl::to_kcl; an expression gives its
// text as is). Continuation lines of a multi-line KCL text are prefixed with
// the leading spaces and tabs of the line where the placeholder stands, so a
// dict stays aligned inside the surrounding KCL source. Any other occurrence
// of `$slapperRef` in a string is an error (a malformed placeholder), and so
// is a map holding `$slapperRef` next to other keys or with a non-string
// value. Map keys are never searched.
//
// Substituted values are not searched again: text that looks like a
// placeholder inside a resolved value is left alone.

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "value/result.hpp"
#include "value/value.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::placeholder {

inline constexpr std::string_view kRefKey = "$slapperRef";

// Looks up `rest` (the path after the root's name; may be empty) and returns
// the value, or an error saying what is wrong without the path or position
// (the resolver adds both).
using RootLookup = std::function<Result<Value>(std::string_view rest)>;

class Resolver {
 public:
  void add_root(std::string name, RootLookup lookup);

  // Resolves every placeholder of `document`. Errors read
  // "FILE:LINE:COLUMN: placeholder PATH at POINTER: MESSAGE"; LINE and COLUMN
  // are where the node holding the placeholder starts (for a block scalar,
  // where its text starts), and for a placeholder inside a string the line
  // within the string is named too.
  Result<Value> resolve(const YamlDocument& document, std::string_view file) const;

  // The value at `path`, as a placeholder standing at a YAML position gets it.
  Result<Value> lookup(std::string_view path) const;

 private:
  std::map<std::string, RootLookup, std::less<>> roots_;
};

}  // namespace sindri::placeholder
