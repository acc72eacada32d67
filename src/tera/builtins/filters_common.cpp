// Filters on several types (Tera's builtins/filters/common.rs); `date` lives
// in datetime.cpp.

#include <algorithm>

#include "tera/builtins/internal.hpp"
#include "value/json.hpp"

namespace sindri::tera::builtins {

Result<Value> f_length(const Value& input, const Args&, Budget& budget) {
  switch (input.kind()) {
    case Value::Kind::Array:
    case Value::Kind::Object:
      return Value(static_cast<int64_t>(input.size()));
    case Value::Kind::String:
      if (!budget.charge(input.get_string().size())) return Budget::stopped();
      return Value(static_cast<int64_t>(count_chars(input.get_string())));
    default:
      return Error{"Filter `length` was used on a value that isn't an array, an object, or a string."};
  }
}

Result<Value> f_reverse(const Value& input, const Args&, Budget& budget) {
  if (input.is_array()) {
    const Array& a = input.get_array();
    if (!budget.fits_list(a.size()) || !budget.charge(a.size())) return Budget::stopped();
    return Value(Array(a.rbegin(), a.rend()));
  }
  if (input.is_string()) {
    std::string_view s = input.get_string();
    if (!budget.charge(s.size())) return Budget::stopped();
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

// The text of a value may be far larger than the value (a list sharing one
// long list many times): these two stop at the size limit.
Result<Value> f_json_encode(const Value& input, const Args& args, Budget& budget) {
  const Value* pretty = args.find("pretty");
  std::string out;
  const bool fitted = pretty && pretty->is_bool() && pretty->get_bool()
                          ? append_json_pretty_within(out, input, budget.max_value_bytes())
                          : append_json_within(out, input, budget.max_value_bytes());
  if (!fitted) return budget.refuse_value();
  if (!budget.charge(out.size())) return Budget::stopped();
  return Value(out);
}

Result<Value> f_as_str(const Value& input, const Args&, Budget& budget) {
  if (input.is_string()) return input;
  std::string out;
  if (!append_rendered(out, input, budget.max_value_bytes())) return budget.refuse_value();
  if (!budget.charge(out.size())) return Budget::stopped();
  return Value(out);
}

}  // namespace sindri::tera::builtins
