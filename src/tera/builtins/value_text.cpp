// Tera's text form of values, truthiness and HTML escaping.

#include <cmath>

#include "tera/builtins.hpp"
#include "value/number_format.hpp"

namespace sindri::tera {

bool append_rendered(std::string& out, const Value& value, size_t max_size) {
  // Whether `bytes` more fit (sizes are far below where the sum overflows).
  const auto fits = [&](size_t bytes) { return out.size() + bytes <= max_size; };
  switch (value.kind()) {
    case Value::Kind::Null:
      return true;
    case Value::Kind::Bool:
      if (!fits(5)) return false;
      out.append(value.get_bool() ? "true" : "false");
      return true;
    case Value::Kind::Int:
    case Value::Kind::Float: {
      const size_t before = out.size();
      if (value.is_int()) {
        append_int(out, value.get_int());
      } else {
        append_float_plain(out, value.get_float());
      }
      if (out.size() <= max_size) return true;
      out.resize(before);
      return false;
    }
    case Value::Kind::String: {
      const std::string_view s = value.get_string();
      if (!fits(s.size())) return false;
      out.append(s);
      return true;
    }
    case Value::Kind::Array: {
      if (!fits(2)) return false;
      out.push_back('[');
      bool first = true;
      for (const Value& v : value.get_array()) {
        if (!first) {
          if (!fits(2)) return false;
          out.append(", ");
        }
        first = false;
        if (!append_rendered(out, v, max_size)) return false;
      }
      if (!fits(1)) return false;
      out.push_back(']');
      return true;
    }
    case Value::Kind::Object:
      if (!fits(8)) return false;
      out.append("[object]");
      return true;
  }
  return true;
}

bool is_truthy(const Value& value) {
  switch (value.kind()) {
    case Value::Kind::Null:
      return false;
    case Value::Kind::Bool:
      return value.get_bool();
    case Value::Kind::Int:
      return value.get_int() != 0;
    case Value::Kind::Float: {
      double f = value.get_float();
      return f != 0.0 && !std::isnan(f);
    }
    case Value::Kind::String:
      return !value.get_string().empty();
    case Value::Kind::Array:
    case Value::Kind::Object:
      return value.size() != 0;
  }
  return false;
}

void append_html_escaped(std::string& out, std::string_view s) {
  out.reserve(out.size() + s.size() + s.size() / 8);
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char* rep;
    switch (s[i]) {
      case '&': rep = "&amp;"; break;
      case '<': rep = "&lt;"; break;
      case '>': rep = "&gt;"; break;
      case '"': rep = "&quot;"; break;
      case '\'': rep = "&#x27;"; break;
      case '/': rep = "&#x2F;"; break;
      default: continue;
    }
    out.append(s.data() + start, i - start);
    out.append(rep);
    start = i + 1;
  }
  out.append(s.data() + start, s.size() - start);
}

}  // namespace sindri::tera
