#pragma once
// ECMA-262-ish regular expressions for `pattern`, `patternProperties` and
// the `regex` format, compiled once with PCRE2 (JIT where available).

#include <memory>
#include <string>
#include <string_view>

#include "value/result.hpp"

namespace sindri::schema {

class Regex {
 public:
  // An invalid pattern is an error describing the problem and its offset.
  static Result<Regex> compile(std::string_view pattern);

  // True if the pattern matches somewhere in `subject` (JSON Schema patterns
  // are not anchored). A match that exceeds PCRE2's limits counts as no match.
  bool search(std::string_view subject) const;
  const std::string& pattern() const { return pattern_; }

 private:
  struct Code;
  std::string pattern_;
  std::shared_ptr<const Code> code_;
};

}  // namespace sindri::schema
