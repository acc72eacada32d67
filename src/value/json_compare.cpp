#include "value/json_compare.hpp"

#include <cmath>
#include <cstdint>

namespace sindri {

namespace {

// An int64 and a double by mathematical value. Rounding the int to a double
// instead would make 2^53 + 1 equal 2^53.0 while unequal to 2^53, and
// equality would stop being transitive.
std::partial_ordering compare_exactly(int64_t i, double d) {
  constexpr double kTwoTo63 = 9223372036854775808.0;
  if (std::isnan(d)) return std::partial_ordering::unordered;
  if (d >= kTwoTo63) return std::partial_ordering::less;
  if (d < -kTwoTo63) return std::partial_ordering::greater;
  const double whole = std::trunc(d);
  const auto whole_int = static_cast<int64_t>(whole);  // in range: -2^63 <= whole < 2^63
  if (i != whole_int) return i <=> whole_int;
  return 0.0 <=> d - whole;  // the fraction, exact
}

// The kinds in json_order's order, ints and floats as the one kind of numbers.
int kind_rank(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::Null: return 0;
    case Value::Kind::Bool: return 1;
    case Value::Kind::Int:
    case Value::Kind::Float: return 2;
    case Value::Kind::String: return 3;
    case Value::Kind::Array: return 4;
    case Value::Kind::Object: return 5;
  }
  return 6;
}

bool is_nan(const Value& v) { return v.is_float() && std::isnan(v.get_float()); }

}  // namespace

std::partial_ordering compare_numbers(const Value& a, const Value& b) {
  if (a.is_int() && b.is_int()) return a.get_int() <=> b.get_int();
  if (a.is_float() && b.is_float()) return a.get_float() <=> b.get_float();
  if (a.is_int()) return compare_exactly(a.get_int(), b.get_float());
  return 0 <=> compare_exactly(b.get_int(), a.get_float());  // reversed
}

bool json_equal(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) return std::is_eq(compare_numbers(a, b));
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Value::Kind::Array: {
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i) {
        if (!json_equal(*a.at(i), *b.at(i))) return false;
      }
      return true;
    }
    case Value::Kind::Object: {
      const Object& x = a.get_object();
      const Object& y = b.get_object();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (x[i].key.get_string() != y[i].key.get_string() || !json_equal(x[i].value, y[i].value)) return false;
      }
      return true;
    }
    default: return a == b;
  }
}

std::weak_ordering json_order(const Value& a, const Value& b) {
  if (const auto by_kind = kind_rank(a) <=> kind_rank(b); by_kind != 0) return by_kind;
  switch (a.kind()) {
    case Value::Kind::Null: return std::weak_ordering::equivalent;
    case Value::Kind::Bool: return a.get_bool() <=> b.get_bool();
    case Value::Kind::Int:
    case Value::Kind::Float: {
      const std::partial_ordering by_value = compare_numbers(a, b);
      if (by_value < 0) return std::weak_ordering::less;
      if (by_value > 0) return std::weak_ordering::greater;
      if (by_value == 0) return std::weak_ordering::equivalent;
      return is_nan(a) <=> is_nan(b);  // a NaN after every other number
    }
    case Value::Kind::String: return a.get_string() <=> b.get_string();
    case Value::Kind::Array: {
      const Array& x = a.get_array();
      const Array& y = b.get_array();
      for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
        if (const auto by_item = json_order(x[i], y[i]); by_item != 0) return by_item;
      }
      return x.size() <=> y.size();
    }
    case Value::Kind::Object: {
      const Object& x = a.get_object();
      const Object& y = b.get_object();
      if (x.size() != y.size()) return x.size() <=> y.size();
      for (size_t i = 0; i < x.size(); ++i) {
        if (const auto by_key = x[i].key.get_string() <=> y[i].key.get_string(); by_key != 0) return by_key;
        if (const auto by_value = json_order(x[i].value, y[i].value); by_value != 0) return by_value;
      }
      return std::weak_ordering::equivalent;
    }
  }
  return std::weak_ordering::equivalent;
}

}  // namespace sindri
