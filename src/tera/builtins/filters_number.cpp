// Filters on numbers (Tera's builtins/filters/number.rs).

#include <cmath>
#include <cstdio>

#include "tera/builtins/internal.hpp"

namespace sindri::tera::builtins {

// Tera 1.18+.
Result<Value> f_abs(const Value& input, const Args&, Budget&) {
  if (input.is_int()) {
    int64_t i = input.get_int();
    if (i >= 0) return input;
    if (i == INT64_MIN) return Error{"attempt to negate with overflow"};
    return Value(-i);
  }
  if (input.is_float()) return float_value(std::fabs(input.get_float()));
  return Error{"Filter `abs` was used on a value that isn't a number."};
}

Result<Value> f_pluralize(const Value& input, const Args& args, Budget&) {
  double num;
  if (!as_f64(input, num)) return incorrect_value("pluralize", input, "f64");
  SINDRI_TRY(plural, arg_string(args, "pluralize", "plural", "s"));
  SINDRI_TRY(singular, arg_string(args, "pluralize", "singular", ""));
  if (std::fabs(std::fabs(num) - 1.0) > 2.220446049250313e-16) return Value(plural);
  return Value(singular);
}

Result<Value> f_round(const Value& input, const Args& args, Budget&) {
  double num;
  if (!as_f64(input, num)) return incorrect_value("round", input, "f64");
  SINDRI_TRY(method, arg_string(args, "round", "method", "common"));
  int32_t precision = 0;
  if (const Value* p = args.find("precision")) {
    if (!p->is_int() || p->get_int() < INT32_MIN || p->get_int() > INT32_MAX) {
      return incorrect_arg("round", "precision", *p, "i32");
    }
    precision = static_cast<int32_t>(p->get_int());
  }
  // Rust's powi: repeated multiplication (LLVM's __powidf2).
  double multiplier = 1.0;
  if (precision != 0) {
    unsigned n = precision < 0 ? 0u - static_cast<unsigned>(precision) : static_cast<unsigned>(precision);
    double base = 10.0, r = 1.0;
    while (true) {
      if (n & 1) r *= base;
      n >>= 1;
      if (n == 0) break;
      base *= base;
    }
    multiplier = precision < 0 ? 1.0 / r : r;
  }
  double x = multiplier * num;
  double r;
  if (method == "common") {
    r = std::round(x);
  } else if (method == "ceil") {
    r = std::ceil(x);
  } else if (method == "floor") {
    r = std::floor(x);
  } else {
    std::string m = "Filter `round` received an incorrect value for arg `method`: got `";
    append_rust_debug_str(m, method);
    m.append("`, only common, ceil and floor are allowed");
    return Error{std::move(m)};
  }
  return float_value(r / multiplier);
}

// humansize with Tera's options: 1024 divider, KB/MB/... units (KiB/MiB/...
// with binary=true, Tera 1.18+), two decimals unless the value is whole.
Result<Value> f_filesizeformat(const Value& input, const Args& args, Budget&) {
  uint64_t num;
  if (!as_usize(input, num)) return incorrect_value("filesizeformat", input, "usize");
  SINDRI_TRY(binary, arg_bool(args, "filesizeformat", "binary", false));
  static const char* const kDecimal[] = {"B", "KB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"};
  static const char* const kBinary[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"};
  double size = static_cast<double>(num);
  int idx = 0;
  while (size >= 1024.0) {
    size /= 1024.0;
    ++idx;
  }
  int places = size == std::trunc(size) ? 0 : 2;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f %s", places, size, (binary ? kBinary : kDecimal)[idx]);
  return Value(std::string_view(buf));
}

}  // namespace sindri::tera::builtins
