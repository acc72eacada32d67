#pragma once
// RFC 3339 timestamps a client sends (a query's `from`, a health report's
// checked_at), read into microseconds since the Unix epoch and written back in
// the fixed-width UTC form of now_timestamp() (ids.hpp), so that stored
// timestamps compare as text; and ages of stored timestamps.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace sindri::rfc3339 {

namespace detail {

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
// days_from_civil).
constexpr int64_t days_from_civil(int64_t year, int64_t month, int64_t day) {
  year -= month <= 2 ? 1 : 0;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const int64_t year_of_era = year - era * 400;
  const int64_t day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

constexpr bool is_leap(int64_t year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

constexpr int days_in_month(int64_t year, int64_t month) {
  constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap(year) ? 29 : kDays[month - 1];
}

// `count` digits at `at` as a number; nullopt unless all are digits.
constexpr std::optional<int64_t> digits(std::string_view text, size_t at, size_t count) {
  if (at + count > text.size()) return std::nullopt;
  int64_t value = 0;
  for (size_t i = at; i < at + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

}  // namespace detail

// Microseconds since the epoch of "YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)"
// (T and Z in either case); nullopt for anything else. Digits past the
// microsecond are dropped. A space where the offset's + belongs is read as
// +: an unencoded + in a query string arrives as a space.
constexpr std::optional<int64_t> parse_micros(std::string_view text) {
  using detail::digits;
  const auto year = digits(text, 0, 4), month = digits(text, 5, 2), day = digits(text, 8, 2);
  const auto hour = digits(text, 11, 2), minute = digits(text, 14, 2), second = digits(text, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second) return std::nullopt;
  if (text[4] != '-' || text[7] != '-' || (text[10] != 'T' && text[10] != 't') || text[13] != ':' ||
      text[16] != ':') {
    return std::nullopt;
  }
  if (*month < 1 || *month > 12 || *day < 1 || *day > detail::days_in_month(*year, *month) || *hour > 23 ||
      *minute > 59 || *second > 59) {
    return std::nullopt;
  }
  size_t at = 19;
  int64_t micros = 0;
  if (at < text.size() && text[at] == '.') {
    ++at;
    const size_t start = at;
    int64_t scale = 100000;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
      micros += (text[at] - '0') * scale;
      scale /= 10;
      ++at;
    }
    if (at == start) return std::nullopt;
  }
  if (at >= text.size()) return std::nullopt;
  int64_t offset_minutes = 0;
  if (text[at] == 'Z' || text[at] == 'z') {
    ++at;
  } else if (text[at] == '+' || text[at] == '-' || text[at] == ' ') {
    const auto offset_hours = digits(text, at + 1, 2), offset_mins = digits(text, at + 4, 2);
    if (!offset_hours || !offset_mins || text[at + 3] != ':' || *offset_hours > 23 || *offset_mins > 59) {
      return std::nullopt;
    }
    offset_minutes = (*offset_hours * 60 + *offset_mins) * (text[at] == '-' ? -1 : 1);
    at += 6;
  } else {
    return std::nullopt;
  }
  if (at != text.size()) return std::nullopt;
  const int64_t seconds = detail::days_from_civil(*year, *month, *day) * 86400 + *hour * 3600 + *minute * 60 +
                          *second - offset_minutes * 60;
  return seconds * 1'000'000 + micros;
}

// The fixed-width UTC form of now_timestamp(): "2026-11-21T09:30:00.123456Z".
// Years outside 0000-9999 do not fit it; callers keep to those.
inline std::string format_micros(int64_t micros) {
  int64_t seconds = micros / 1'000'000, fraction = micros % 1'000'000;
  if (fraction < 0) {
    fraction += 1'000'000;
    --seconds;
  }
  int64_t days = seconds / 86400, second_of_day = seconds % 86400;
  if (second_of_day < 0) {
    second_of_day += 86400;
    --days;
  }
  // civil_from_days (Howard Hinnant).
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t day_of_era = days - era * 146097;
  const int64_t year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const int64_t day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const int64_t month_index = (5 * day_of_year + 2) / 153;
  const int64_t day = day_of_year - (153 * month_index + 2) / 5 + 1;
  const int64_t month = month_index < 10 ? month_index + 3 : month_index - 9;
  const int64_t year = year_of_era + era * 400 + (month <= 2 ? 1 : 0);
  char text[64];
  std::snprintf(text, sizeof text, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%06lldZ", static_cast<long long>(year),
                static_cast<long long>(month), static_cast<long long>(day),
                static_cast<long long>(second_of_day / 3600), static_cast<long long>(second_of_day / 60 % 60),
                static_cast<long long>(second_of_day % 60), static_cast<long long>(fraction));
  return text;
}

// `text` in the fixed-width form; nullopt when it is no RFC 3339 timestamp
// or its year, once in UTC, falls outside 0000-9999.
inline std::optional<std::string> normalized(std::string_view text) {
  const std::optional<int64_t> micros = parse_micros(text);
  constexpr int64_t kFirst = detail::days_from_civil(0, 1, 1) * 86400LL * 1'000'000;
  constexpr int64_t kPastLast = detail::days_from_civil(10000, 1, 1) * 86400LL * 1'000'000;
  if (!micros || *micros < kFirst || *micros >= kPastLast) return std::nullopt;
  return format_micros(*micros);
}

// Whole seconds from `earlier` to `later`, both RFC 3339, never below 0;
// nullopt when either does not parse.
inline std::optional<int64_t> age_seconds(std::string_view earlier, std::string_view later) {
  const std::optional<int64_t> from = parse_micros(earlier), to = parse_micros(later);
  if (!from || !to) return std::nullopt;
  return *to > *from ? (*to - *from) / 1'000'000 : 0;
}

// Now, in the form format_micros writes.
inline std::string now() {
  const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
  return format_micros(std::chrono::duration_cast<std::chrono::microseconds>(since_epoch).count());
}

}  // namespace sindri::rfc3339
