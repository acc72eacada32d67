#include "value/number_format.hpp"

#include <charconv>
#include <cmath>
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

Decimal shortest_digits(double d) {
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
  Decimal dec = shortest_digits(d);
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
  Decimal dec = shortest_digits(d);
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
