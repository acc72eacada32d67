// Tera's text form of values, truthiness and HTML escaping.

#include <cmath>

#include "tera/builtins.hpp"
#include "value/number_format.hpp"

namespace sindri::tera {

void append_rendered(std::string& out, const Value& value) {
  switch (value.kind()) {
    case Value::Kind::Null:
      return;
    case Value::Kind::Bool:
      out.append(value.get_bool() ? "true" : "false");
      return;
    case Value::Kind::Int:
      append_int(out, value.get_int());
      return;
    case Value::Kind::Float:
      append_float_plain(out, value.get_float());
      return;
    case Value::Kind::String:
      out.append(value.get_string());
      return;
    case Value::Kind::Array: {
      out.push_back('[');
      bool first = true;
      for (const Value& v : value.get_array()) {
        if (!first) out.append(", ");
        first = false;
        append_rendered(out, v);
      }
      out.push_back(']');
      return;
    }
    case Value::Kind::Object:
      out.append("[object]");
      return;
  }
}

std::string render_to_string(const Value& value) {
  if (value.is_string()) return std::string(value.get_string());
  std::string out;
  append_rendered(out, value);
  return out;
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
