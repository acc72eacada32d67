#pragma once
// Scalar resolution as go-yaml v2 (under sigs.k8s.io/yaml and kubectl) does
// it: shared by the YAML reader and by the writer, which must quote every
// string that would not read back as a string.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "value/value.hpp"

namespace sindri::yaml_detail {

struct ResolvedScalar {
  // Uint: an integer above int64's range (go-yaml's uint64). Timestamp: a
  // valid YAML timestamp, which kubectl keeps as its text.
  enum class Type { Null, Bool, Int, Uint, Float, Timestamp, String };
  Type type = Type::String;
  bool boolean = false;
  int64_t integer = 0;
  uint64_t unsigned_integer = 0;
  double floating = 0;
};

// What go-yaml v2 resolves an untagged plain scalar to.
ResolvedScalar resolve_plain(std::string_view text);

// False for most plain scalars that resolve_plain makes a string: a cheap
// test for callers that only care whether the scalar is something else.
// The longest of go-yaml's words (`false`, `+.inf`) has 5 characters.
constexpr size_t kLongestPlainWord = 5;
inline bool plain_may_not_be_string(std::string_view text) {
  if (text.empty()) return true;
  const char first = text[0];
  if ((first >= '0' && first <= '9') || first == '+' || first == '-' || first == '.') return true;
  switch (first) {
    case 'y': case 'Y': case 'n': case 'N': case 't': case 'T': case 'f': case 'F': case 'o': case 'O': case '~':
      return text.size() <= kLongestPlainWord;
    default:
      return false;
  }
}

// The Value kubectl ends up with for a scalar resolved as `resolved` from
// `text`: go-yaml's result through encoding/json and back, so an integral
// float that fits in int64 is an integer. A float that is not finite has no
// JSON value: nullopt.
std::optional<Value> json_value_of(const ResolvedScalar& resolved, std::string_view text);

// YAML 1.1 sexagesimal numbers ("1:20"), which go-yaml's encoder quotes.
bool looks_like_base60_float(std::string_view text);

// A float map key as sigs.k8s.io/yaml turns it into a string:
// strconv.FormatFloat(key, 'g', -1, 32), with ".inf", "-.inf", ".nan".
std::string float_key_string(double key);

// A float as go-yaml v2 writes it: strconv.FormatFloat(f, 'g', -1, 64).
void append_go_float(std::string& out, double value);

}  // namespace sindri::yaml_detail
