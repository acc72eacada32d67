#pragma once
// Rust's number conversions the builtins reproduce.

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>

namespace sindri::tera::builtins {

// Rust's `f as i64`: truncation, saturating at the bounds, NaN -> 0.
inline int64_t f64_to_i64(double f) {
  if (std::isnan(f)) return 0;
  if (f >= 9223372036854775807.0) return INT64_MAX;
  if (f <= -9223372036854775808.0) return INT64_MIN;
  return static_cast<int64_t>(f);
}

// Rust's `str::parse::<f64>()`: [+-] then digits with an optional fraction
// and exponent, or inf / infinity / nan in any case. Nothing else.
inline bool parse_rust_f64(std::string_view s, double& out) {
  if (s.empty()) return false;
  bool neg = false;
  if (s[0] == '+' || s[0] == '-') {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  auto ieq = [](std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      char c = a[i];
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
      if (c != b[i]) return false;
    }
    return true;
  };
  if (ieq(s, "inf") || ieq(s, "infinity")) {
    out = neg ? -INFINITY : INFINITY;
    return true;
  }
  if (ieq(s, "nan")) {
    out = NAN;
    return true;
  }
  size_t i = 0, digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exp_digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  if (i != s.size()) return false;
  double v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec == std::errc::result_out_of_range) {
    // from_chars leaves v untouched on range errors: overflow is infinity,
    // underflow is zero, as Rust rounds.
    bool tiny = false;
    for (size_t k = 0; k < s.size(); ++k) {
      if (s[k] == 'e' || s[k] == 'E') {
        tiny = s.size() > k + 1 && s[k + 1] == '-';
        break;
      }
    }
    v = tiny ? 0.0 : INFINITY;
  } else if (r.ec != std::errc()) {
    return false;
  }
  out = neg ? -v : v;
  return true;
}

}  // namespace sindri::tera::builtins
