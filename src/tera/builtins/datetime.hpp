#pragma once
// What the files of the `date` filter and `now` function share: chrono's
// calendar, IANA time zones (datetime_zones.cpp), strftime
// (datetime_strftime.cpp) and date parsing (datetime_parse.cpp), for the
// filter glue in datetime.cpp.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sindri::tera::builtins::datetime {

// Proleptic Gregorian calendar, days counted from 1970-01-01.

inline int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
inline int64_t floor_mod(int64_t a, int64_t b) { return a - floor_div(a, b) * b; }

inline int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = floor_div(y, 400);
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

inline void civil_from_days(int64_t z, int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const int64_t era = floor_div(z, 146097);
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
}

inline bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
inline unsigned days_in_month(int64_t y, unsigned m) {
  static const unsigned k[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : k[m - 1];
}

// chrono's NaiveDate range.
constexpr int64_t kMinYear = -262144;
constexpr int64_t kMaxYear = 262143;

struct DateTime {
  int64_t year = 1970;
  unsigned month = 1, day = 1, hour = 0, minute = 0, second = 0;
  uint32_t nano = 0;
};

inline DateTime from_epoch(int64_t secs, uint32_t nano) {
  DateTime dt;
  int64_t days = floor_div(secs, 86400);
  int64_t rem = secs - days * 86400;
  civil_from_days(days, dt.year, dt.month, dt.day);
  dt.hour = static_cast<unsigned>(rem / 3600);
  dt.minute = static_cast<unsigned>(rem / 60 % 60);
  dt.second = static_cast<unsigned>(rem % 60);
  dt.nano = nano;
  return dt;
}

inline int64_t to_epoch(const DateTime& dt) {
  return days_from_civil(dt.year, dt.month, dt.day) * 86400 + dt.hour * 3600 + dt.minute * 60 + dt.second;
}

// IANA time zones from the system's TZif files; a zone past its last
// transition follows the POSIX TZ rule of the file's footer.

struct LocalType {
  int32_t offset = 0;
  bool dst = false;
  std::string abbr;
};

struct PosixRule {
  enum Kind { Julian1, Julian0, MonthWeekDay } kind = MonthWeekDay;
  int day = 0, week = 0, month = 0;
  int32_t time = 7200;
};

struct Zone {
  std::vector<int64_t> transitions;
  std::vector<uint8_t> indices;
  std::vector<LocalType> types;
  bool has_footer = false;
  LocalType std_type, dst_type;
  bool footer_dst = false;
  PosixRule start, end;

  LocalType lookup(int64_t t) const;
};

// The zone named `name` (Europe/Berlin), or null when there is none.
std::shared_ptr<const Zone> find_zone(std::string_view name);

// chrono's strftime.

enum class Pad { None, Zero, Space };

struct Offset {
  int32_t seconds;
  std::string name;
};

// Formats dt with a chrono strftime string. Returns 1 for an invalid format
// (Tera's "Invalid date format"), 2 when the format needs an offset the value
// does not have (chrono fails there), 0 on success.
int strftime_chrono(std::string& out, std::string_view fmt, const DateTime& dt, const Offset* off, bool validate_only);
void write_num(std::string& out, int64_t v, int width, Pad pad, bool is_year);
// +01:00 with colons = 1; +0100 with 0, +01:00:00 with 2, +01 with 3.
void write_offset(std::string& out, int32_t off, int colons);
// chrono's %.f: no digits for whole seconds, else 3, 6 or 9.
void write_frac_auto(std::string& out, uint32_t nano);

// chrono's parsers, false when `s` is not what they read.

// DateTime<FixedOffset>::from_str.
bool parse_rfc3339(std::string_view s, DateTime& dt, int32_t& off);
// NaiveDateTime::from_str.
bool parse_naive(std::string_view s, DateTime& dt);
// NaiveDate::from_str: YYYY-MM-DD and nothing after it.
bool parse_date(std::string_view s, DateTime& dt);

}  // namespace sindri::tera::builtins::datetime
