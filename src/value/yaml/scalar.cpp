#include "value/yaml/scalar.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>

namespace sindri::yaml_detail {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Go's strconv.ParseFloat for decimal text: [sign] digits [. digits]
// [e [sign] digits], with underscores allowed only between digits. Out of
// range above fails (go-yaml then keeps the text as a string); below it
// rounds to zero, as Go does.
bool parse_go_decimal_float(std::string_view text, double& out) {
  std::string digits;  // text without sign and underscores
  digits.reserve(text.size());
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  bool seen_digit = false, seen_point = false, seen_exponent = false;
  int integer_digits = 0, leading_fraction_zeros = 0;
  bool nonzero_seen = false;
  long exponent = 0;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '_') {
      // Go's underscoreOK: an underscore sits between two digits.
      if (i == 0 || !is_digit(text[i - 1]) || i + 1 >= text.size() || !is_digit(text[i + 1])) return false;
      continue;
    }
    if (is_digit(c)) {
      seen_digit = true;
      if (seen_exponent) {
        if (exponent < 100000) exponent = exponent * 10 + (c - '0');
      } else if (!seen_point) {
        if (nonzero_seen || c != '0') ++integer_digits;
        nonzero_seen = nonzero_seen || c != '0';
      } else if (!nonzero_seen) {
        if (c == '0') ++leading_fraction_zeros;
        nonzero_seen = c != '0';
      }
    } else if (c == '.' && !seen_point && !seen_exponent) {
      seen_point = true;
    } else if ((c == 'e' || c == 'E') && seen_digit && !seen_exponent) {
      seen_exponent = true;
      digits.push_back(c);
      if (i + 1 < text.size() && (text[i + 1] == '+' || text[i + 1] == '-')) digits.push_back(text[++i]);
      if (i + 1 >= text.size() || !is_digit(text[i + 1])) return false;
      continue;
    } else {
      return false;
    }
    digits.push_back(c);
  }
  if (!seen_digit) return false;
  double value = 0;
  auto res = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (res.ptr != digits.data() + digits.size()) return false;
  if (res.ec == std::errc::result_out_of_range) {
    size_t e = digits.find_first_of("eE");
    long signed_exponent = 0;
    if (e != std::string::npos) {
      std::from_chars(digits.data() + e + (digits[e + 1] == '+' ? 2 : 1), digits.data() + digits.size(),
                      signed_exponent);
    }
    long magnitude = (integer_digits > 0 ? integer_digits : -leading_fraction_zeros) + signed_exponent;
    if (magnitude > 0) return false;  // overflow
    value = 0;
  } else if (res.ec != std::errc()) {
    return false;
  }
  out = negative ? -value : value;
  return true;
}

// ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ : go-yaml's
// yamlStyleFloat, the only float syntax it accepts from a digit or sign.
bool is_yaml_style_float(std::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    size_t start = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    return i - start;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits() == 0) return false;
  } else {
    if (digits() == 0) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

// Go's strconv.ParseUint(s, 0, 64) on text without underscores: 0x, 0o, 0b
// prefixes and a leading 0 for octal.
bool parse_go_unsigned(std::string_view s, uint64_t& out) {
  int base = 10;
  if (s.size() >= 2 && s[0] == '0') {
    char p = static_cast<char>(s[1] | 0x20);
    if (p == 'x') base = 16, s.remove_prefix(2);
    else if (p == 'o') base = 8, s.remove_prefix(2);
    else if (p == 'b') base = 2, s.remove_prefix(2);
    else base = 8, s.remove_prefix(1);
  }
  if (s.empty()) return false;
  auto res = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return res.ec == std::errc() && res.ptr == s.data() + s.size();
}

// Go's strconv.ParseInt(s, 0, 64) on text without underscores.
bool parse_go_signed(std::string_view s, int64_t& out) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  uint64_t magnitude = 0;
  if (!parse_go_unsigned(s, magnitude)) return false;
  constexpr uint64_t kMaxPositive = static_cast<uint64_t>(INT64_MAX);
  if (!negative && magnitude > kMaxPositive) return false;
  if (negative && magnitude > kMaxPositive + 1) return false;
  out = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

// Reads 1 or 2 digits, as Go's time.Parse reads "1", "2", "15", "4", "5".
bool read_short_number(std::string_view s, size_t& i, int& out) {
  if (i >= s.size() || !is_digit(s[i])) return false;
  out = s[i++] - '0';
  if (i < s.size() && is_digit(s[i])) out = out * 10 + (s[i++] - '0');
  return true;
}

bool read_fixed_number(std::string_view s, size_t& i, size_t width, int& out) {
  out = 0;
  for (size_t k = 0; k < width; ++k, ++i) {
    if (i >= s.size() || !is_digit(s[i])) return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

int days_in_month(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

// go-yaml v2's timestamp formats, as Go's time.Parse reads them:
// "2006-1-2T15:4:5.999999999Z07:00", the same with 't',
// "2006-1-2 15:4:5.999999999" and "2006-1-2".
bool is_timestamp(std::string_view s) {
  size_t i = 0;
  int year = 0, month = 0, day = 0;
  if (!read_fixed_number(s, i, 4, year) || i >= s.size() || s[i++] != '-') return false;
  if (!read_short_number(s, i, month) || i >= s.size() || s[i++] != '-') return false;
  if (!read_short_number(s, i, day)) return false;
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month)) return false;
  if (i == s.size()) return true;
  char separator = s[i++];
  if (separator != 'T' && separator != 't' && separator != ' ') return false;
  int hour = 0, minute = 0, second = 0;
  if (!read_short_number(s, i, hour) || i >= s.size() || s[i++] != ':') return false;
  if (!read_short_number(s, i, minute) || i >= s.size() || s[i++] != ':') return false;
  if (!read_short_number(s, i, second)) return false;
  if (hour > 23 || minute > 59 || second > 59) return false;
  if (i + 1 < s.size() && (s[i] == '.' || s[i] == ',') && is_digit(s[i + 1])) {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i;
  }
  if (separator == ' ') return i == s.size();
  if (i < s.size() && s[i] == 'Z') return i + 1 == s.size();
  if (s.size() - i != 6 || (s[i] != '+' && s[i] != '-') || s[i + 3] != ':') return false;
  ++i;
  int zone_hours = 0, zone_minutes = 0;
  if (!read_fixed_number(s, i, 2, zone_hours) || s[i++] != ':') return false;
  if (!read_fixed_number(s, i, 2, zone_minutes)) return false;
  return zone_hours <= 24 && zone_minutes <= 60;
}

struct KnownWord {
  std::string_view text;
  ResolvedScalar::Type type;
  bool boolean;
  double floating;
};

// go-yaml v2's resolveMap.
constexpr double kInf = HUGE_VAL;
constexpr KnownWord kKnownWords[] = {
    {"y", ResolvedScalar::Type::Bool, true, 0},       {"Y", ResolvedScalar::Type::Bool, true, 0},
    {"yes", ResolvedScalar::Type::Bool, true, 0},     {"Yes", ResolvedScalar::Type::Bool, true, 0},
    {"YES", ResolvedScalar::Type::Bool, true, 0},     {"true", ResolvedScalar::Type::Bool, true, 0},
    {"True", ResolvedScalar::Type::Bool, true, 0},    {"TRUE", ResolvedScalar::Type::Bool, true, 0},
    {"on", ResolvedScalar::Type::Bool, true, 0},      {"On", ResolvedScalar::Type::Bool, true, 0},
    {"ON", ResolvedScalar::Type::Bool, true, 0},      {"n", ResolvedScalar::Type::Bool, false, 0},
    {"N", ResolvedScalar::Type::Bool, false, 0},      {"no", ResolvedScalar::Type::Bool, false, 0},
    {"No", ResolvedScalar::Type::Bool, false, 0},     {"NO", ResolvedScalar::Type::Bool, false, 0},
    {"false", ResolvedScalar::Type::Bool, false, 0},  {"False", ResolvedScalar::Type::Bool, false, 0},
    {"FALSE", ResolvedScalar::Type::Bool, false, 0},  {"off", ResolvedScalar::Type::Bool, false, 0},
    {"Off", ResolvedScalar::Type::Bool, false, 0},    {"OFF", ResolvedScalar::Type::Bool, false, 0},
    {"~", ResolvedScalar::Type::Null, false, 0},      {"null", ResolvedScalar::Type::Null, false, 0},
    {"Null", ResolvedScalar::Type::Null, false, 0},   {"NULL", ResolvedScalar::Type::Null, false, 0},
    {".nan", ResolvedScalar::Type::Float, false, NAN}, {".NaN", ResolvedScalar::Type::Float, false, NAN},
    {".NAN", ResolvedScalar::Type::Float, false, NAN}, {".inf", ResolvedScalar::Type::Float, false, kInf},
    {".Inf", ResolvedScalar::Type::Float, false, kInf}, {".INF", ResolvedScalar::Type::Float, false, kInf},
    {"+.inf", ResolvedScalar::Type::Float, false, kInf}, {"+.Inf", ResolvedScalar::Type::Float, false, kInf},
    {"+.INF", ResolvedScalar::Type::Float, false, kInf}, {"-.inf", ResolvedScalar::Type::Float, false, -kInf},
    {"-.Inf", ResolvedScalar::Type::Float, false, -kInf}, {"-.INF", ResolvedScalar::Type::Float, false, -kInf},
};

static_assert(
    [] {
      size_t longest = 0;
      for (const KnownWord& word : kKnownWords) longest = std::max(longest, word.text.size());
      return longest;
    }() == kLongestPlainWord,
    "plain_may_not_be_string must know the longest word");

// The known words by their first character (at most six share one), so
// that a plain scalar is compared with a handful of them, not all 37.
struct WordsStartingWith {
  std::array<uint8_t, 6> indices{};
  uint8_t count = 0;
  const uint8_t* begin() const { return indices.data(); }
  const uint8_t* end() const { return indices.data() + count; }
};
constexpr auto kKnownWordsByFirst = [] {
  std::array<WordsStartingWith, 256> table{};
  for (size_t i = 0; i < std::size(kKnownWords); ++i) {
    WordsStartingWith& words = table[static_cast<unsigned char>(kKnownWords[i].text[0])];
    words.indices.at(words.count++) = static_cast<uint8_t>(i);
  }
  return table;
}();

ResolvedScalar make_float(double d) {
  ResolvedScalar r;
  r.type = ResolvedScalar::Type::Float;
  r.floating = d;
  return r;
}

// Go's 'g' format with the shortest digits: %e when the decimal exponent is
// below -4 or at least 6 (FormatFloat's rule for precision -1).
void append_go_g(std::string& out, const char* scientific, size_t length) {
  // scientific: "[-]D[.DDD]e[+-]XX" from std::to_chars
  std::string_view text(scientific, length);
  bool negative = text.front() == '-';
  if (negative) text.remove_prefix(1);
  size_t e = text.find('e');
  int exponent = 0;
  const char* exp_begin = text.data() + e + 1 + (text[e + 1] == '+' ? 1 : 0);
  std::from_chars(exp_begin, text.data() + text.size(), exponent);
  std::string digits;
  for (char c : text.substr(0, e)) {
    if (c != '.') digits.push_back(c);
  }
  if (negative) out.push_back('-');
  if (exponent < -4 || exponent >= 6) {
    out.append(text.data(), e);  // mantissa as to_chars wrote it
    out.push_back('e');
    out.push_back(exponent < 0 ? '-' : '+');
    int magnitude = exponent < 0 ? -exponent : exponent;
    if (magnitude < 10) out.push_back('0');
    out += std::to_string(magnitude);
    return;
  }
  int point = exponent + 1;  // digits before the decimal point
  if (point <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-point), '0');
    out += digits;
    return;
  }
  if (static_cast<size_t>(point) >= digits.size()) {
    out += digits;
    out.append(static_cast<size_t>(point) - digits.size(), '0');
    return;
  }
  out.append(digits, 0, static_cast<size_t>(point));
  out.push_back('.');
  out.append(digits, static_cast<size_t>(point));
}

}  // namespace

ResolvedScalar resolve_plain(std::string_view text) {
  ResolvedScalar result;
  if (text.empty()) {
    result.type = ResolvedScalar::Type::Null;
    return result;
  }
  if (!plain_may_not_be_string(text)) return result;
  char first = text[0];
  bool sign_or_digit = is_digit(first) || first == '+' || first == '-';
  for (const uint8_t index : kKnownWordsByFirst[static_cast<unsigned char>(first)]) {
    const KnownWord& word = kKnownWords[index];
    if (word.text == text) {
      result.type = word.type;
      result.boolean = word.boolean;
      result.floating = word.floating;
      return result;
    }
  }
  if (first == '.') {
    double d = 0;
    if (parse_go_decimal_float(text, d)) return make_float(d);
    return result;
  }
  if (!sign_or_digit) return result;
  if (is_timestamp(text)) {
    result.type = ResolvedScalar::Type::Timestamp;
    return result;
  }
  // Underscores are digit separators; most numbers have none to drop.
  std::string without_underscores;
  std::string_view plain = text;
  if (text.find('_') != std::string_view::npos) {
    without_underscores.reserve(text.size());
    for (char c : text) {
      if (c != '_') without_underscores.push_back(c);
    }
    plain = without_underscores;
  }
  if (parse_go_signed(plain, result.integer)) {
    result.type = ResolvedScalar::Type::Int;
    return result;
  }
  if (parse_go_unsigned(plain, result.unsigned_integer)) {
    result.type = ResolvedScalar::Type::Uint;
    return result;
  }
  double d = 0;
  if (is_yaml_style_float(plain) && parse_go_decimal_float(plain, d)) return make_float(d);
  return result;
}

std::optional<Value> json_value_of(const ResolvedScalar& resolved, std::string_view text) {
  switch (resolved.type) {
    case ResolvedScalar::Type::Null:
      return Value();
    case ResolvedScalar::Type::Bool:
      return Value(resolved.boolean);
    case ResolvedScalar::Type::Int:
      return Value(resolved.integer);
    case ResolvedScalar::Type::Uint:
      return Value(static_cast<double>(resolved.unsigned_integer));
    case ResolvedScalar::Type::Float: {
      double d = resolved.floating;
      if (!std::isfinite(d)) return std::nullopt;
      if (std::nearbyint(d) == d && d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
        return Value(static_cast<int64_t>(d));
      }
      return Value(d);
    }
    case ResolvedScalar::Type::Timestamp:
    case ResolvedScalar::Type::String:
      break;
  }
  return Value(text);
}

bool looks_like_base60_float(std::string_view s) {
  // ^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i >= s.size() || !is_digit(s[i])) return false;
  while (i < s.size() && (is_digit(s[i]) || s[i] == '_')) ++i;
  int groups = 0;
  while (i < s.size() && s[i] == ':') {
    ++i;
    if (i + 1 < s.size() && s[i] >= '0' && s[i] <= '5' && is_digit(s[i + 1])) {
      i += 2;
    } else if (i < s.size() && is_digit(s[i])) {
      ++i;
    } else {
      return false;
    }
    ++groups;
  }
  if (groups == 0) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && (is_digit(s[i]) || s[i] == '_')) ++i;
  }
  return i == s.size();
}

std::string float_key_string(double key) {
  float narrow = static_cast<float>(key);
  if (std::isnan(narrow)) return ".nan";
  if (std::isinf(narrow)) return narrow > 0 ? ".inf" : "-.inf";
  char buf[48];
  auto res = std::to_chars(buf, buf + sizeof(buf), narrow, std::chars_format::scientific);
  std::string out;
  append_go_g(out, buf, static_cast<size_t>(res.ptr - buf));
  return out;
}

void append_go_float(std::string& out, double value) {
  if (std::isnan(value)) {
    out += ".nan";
    return;
  }
  if (std::isinf(value)) {
    out += value > 0 ? ".inf" : "-.inf";
    return;
  }
  char buf[48];
  auto res = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::scientific);
  append_go_g(out, buf, static_cast<size_t>(res.ptr - buf));
}

}  // namespace sindri::yaml_detail
