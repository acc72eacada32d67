#include "value/number_format.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace sindri {

namespace {

// The shortest round-trip decimal digits of |d| (no sign, no leading or
// trailing zeros) and the decimal exponent such that |d| = 0.DIGITS * 10^point.
struct Decimal {
  char digits[32];
  int count = 0;
  int point = 0;
};

// Whether |d| lies exactly halfway between `digits` and the next number of
// that many digits: |d| == (10 * digits + 5) * 10^exponent5, where exponent5
// is the power of ten of the 5. Exact, on d's binary mantissa and exponent.
bool is_exact_tie(double d, uint64_t digits, int exponent5) {
  int binary_exponent = 0;
  double fraction = std::frexp(std::fabs(d), &binary_exponent);
  uint64_t mantissa = static_cast<uint64_t>(std::ldexp(fraction, 53));
  binary_exponent -= 53;
  while ((mantissa & 1) == 0) {
    mantissa >>= 1;
    ++binary_exponent;
  }
  // (10 * digits + 5) is odd, so its power of two must match d's exactly,
  // and the odd parts must be equal: mantissa * 5^-e == 10D + 5 (e < 0), or
  // mantissa == (10D + 5) * 5^e (e >= 0).
  if (binary_exponent != exponent5 || digits > (UINT64_MAX - 5) / 10) return false;
  unsigned __int128 midpoint = static_cast<unsigned __int128>(digits) * 10 + 5;
  unsigned __int128 odd_part = mantissa;
  unsigned __int128& scaled = exponent5 < 0 ? odd_part : midpoint;
  for (int i = 0; i < std::abs(exponent5); ++i) {
    scaled *= 5;
    if (scaled > (static_cast<unsigned __int128>(1) << 100)) return false;
  }
  return odd_part == midpoint;
}

// The shortest round-trip digits. When two candidates of that length are
// equally near, std::to_chars picks the even one, as ryu (serde_json) does;
// Rust's Display for f64 picks the upper one (0.1 * 2^53 is
// 900719925474099.25: "900719925474099.3"), so `ties_up` moves to it.
Decimal shortest_digits(double d, bool ties_up) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), std::fabs(d), std::chars_format::scientific);
  // buf holds "D[.DDD]e[+-]XX"
  Decimal dec;
  const char* p = buf;
  const char* end = res.ptr;
  while (p < end && *p != 'e') {
    if (*p != '.') dec.digits[dec.count++] = *p;
    ++p;
  }
  int exponent = 0;
  std::from_chars(p + 1 + (p[1] == '+' ? 1 : 0), end, exponent);
  while (dec.count > 1 && dec.digits[dec.count - 1] == '0') --dec.count;
  dec.point = exponent + 1;
  if (ties_up && (dec.digits[dec.count - 1] - '0') % 2 == 0) {
    uint64_t digits = 0;
    for (int i = 0; i < dec.count; ++i) digits = digits * 10 + static_cast<uint64_t>(dec.digits[i] - '0');
    // An even last digit below 9: the upper candidate needs no carry.
    if (is_exact_tie(d, digits, dec.point - dec.count - 1)) ++dec.digits[dec.count - 1];
  }
  return dec;
}

}  // namespace

void append_int(std::string& out, int64_t i) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof(buf), i);
  out.append(buf, res.ptr);
}

void append_float_plain(std::string& out, double d) {
  if (std::isnan(d)) {
    out += "NaN";
    return;
  }
  if (std::isinf(d)) {
    out += d < 0 ? "-inf" : "inf";
    return;
  }
  if (std::signbit(d)) out += '-';
  if (d == 0) {
    out += '0';
    return;
  }
  Decimal dec = shortest_digits(d, true);
  if (dec.point <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-dec.point), '0');
    out.append(dec.digits, dec.count);
  } else if (dec.point >= dec.count) {
    out.append(dec.digits, dec.count);
    out.append(static_cast<size_t>(dec.point - dec.count), '0');
  } else {
    out.append(dec.digits, dec.point);
    out += '.';
    out.append(dec.digits + dec.point, dec.count - dec.point);
  }
}

void append_float_json(std::string& out, double d) {
  if (!std::isfinite(d)) {
    out += "null";
    return;
  }
  if (std::signbit(d)) out += '-';
  if (d == 0) {
    out += "0.0";
    return;
  }
  Decimal dec = shortest_digits(d, false);
  const int k = dec.point - dec.count;  // exponent of the last digit
  const int kk = dec.point;
  if (k >= 0 && kk <= 16) {
    out.append(dec.digits, dec.count);
    out.append(static_cast<size_t>(k), '0');
    out += ".0";
  } else if (kk > 0 && kk <= 16) {
    out.append(dec.digits, kk);
    out += '.';
    out.append(dec.digits + kk, dec.count - kk);
  } else if (kk > -5 && kk <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-kk), '0');
    out.append(dec.digits, dec.count);
  } else {
    out += dec.digits[0];
    if (dec.count > 1) {
      out += '.';
      out.append(dec.digits + 1, dec.count - 1);
    }
    out += 'e';
    append_int(out, kk - 1);
  }
}

}  // namespace sindri
