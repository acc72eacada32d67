// chrono's date and time parsers, as Tera's `date` filter reads strings.

#include <cstdint>

#include "tera/builtins/datetime.hpp"
#include "tera/builtins/internal.hpp"

namespace sindri::tera::builtins::datetime {

namespace {

class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}
  void spaces() {
    while (i_ < s_.size()) {
      size_t j = i_;
      if (!is_rust_whitespace(next_cp(s_, j))) break;
      i_ = j;
    }
  }
  bool lit(char c) {
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  // chrono's scan::number: min..max digits, leading whitespace skipped.
  bool number(int64_t& v, size_t max_digits) {
    spaces();
    size_t n = 0;
    v = 0;
    while (i_ < s_.size() && n < max_digits && s_[i_] >= '0' && s_[i_] <= '9') {
      if (v > (INT64_MAX - 9) / 10) return false;
      v = v * 10 + (s_[i_] - '0');
      ++i_;
      ++n;
    }
    return n > 0;
  }
  bool year(int64_t& y) {
    spaces();
    if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) {
      bool neg = s_[i_] == '-';
      ++i_;
      if (!number(y, 18)) return false;
      if (neg) y = -y;
      return true;
    }
    return number(y, 4);
  }
  bool nanos(uint32_t& nano) {
    nano = 0;
    if (!lit('.')) return true;
    size_t n = 0;
    uint32_t v = 0;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
      if (n < 9) v = v * 10 + static_cast<uint32_t>(s_[i_] - '0');
      ++n;
      ++i_;
    }
    if (n == 0) return false;
    for (size_t k = n; k < 9; ++k) v *= 10;
    nano = v;
    return true;
  }
  bool offset(int32_t& off) {
    spaces();
    if (lit('Z') || lit('z')) {
      off = 0;
      return true;
    }
    if (i_ >= s_.size() || (s_[i_] != '+' && s_[i_] != '-')) return false;
    int sign = s_[i_] == '-' ? -1 : 1;
    ++i_;
    auto two = [&](int& v) {
      if (i_ + 2 > s_.size() || s_[i_] < '0' || s_[i_] > '9' || s_[i_ + 1] < '0' || s_[i_ + 1] > '9') return false;
      v = (s_[i_] - '0') * 10 + (s_[i_ + 1] - '0');
      i_ += 2;
      return true;
    };
    int h, m;
    if (!two(h)) return false;
    spaces();
    lit(':');
    spaces();
    if (!two(m)) return false;
    if (h > 23 || m > 59) return false;
    off = sign * (h * 3600 + m * 60);
    return true;
  }
  bool done() const { return i_ == s_.size(); }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void advance() { ++i_; }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

bool parse_ymd(Scanner& sc, DateTime& dt) {
  int64_t y, m, d;
  if (!sc.year(y)) return false;
  sc.spaces();
  if (!sc.lit('-') || !sc.number(m, 2)) return false;
  sc.spaces();
  if (!sc.lit('-') || !sc.number(d, 2)) return false;
  if (y < kMinYear || y > kMaxYear || m < 1 || m > 12 || d < 1 ||
      d > static_cast<int64_t>(days_in_month(y, static_cast<unsigned>(m)))) {
    return false;
  }
  dt.year = y;
  dt.month = static_cast<unsigned>(m);
  dt.day = static_cast<unsigned>(d);
  return true;
}

bool parse_hms(Scanner& sc, DateTime& dt) {
  int64_t h, mi, s;
  if (!sc.number(h, 2)) return false;
  sc.spaces();
  if (!sc.lit(':') || !sc.number(mi, 2)) return false;
  sc.spaces();
  if (!sc.lit(':') || !sc.number(s, 2)) return false;
  if (h > 23 || mi > 59 || s > 59) return false;
  dt.hour = static_cast<unsigned>(h);
  dt.minute = static_cast<unsigned>(mi);
  dt.second = static_cast<unsigned>(s);
  return sc.nanos(dt.nano);
}

}  // namespace

bool parse_rfc3339(std::string_view s, DateTime& dt, int32_t& off) {
  Scanner sc(s);
  if (!parse_ymd(sc, dt)) return false;
  if (!sc.lit('T') && !sc.lit(' ')) return false;
  if (!parse_hms(sc, dt)) return false;
  if (!sc.offset(off)) return false;
  sc.spaces();
  return sc.done();
}

bool parse_naive(std::string_view s, DateTime& dt) {
  Scanner sc(s);
  if (!parse_ymd(sc, dt)) return false;
  sc.spaces();
  if (!sc.lit('T')) return false;
  if (!parse_hms(sc, dt)) return false;
  sc.spaces();
  return sc.done();
}

bool parse_date(std::string_view s, DateTime& dt) {
  Scanner sc(s);
  return parse_ymd(sc, dt) && sc.done();
}

}  // namespace sindri::tera::builtins::datetime
