// Format checks, each after its RFC: 3339 (date-time, date, time), 5321
// (email, without comments or obsolete forms), 1123 (hostname), 2673 and
// 4291 (ipv4, ipv6), 3986 / 3987 (uri, iri), 4122 (uuid), 6901 (JSON
// pointer), and ECMA-262 as PCRE2 reads it (regex).

#include "schema/formats.hpp"

#include <cstdint>
#include <string>

#include "schema/regex.hpp"

namespace sindri::schema {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// Reads exactly `n` digits at `pos` into `out`.
bool read_digits(std::string_view s, size_t& pos, size_t n, int& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!is_digit(s[pos + i])) return false;
    out = out * 10 + (s[pos + i] - '0');
  }
  pos += n;
  return true;
}

bool expect(std::string_view s, size_t& pos, char c) {
  if (pos >= s.size() || s[pos] != c) return false;
  ++pos;
  return true;
}

int days_in_month(int year, int month) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

bool parse_date(std::string_view s, size_t& pos) {
  int year, month, day;
  if (!read_digits(s, pos, 4, year) || !expect(s, pos, '-') || !read_digits(s, pos, 2, month) ||
      !expect(s, pos, '-') || !read_digits(s, pos, 2, day)) {
    return false;
  }
  return month >= 1 && month <= 12 && day >= 1 && day <= days_in_month(year, month);
}

// full-time: HH:MM:SS[.frac](Z|+HH:MM|-HH:MM). A leap second is only valid
// at 23:59:60 UTC.
bool parse_time(std::string_view s, size_t& pos) {
  int hour, minute, second;
  if (!read_digits(s, pos, 2, hour) || !expect(s, pos, ':') || !read_digits(s, pos, 2, minute) ||
      !expect(s, pos, ':') || !read_digits(s, pos, 2, second)) {
    return false;
  }
  if (hour > 23 || minute > 59 || second > 60) return false;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    size_t start = pos;
    while (pos < s.size() && is_digit(s[pos])) ++pos;
    if (pos == start) return false;
  }
  if (pos >= s.size()) return false;
  int offset_minutes = 0;
  if (s[pos] == 'Z' || s[pos] == 'z') {
    ++pos;
  } else if (s[pos] == '+' || s[pos] == '-') {
    int sign = s[pos] == '-' ? -1 : 1;
    ++pos;
    int oh, om;
    if (!read_digits(s, pos, 2, oh) || !expect(s, pos, ':') || !read_digits(s, pos, 2, om)) return false;
    if (oh > 23 || om > 59) return false;
    offset_minutes = sign * (oh * 60 + om);
  } else {
    return false;
  }
  if (second == 60) {
    int utc = ((hour * 60 + minute - offset_minutes) % 1440 + 1440) % 1440;
    if (utc != 23 * 60 + 59) return false;
  }
  return true;
}

bool check_date_time(std::string_view s) {
  size_t pos = 0;
  if (!parse_date(s, pos)) return false;
  if (pos >= s.size() || (s[pos] != 'T' && s[pos] != 't' && s[pos] != ' ')) return false;
  ++pos;
  return parse_time(s, pos) && pos == s.size();
}

bool check_date(std::string_view s) {
  size_t pos = 0;
  return parse_date(s, pos) && pos == s.size();
}

bool check_time(std::string_view s) {
  size_t pos = 0;
  return parse_time(s, pos) && pos == s.size();
}

bool check_hostname(std::string_view s) {
  if (!s.empty() && s.back() == '.') s.remove_suffix(1);  // the root label
  if (s.empty() || s.size() > 253) return false;
  size_t label = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == '.') {
      if (label == 0 || label > 63 || s[i - 1] == '-' || s[i - label] == '-') return false;
      label = 0;
      continue;
    }
    char c = s[i];
    if (!is_alpha(c) && !is_digit(c) && c != '-') return false;
    ++label;
  }
  return true;
}

bool check_ipv4(std::string_view s) {
  int parts = 0;
  size_t pos = 0;
  while (true) {
    size_t start = pos;
    int value = 0;
    while (pos < s.size() && is_digit(s[pos]) && pos - start < 3) value = value * 10 + (s[pos++] - '0');
    size_t len = pos - start;
    if (len == 0 || value > 255 || (len > 1 && s[start] == '0')) return false;
    ++parts;
    if (pos == s.size()) break;
    if (s[pos] != '.' || parts == 4) return false;
    ++pos;
  }
  return parts == 4;
}

bool check_ipv6(std::string_view s) {
  int groups = 0;
  bool compressed = false;
  size_t pos = 0;
  if (s.substr(0, 2) == "::") {
    compressed = true;
    pos = 2;
    if (pos == s.size()) return true;
  } else if (!s.empty() && s[0] == ':') {
    return false;
  }
  while (pos < s.size()) {
    size_t start = pos;
    while (pos < s.size() && is_hex(s[pos])) ++pos;
    if (pos < s.size() && s[pos] == '.') {  // an embedded IPv4 address ends the address
      if (!check_ipv4(s.substr(start))) return false;
      groups += 2;
      pos = s.size();
      break;
    }
    size_t len = pos - start;
    if (len == 0 || len > 4) return false;
    ++groups;
    if (pos == s.size()) break;
    if (s[pos] != ':') return false;
    ++pos;
    if (pos < s.size() && s[pos] == ':') {
      if (compressed) return false;
      compressed = true;
      ++pos;
    } else if (pos == s.size()) {
      return false;  // a single trailing colon
    }
  }
  return compressed ? groups <= 7 : groups == 8;
}

bool check_uuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-' : !is_hex(s[i])) return false;
  }
  return true;
}

// RFC 3986 characters outside percent-encodings; `non_ascii` admits the
// UTF-8 bytes of an IRI.
bool uri_chars_ok(std::string_view s, bool non_ascii) {
  static const std::string_view kAllowed = "-._~:/?#[]@!$&'()*+,;=";
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '%') {
      if (i + 2 >= s.size() || !is_hex(s[i + 1]) || !is_hex(s[i + 2])) return false;
      i += 2;
    } else if (c >= 0x80) {
      if (!non_ascii) return false;
    } else if (!is_alpha(static_cast<char>(c)) && !is_digit(static_cast<char>(c)) &&
               kAllowed.find(static_cast<char>(c)) == std::string_view::npos) {
      return false;
    }
  }
  return true;
}

// The scheme's length if `s` starts with `scheme ":"`, else 0.
size_t scheme_length(std::string_view s) {
  if (s.empty() || !is_alpha(s[0])) return 0;
  size_t i = 1;
  while (i < s.size() && (is_alpha(s[i]) || is_digit(s[i]) || s[i] == '+' || s[i] == '-' || s[i] == '.')) ++i;
  return i < s.size() && s[i] == ':' ? i : 0;
}

// `[` and `]` only around an IP literal in the authority.
bool brackets_ok(std::string_view s) {
  size_t open = s.find('[');
  size_t close = s.find(']');
  if (open == std::string_view::npos && close == std::string_view::npos) return true;
  size_t authority = s.find("//");
  if (authority == std::string_view::npos || open < authority || close < open) return false;
  size_t authority_end = s.find_first_of("/?#", authority + 2);
  return close < authority_end && s.find_first_of("[]", close + 1) >= authority_end;
}

bool check_uri(std::string_view s, bool non_ascii) {
  size_t scheme = scheme_length(s);
  return scheme > 0 && uri_chars_ok(s.substr(scheme + 1), non_ascii) && brackets_ok(s);
}

bool check_uri_reference(std::string_view s, bool non_ascii) {
  if (scheme_length(s) > 0) return check_uri(s, non_ascii);
  // A relative reference: a colon before the first '/' would make it a scheme.
  size_t colon = s.find(':');
  if (colon != std::string_view::npos && colon < s.find_first_of("/?#")) return false;
  return uri_chars_ok(s, non_ascii) && brackets_ok(s);
}

bool check_local_part(std::string_view local, bool non_ascii) {
  if (local.empty() || local.size() > 64) return false;
  if (local.size() >= 2 && local.front() == '"' && local.back() == '"') return true;
  if (local.front() == '.' || local.back() == '.' || local.find("..") != std::string_view::npos) return false;
  static const std::string_view kSpecials = "!#$%&'*+-/=?^_`{|}~.";
  for (char c : local) {
    if (static_cast<unsigned char>(c) >= 0x80 ? !non_ascii
                                              : !is_alpha(c) && !is_digit(c) &&
                                                    kSpecials.find(c) == std::string_view::npos) {
      return false;
    }
  }
  return true;
}

bool check_email(std::string_view s, bool non_ascii) {
  size_t at = s.rfind('@');
  if (at == std::string_view::npos) return false;
  std::string_view domain = s.substr(at + 1);
  if (!check_local_part(s.substr(0, at), non_ascii)) return false;
  if (domain.size() >= 2 && domain.front() == '[' && domain.back() == ']') {
    std::string_view literal = domain.substr(1, domain.size() - 2);
    if (literal.substr(0, 5) == "IPv6:") return check_ipv6(literal.substr(5));
    return check_ipv4(literal);
  }
  if (non_ascii) {
    for (char c : domain) {
      if (static_cast<unsigned char>(c) >= 0x80) return !domain.empty();
    }
  }
  return check_hostname(domain);
}

bool check_json_pointer(std::string_view s) {
  if (s.empty()) return true;
  if (s[0] != '/') return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '~' && (i + 1 >= s.size() || (s[i + 1] != '0' && s[i + 1] != '1'))) return false;
  }
  return true;
}

bool check_relative_json_pointer(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && is_digit(s[i])) ++i;
  if (i == 0 || (i > 1 && s[0] == '0')) return false;
  std::string_view rest = s.substr(i);
  return rest == "#" || check_json_pointer(rest);
}

}  // namespace

Format format_from_name(std::string_view name) {
  static const std::pair<std::string_view, Format> kNames[] = {
      {"date-time", Format::DateTime},
      {"date", Format::Date},
      {"time", Format::Time},
      {"email", Format::Email},
      {"idn-email", Format::IdnEmail},
      {"hostname", Format::Hostname},
      {"ipv4", Format::Ipv4},
      {"ipv6", Format::Ipv6},
      {"uri", Format::Uri},
      {"uri-reference", Format::UriReference},
      {"iri", Format::Iri},
      {"iri-reference", Format::IriReference},
      {"uuid", Format::Uuid},
      {"regex", Format::Regex},
      {"json-pointer", Format::JsonPointer},
      {"relative-json-pointer", Format::RelativeJsonPointer},
  };
  for (const auto& [n, format] : kNames) {
    if (n == name) return format;
  }
  return Format::Unknown;
}

bool check_format(Format format, std::string_view text) {
  switch (format) {
    case Format::Unknown: return true;
    case Format::DateTime: return check_date_time(text);
    case Format::Date: return check_date(text);
    case Format::Time: return check_time(text);
    case Format::Email: return check_email(text, false);
    case Format::IdnEmail: return check_email(text, true);
    case Format::Hostname: return check_hostname(text);
    case Format::Ipv4: return check_ipv4(text);
    case Format::Ipv6: return check_ipv6(text);
    case Format::Uri: return check_uri(text, false);
    case Format::UriReference: return check_uri_reference(text, false);
    case Format::Iri: return check_uri(text, true);
    case Format::IriReference: return check_uri_reference(text, true);
    case Format::Uuid: return check_uuid(text);
    case Format::Regex: return Regex::compile(text).ok();
    case Format::JsonPointer: return check_json_pointer(text);
    case Format::RelativeJsonPointer: return check_relative_json_pointer(text);
  }
  return true;
}

}  // namespace sindri::schema
