// Filters on several types (Tera's builtins/filters/common.rs); `date` lives
// in datetime.cpp.

#include <algorithm>

#include "tera/builtins/internal.hpp"
#include "value/json.hpp"

namespace sindri::tera::builtins {

Result<Value> f_length(const Value& input, const Args&) {
  switch (input.kind()) {
    case Value::Kind::Array:
    case Value::Kind::Object:
      return Value(static_cast<int64_t>(input.size()));
    case Value::Kind::String:
      return Value(static_cast<int64_t>(count_chars(input.get_string())));
    default:
      return Error{"Filter `length` was used on a value that isn't an array, an object, or a string."};
  }
}

Result<Value> f_reverse(const Value& input, const Args&) {
  if (input.is_array()) {
    const Array& a = input.get_array();
    return Value(Array(a.rbegin(), a.rend()));
  }
  if (input.is_string()) {
    std::string_view s = input.get_string();
    std::string out(s.size(), '\0');
    size_t i = 0;
    while (i < s.size()) {
      size_t start = i;
      next_cp(s, i);
      std::copy(s.begin() + static_cast<ptrdiff_t>(start), s.begin() + static_cast<ptrdiff_t>(i),
                out.begin() + static_cast<ptrdiff_t>(s.size() - i));
    }
    return Value(out);
  }
  std::string m = "Filter `reverse` received an incorrect type for arg `value`: got `";
  m.append(display(input)).append("` but expected Array|String");
  return Error{std::move(m)};
}

Result<Value> f_json_encode(const Value& input, const Args& args) {
  const Value* pretty = args.find("pretty");
  if (pretty && pretty->is_bool() && pretty->get_bool()) return Value(to_json_pretty(input));
  return Value(to_json(input));
}

Result<Value> f_as_str(const Value& input, const Args&) {
  if (input.is_string()) return input;
  return Value(render_to_string(input));
}

}  // namespace sindri::tera::builtins
