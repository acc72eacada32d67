// Equality and substring search for the builtins and the renderer, in time
// bounded by what they are given.

#include <cstring>

#include "tera/builtins.hpp"

namespace sindri::tera {

Result<bool> equal_values(const Value& a, const Value& b, Budget& budget) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Value::Kind::String: {
      const std::string_view x = a.get_string(), y = b.get_string();
      if (x.size() != y.size()) return false;
      if (x.data() == y.data()) return true;  // one shared string
      if (!budget.charge(x.size())) return Budget::stopped();
      return x == y;
    }
    case Value::Kind::Array: {
      const Array& x = a.get_array();
      const Array& y = b.get_array();
      if (&x == &y) return true;  // one shared array
      if (x.size() != y.size()) return false;
      if (!budget.charge(x.size())) return Budget::stopped();
      for (size_t i = 0; i < x.size(); ++i) {
        Result<bool> same = equal_values(x[i], y[i], budget);
        if (!same || !*same) return same;
      }
      return true;
    }
    case Value::Kind::Object: {
      const Object& x = a.get_object();
      const Object& y = b.get_object();
      if (&x == &y) return true;
      if (x.size() != y.size()) return false;
      if (!budget.charge(x.size())) return Budget::stopped();
      for (size_t i = 0; i < x.size(); ++i) {
        Result<bool> same = equal_values(x[i].key, y[i].key, budget);
        if (!same || !*same) return same;
        same = equal_values(x[i].value, y[i].value, budget);
        if (!same || !*same) return same;
      }
      return true;
    }
    default:
      return a == b;
  }
}

size_t find_text(std::string_view haystack, std::string_view needle, size_t from) {
  if (from > haystack.size()) return std::string_view::npos;
  if (needle.empty()) return from;
  // glibc's memmem is linear in the worst case (two-way search).
  const void* hit = memmem(haystack.data() + from, haystack.size() - from, needle.data(), needle.size());
  return hit ? static_cast<size_t>(static_cast<const char*>(hit) - haystack.data()) : std::string_view::npos;
}

}  // namespace sindri::tera
