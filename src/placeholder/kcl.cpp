#include "placeholder/kcl.hpp"

#include "value/pointer.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "value/number_format.hpp"
#include "value/utf8.hpp"

namespace sindri::kcl {

namespace {

constexpr std::string_view kExpressionKey = "$kclExpression";
constexpr std::string_view kIndent = "    ";

// KCL's keywords and the words it reserves for later use (lexical spec).
constexpr std::string_view kKeywords[] = {
    "True",   "False",    "None",   "Undefined", "import",  "and",     "or",       "in",     "is",
    "not",    "as",       "if",     "else",      "elif",    "for",     "schema",   "mixin",  "protocol",
    "check",  "assert",   "all",    "any",       "map",     "filter",  "lambda",   "rule",   "pass",
    "return", "validate", "flow",   "def",       "del",     "raise",   "except",   "try",    "finally",
    "while",  "from",     "with",   "yield",     "global",  "nonlocal", "struct",  "class",  "final"};

void append_hex(std::string& out, uint32_t value, int digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) out.push_back(kHex[(value >> shift) & 0xF]);
}

// One double-quoted literal; `text` holds no "${".
void append_quoted(std::string& out, std::string_view text, size_t& i, size_t end) {
  out.push_back('"');
  while (i < end) {
    const size_t start = i;
    const Utf8CodePoint decoded = decode_utf8(text, i);  // validated by the caller
    const char32_t c = decoded.value;
    i += decoded.length;
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7F) {
          out += "\\x";
          append_hex(out, c, 2);
        } else if ((c >= 0x80 && c <= 0x9F) || c == 0x2028 || c == 0x2029) {
          out += "\\u";
          append_hex(out, c, 4);
        } else {
          out.append(text.substr(start, i - start));
        }
    }
  }
  out.push_back('"');
}

Status append_string(std::string& out, std::string_view text, const std::string& where) {
  if (const size_t bad = first_invalid_utf8(text, 0, text.size()); bad != text.size()) {
    return make_error("cannot write " + where + " as KCL: the string is not valid UTF-8 (byte " +
                      std::to_string(bad) + ")");
  }
  // Split after every '$' that a '{' follows, so that no piece holds "${".
  std::vector<size_t> cuts;
  for (size_t at = text.find("${"); at != std::string_view::npos; at = text.find("${", at + 1)) cuts.push_back(at + 1);
  if (cuts.empty()) {
    size_t i = 0;
    append_quoted(out, text, i, text.size());
    return Ok{};
  }
  out.push_back('(');
  size_t i = 0;
  cuts.push_back(text.size());
  for (size_t k = 0; k < cuts.size(); ++k) {
    if (k > 0) out += " + ";
    append_quoted(out, text, i, cuts[k]);
  }
  out.push_back(')');
  return Ok{};
}

bool is_scalar(const Value& v) { return !(v.is_array() || v.is_object()) || is_expression(v); }

// Whether the value is written on one line.
bool is_inline(const Value& v) {
  if (is_scalar(v)) return true;
  if (v.is_array()) {
    for (const Value& item : v.get_array()) {
      if (!is_scalar(item)) return false;
    }
    return true;
  }
  return v.size() == 0 || (v.size() == 1 && is_inline(v.get_object().front().value));
}

std::string describe(const std::string& pointer) { return pointer.empty() ? "the value" : "the value at " + pointer; }

std::string child_pointer(const std::string& pointer, std::string_view key) {
  std::string out = pointer + "/";
  append_pointer_token(out, key);
  return out;
}

void append_newline(std::string& out, int depth) {
  out.push_back('\n');
  for (int d = 0; d < depth; ++d) out += kIndent;
}

Status append_value(std::string& out, const Value& v, int depth, const std::string& pointer);

Status append_key(std::string& out, std::string_view key, const std::string& pointer) {
  // A leading underscore marks a hidden attribute in KCL; quoting keeps the key plain data.
  if (is_identifier(key) && !is_keyword(key) && key.front() != '_') {
    out += key;
    return Ok{};
  }
  return append_string(out, key, "the key of " + describe(pointer));
}

Status append_value(std::string& out, const Value& v, int depth, const std::string& pointer) {
  switch (v.kind()) {
    case Value::Kind::Null: out += "None"; return Ok{};
    case Value::Kind::Bool: out += v.get_bool() ? "True" : "False"; return Ok{};
    case Value::Kind::Int:
      // -2^63 has no positive counterpart to negate.
      if (v.get_int() == std::numeric_limits<int64_t>::min()) {
        out += "(-9223372036854775807 - 1)";
      } else {
        append_int(out, v.get_int());
      }
      return Ok{};
    case Value::Kind::Float: {
      const double d = v.get_float();
      if (!std::isfinite(d)) {
        return make_error("cannot write " + describe(pointer) + " as KCL: " +
                          (std::isnan(d) ? std::string("NaN") : std::string(d > 0 ? "+Inf" : "-Inf")) +
                          " has no KCL literal");
      }
      append_float_json(out, d);
      return Ok{};
    }
    case Value::Kind::String: return append_string(out, v.get_string(), describe(pointer));
    case Value::Kind::Array: {
      const Array& items = v.get_array();
      const bool one_line = is_inline(v);
      out.push_back('[');
      for (size_t i = 0; i < items.size(); ++i) {
        if (one_line) {
          if (i > 0) out += ", ";
        } else {
          append_newline(out, depth + 1);
        }
        if (auto s = append_value(out, items[i], depth + 1, pointer + "/" + std::to_string(i)); !s) return s;
      }
      if (!one_line && !items.empty()) append_newline(out, depth);
      out.push_back(']');
      return Ok{};
    }
    case Value::Kind::Object: {
      if (is_expression(v)) {
        out += expression_text(v);
        return Ok{};
      }
      const bool one_line = is_inline(v);
      out.push_back('{');
      for (const Member& m : v.get_object()) {
        if (!one_line) append_newline(out, depth + 1);
        const std::string member_pointer = child_pointer(pointer, m.key.get_string());
        if (auto s = append_key(out, m.key.get_string(), member_pointer); !s) return s;
        out += " = ";
        if (auto s = append_value(out, m.value, depth + 1, member_pointer); !s) return s;
      }
      if (!one_line) append_newline(out, depth);
      out.push_back('}');
      return Ok{};
    }
  }
  return make_error("cannot write " + describe(pointer) + " as KCL: unknown kind");
}

}  // namespace

Value expression(std::string_view text) {
  Value marker{Object{}};
  marker.set(kExpressionKey, Value(text));
  return marker;
}

bool is_expression(const Value& value) {
  if (!value.is_object() || value.size() != 1) return false;
  const Member& only = value.get_object().front();
  return only.key.get_string() == kExpressionKey && only.value.is_string();
}

std::string_view expression_text(const Value& value) { return value.get_object().front().value.get_string(); }

bool is_identifier(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name) {
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!letter && c != '_' && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

bool is_keyword(std::string_view name) {
  for (std::string_view k : kKeywords) {
    if (k == name) return true;
  }
  return false;
}

Result<std::string> to_kcl(const Value& value) {
  std::string out;
  if (auto s = append_value(out, value, 0, ""); !s) return std::move(s).error();
  return out;
}

Result<std::string> string_literal(std::string_view text) {
  std::string out;
  if (auto s = append_string(out, text, "the string"); !s) return std::move(s).error();
  return out;
}

}  // namespace sindri::kcl
