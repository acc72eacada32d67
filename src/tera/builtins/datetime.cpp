// The `date` filter and `now` function: chrono's parsing and strftime as
// Tera uses them, with IANA time zones read from the system's TZif files
// (Debian's tzdata, /usr/share/zoneinfo).

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "tera/builtins/internal.hpp"

namespace sindri::tera::builtins {

namespace {

// ---------------------------------------------------------------- calendar

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
int64_t floor_mod(int64_t a, int64_t b) { return a - floor_div(a, b) * b; }

int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = floor_div(y, 400);
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void civil_from_days(int64_t z, int64_t& y, unsigned& m, unsigned& d) {
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

bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
unsigned days_in_month(int64_t y, unsigned m) {
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

DateTime from_epoch(int64_t secs, uint32_t nano) {
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

int64_t to_epoch(const DateTime& dt) {
  return days_from_civil(dt.year, dt.month, dt.day) * 86400 + dt.hour * 3600 + dt.minute * 60 + dt.second;
}

// ---------------------------------------------------------------- time zones

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

int64_t rule_time(const PosixRule& r, int64_t year) {
  int64_t day;  // days since epoch of the rule's date
  if (r.kind == PosixRule::Julian1) {
    int64_t n = r.day;  // 1..365, Feb 29 never counted
    if (is_leap(year) && n >= 60) n += 1;
    day = days_from_civil(year, 1, 1) + n - 1;
  } else if (r.kind == PosixRule::Julian0) {
    day = days_from_civil(year, 1, 1) + r.day;
  } else {
    int64_t first = days_from_civil(year, static_cast<unsigned>(r.month), 1);
    int64_t wd_first = floor_mod(first + 4, 7);  // 1970-01-01 was a Thursday (4)
    int64_t d = first + floor_mod(r.day - wd_first, 7);
    d += 7 * (r.week - 1);
    int64_t last = first + days_in_month(year, static_cast<unsigned>(r.month)) - 1;
    while (d > last) d -= 7;
    day = d;
  }
  return day * 86400 + r.time;
}

LocalType Zone::lookup(int64_t t) const {
  if (has_footer && (transitions.empty() || t >= transitions.back())) {
    if (!footer_dst) return std_type;
    int64_t days = floor_div(t, 86400);
    int64_t y;
    unsigned m, d;
    civil_from_days(days, y, m, d);
    // Transition instants in UTC: start is in standard local time, end in DST local time.
    int64_t s = rule_time(start, y) - std_type.offset;
    int64_t e = rule_time(end, y) - dst_type.offset;
    bool in_dst = s < e ? (t >= s && t < e) : !(t >= e && t < s);
    return in_dst ? dst_type : std_type;
  }
  if (transitions.empty() || t < transitions.front()) {
    for (const LocalType& lt : types) {
      if (!lt.dst) return lt;
    }
    return types.empty() ? LocalType{} : types.front();
  }
  size_t lo = 0, hi = transitions.size();
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (transitions[mid] <= t) lo = mid;
    else hi = mid;
  }
  return types[indices[lo]];
}

class Reader {
 public:
  explicit Reader(std::string_view d) : d_(d) {}
  bool need(size_t n) const { return pos_ + n <= d_.size(); }
  int64_t be(size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v = (v << 8) | static_cast<unsigned char>(d_[pos_ + i]);
    pos_ += n;
    if (n == 4) return static_cast<int32_t>(static_cast<uint32_t>(v));
    return static_cast<int64_t>(v);
  }
  void skip(size_t n) { pos_ += n; }
  size_t pos() const { return pos_; }
  std::string_view rest() const { return d_.substr(pos_); }

 private:
  std::string_view d_;
  size_t pos_ = 0;
};

bool parse_posix_offset(std::string_view& s, int32_t& out) {
  int sign = 1;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    sign = s[0] == '-' ? -1 : 1;
    s.remove_prefix(1);
  }
  int32_t parts[3] = {0, 0, 0};
  for (int k = 0; k < 3; ++k) {
    if (k > 0) {
      if (s.empty() || s[0] != ':') break;
      s.remove_prefix(1);
    }
    if (s.empty() || s[0] < '0' || s[0] > '9') return false;
    int32_t v = 0;
    while (!s.empty() && s[0] >= '0' && s[0] <= '9') {
      v = v * 10 + (s[0] - '0');
      s.remove_prefix(1);
    }
    parts[k] = v;
  }
  out = sign * (parts[0] * 3600 + parts[1] * 60 + parts[2]);
  return true;
}

bool parse_posix_name(std::string_view& s, std::string& out) {
  if (!s.empty() && s[0] == '<') {
    size_t e = s.find('>');
    if (e == std::string_view::npos) return false;
    out = std::string(s.substr(1, e - 1));
    s.remove_prefix(e + 1);
    return true;
  }
  size_t n = 0;
  while (n < s.size() && ((s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= 'a' && s[n] <= 'z'))) ++n;
  if (n < 3) return false;
  out = std::string(s.substr(0, n));
  s.remove_prefix(n);
  return true;
}

bool parse_posix_rule(std::string_view& s, PosixRule& r) {
  auto num = [&](int& v) {
    if (s.empty() || s[0] < '0' || s[0] > '9') return false;
    v = 0;
    while (!s.empty() && s[0] >= '0' && s[0] <= '9') {
      v = v * 10 + (s[0] - '0');
      s.remove_prefix(1);
    }
    return true;
  };
  if (s.empty()) return false;
  if (s[0] == 'M') {
    s.remove_prefix(1);
    r.kind = PosixRule::MonthWeekDay;
    if (!num(r.month) || s.empty() || s[0] != '.') return false;
    s.remove_prefix(1);
    if (!num(r.week) || s.empty() || s[0] != '.') return false;
    s.remove_prefix(1);
    if (!num(r.day)) return false;
    if (r.month < 1 || r.month > 12 || r.week < 1 || r.week > 5 || r.day > 6) return false;
  } else if (s[0] == 'J') {
    s.remove_prefix(1);
    r.kind = PosixRule::Julian1;
    if (!num(r.day)) return false;
  } else {
    r.kind = PosixRule::Julian0;
    if (!num(r.day)) return false;
  }
  r.time = 7200;
  if (!s.empty() && s[0] == '/') {
    s.remove_prefix(1);
    if (!parse_posix_offset(s, r.time)) return false;
  }
  return true;
}

bool parse_footer(std::string_view s, Zone& z) {
  if (s.empty()) return false;
  if (!parse_posix_name(s, z.std_type.abbr)) return false;
  int32_t off;
  if (!parse_posix_offset(s, off)) return false;
  z.std_type.offset = -off;
  if (s.empty()) {
    z.footer_dst = false;
    return true;
  }
  if (!parse_posix_name(s, z.dst_type.abbr)) return false;
  z.dst_type.dst = true;
  z.dst_type.offset = z.std_type.offset + 3600;
  if (!s.empty() && s[0] != ',') {
    if (!parse_posix_offset(s, off)) return false;
    z.dst_type.offset = -off;
  }
  if (s.empty() || s[0] != ',') return false;
  s.remove_prefix(1);
  if (!parse_posix_rule(s, z.start)) return false;
  if (s.empty() || s[0] != ',') return false;
  s.remove_prefix(1);
  if (!parse_posix_rule(s, z.end)) return false;
  z.footer_dst = true;
  return s.empty();
}

std::shared_ptr<const Zone> parse_tzif(std::string_view data) {
  if (data.size() < 44 || data.substr(0, 4) != "TZif") return nullptr;
  auto z = std::make_shared<Zone>();
  Reader r(data);
  auto header = [&](int64_t c[6]) {
    if (!r.need(44)) return false;
    r.skip(20);
    for (int i = 0; i < 6; ++i) c[i] = r.be(4);
    return true;
  };
  int64_t c[6];  // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
  if (!header(c)) return nullptr;
  char version = data[4];
  size_t time_size = 4;
  if (version >= '2') {
    size_t v1 = static_cast<size_t>(c[3] * 4 + c[3] + c[4] * 6 + c[5] + c[2] * 8 + c[1] + c[0]);
    if (!r.need(v1)) return nullptr;
    r.skip(v1);
    if (!header(c)) return nullptr;
    time_size = 8;
  }
  const size_t timecnt = static_cast<size_t>(c[3]), typecnt = static_cast<size_t>(c[4]),
               charcnt = static_cast<size_t>(c[5]);
  size_t body = timecnt * time_size + timecnt + typecnt * 6 + charcnt +
                static_cast<size_t>(c[2]) * (time_size + 4) + static_cast<size_t>(c[1] + c[0]);
  if (!r.need(body) || typecnt == 0) return nullptr;
  z->transitions.resize(timecnt);
  for (size_t i = 0; i < timecnt; ++i) z->transitions[i] = r.be(time_size);
  z->indices.resize(timecnt);
  for (size_t i = 0; i < timecnt; ++i) {
    z->indices[i] = static_cast<uint8_t>(r.be(1));
    if (z->indices[i] >= typecnt) return nullptr;
  }
  std::vector<std::pair<int32_t, std::pair<bool, size_t>>> raw(typecnt);
  for (size_t i = 0; i < typecnt; ++i) {
    int32_t off = static_cast<int32_t>(r.be(4));
    bool dst = r.be(1) != 0;
    size_t ai = static_cast<size_t>(r.be(1));
    raw[i] = {off, {dst, ai}};
  }
  std::string_view chars = r.rest().substr(0, charcnt);
  r.skip(charcnt);
  z->types.resize(typecnt);
  for (size_t i = 0; i < typecnt; ++i) {
    z->types[i].offset = raw[i].first;
    z->types[i].dst = raw[i].second.first;
    size_t ai = raw[i].second.second;
    if (ai < chars.size()) {
      std::string_view a = chars.substr(ai);
      z->types[i].abbr = std::string(a.substr(0, a.find('\0')));
    }
  }
  r.skip(static_cast<size_t>(c[2]) * (time_size + 4) + static_cast<size_t>(c[1] + c[0]));
  if (time_size == 8) {
    std::string_view rest = r.rest();
    if (!rest.empty() && rest[0] == '\n') {
      size_t e = rest.find('\n', 1);
      if (e != std::string_view::npos) z->has_footer = parse_footer(rest.substr(1, e - 1), *z);
    }
  }
  return z;
}

bool valid_zone_name(std::string_view name) {
  if (name.empty() || name.size() > 64 || name[0] == '/' || name[0] == '.') return false;
  if (name.find("..") != std::string_view::npos) return false;
  if (name.substr(0, 6) == "posix/" || name.substr(0, 6) == "right/") return false;
  if (name == "localtime" || name == "posixrules" || name == "Factory") return false;
  for (char c : name) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '/' ||
              c == '_' || c == '-' || c == '+';
    if (!ok) return false;
  }
  return true;
}

std::shared_ptr<const Zone> find_zone(std::string_view name) {
  static std::mutex mu;
  static std::unordered_map<std::string, std::shared_ptr<const Zone>> cache;
  std::string key(name);
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(key);
    if (it != cache.end()) return it->second;
  }
  std::shared_ptr<const Zone> zone;
  if (valid_zone_name(name)) {
    std::ifstream in("/usr/share/zoneinfo/" + key, std::ios::binary);
    if (in) {
      std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (data.size() < (1u << 20)) zone = parse_tzif(data);
    }
  }
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() < 1024) cache.emplace(key, zone);
  return zone;
}

// ---------------------------------------------------------------- strftime

enum class Pad { None, Zero, Space };

struct Offset {
  int32_t seconds;
  std::string name;
};

const char* const kShortMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
const char* const kLongMonths[] = {"January", "February", "March",     "April",   "May",      "June",
                                   "July",    "August",   "September", "October", "November", "December"};
const char* const kShortDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
const char* const kLongDays[] = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};

struct Fields {
  const DateTime& dt;
  const Offset* off;
  int64_t days;  // since epoch
  unsigned weekday_sun() const { return static_cast<unsigned>(floor_mod(days + 4, 7)); }
  unsigned weekday_mon() const { return (weekday_sun() + 6) % 7; }
  unsigned ordinal() const {
    return static_cast<unsigned>(days - days_from_civil(dt.year, 1, 1) + 1);
  }
  void iso_week(int64_t& iy, unsigned& w) const {
    // ISO week: the week with the year's first Thursday is week 1.
    int64_t thursday = days - weekday_mon() + 3;
    int64_t ty;
    unsigned tm, td;
    civil_from_days(thursday, ty, tm, td);
    iy = ty;
    w = static_cast<unsigned>((thursday - days_from_civil(ty, 1, 1)) / 7 + 1);
  }
};

void write_num(std::string& out, int64_t v, int width, Pad pad, bool is_year) {
  char buf[40];
  if (is_year && (v < 0 || v >= 10000)) {
    switch (pad) {
      case Pad::None: std::snprintf(buf, sizeof buf, "%+lld", static_cast<long long>(v)); break;
      case Pad::Zero: std::snprintf(buf, sizeof buf, "%+0*lld", width + 1, static_cast<long long>(v)); break;
      case Pad::Space: std::snprintf(buf, sizeof buf, "%+*lld", width + 1, static_cast<long long>(v)); break;
    }
  } else {
    switch (pad) {
      case Pad::None: std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v)); break;
      case Pad::Zero: std::snprintf(buf, sizeof buf, "%0*lld", width, static_cast<long long>(v)); break;
      case Pad::Space: std::snprintf(buf, sizeof buf, "%*lld", width, static_cast<long long>(v)); break;
    }
  }
  out.append(buf);
}

void write_offset(std::string& out, int32_t off, int colons) {
  char sign = off < 0 ? '-' : '+';
  if (off < 0) off = -off;
  char buf[32];
  int h = off / 3600, m = off / 60 % 60, s = off % 60;
  switch (colons) {
    case 0: std::snprintf(buf, sizeof buf, "%c%02d%02d", sign, h, m); break;
    case 1: std::snprintf(buf, sizeof buf, "%c%02d:%02d", sign, h, m); break;
    case 2: std::snprintf(buf, sizeof buf, "%c%02d:%02d:%02d", sign, h, m, s); break;
    default: std::snprintf(buf, sizeof buf, "%c%02d", sign, h); break;
  }
  out.append(buf);
}

void write_frac_auto(std::string& out, uint32_t nano) {
  char buf[16];
  if (nano == 0) return;
  if (nano % 1000000 == 0) std::snprintf(buf, sizeof buf, ".%03u", nano / 1000000);
  else if (nano % 1000 == 0) std::snprintf(buf, sizeof buf, ".%06u", nano / 1000);
  else std::snprintf(buf, sizeof buf, ".%09u", nano);
  out.append(buf);
}

// Numeric specifiers: returns the width and value, or false if `c` is not one.
enum class Num { Year, YearDiv100, YearMod100, IsoYear, IsoYearMod100, Month, Day, WeekSun, WeekMon, IsoWeek,
                 DaySun, DayMon, Ordinal, Hour, Hour12, Minute, Second, Nano, Timestamp };

bool numeric_spec(char c, Num& n, Pad& pad) {
  pad = Pad::Zero;
  switch (c) {
    case 'Y': n = Num::Year; return true;
    case 'C': n = Num::YearDiv100; return true;
    case 'y': n = Num::YearMod100; return true;
    case 'G': n = Num::IsoYear; return true;
    case 'g': n = Num::IsoYearMod100; return true;
    case 'm': n = Num::Month; return true;
    case 'd': n = Num::Day; return true;
    case 'e': n = Num::Day; pad = Pad::Space; return true;
    case 'U': n = Num::WeekSun; return true;
    case 'W': n = Num::WeekMon; return true;
    case 'V': n = Num::IsoWeek; return true;
    case 'w': n = Num::DaySun; pad = Pad::None; return true;
    case 'u': n = Num::DayMon; pad = Pad::None; return true;
    case 'j': n = Num::Ordinal; return true;
    case 'H': n = Num::Hour; return true;
    case 'k': n = Num::Hour; pad = Pad::Space; return true;
    case 'I': n = Num::Hour12; return true;
    case 'l': n = Num::Hour12; pad = Pad::Space; return true;
    case 'M': n = Num::Minute; return true;
    case 'S': n = Num::Second; return true;
    case 'f': n = Num::Nano; return true;
    case 's': n = Num::Timestamp; pad = Pad::None; return true;
    default: return false;
  }
}

void write_numeric(std::string& out, const Fields& f, Num n, Pad pad) {
  const DateTime& dt = f.dt;
  int64_t iy;
  unsigned iw;
  switch (n) {
    case Num::Year: write_num(out, dt.year, 4, pad, true); break;
    case Num::YearDiv100: write_num(out, floor_div(dt.year, 100), 2, pad, false); break;
    case Num::YearMod100: write_num(out, floor_mod(dt.year, 100), 2, pad, false); break;
    case Num::IsoYear: f.iso_week(iy, iw); write_num(out, iy, 4, pad, true); break;
    case Num::IsoYearMod100: f.iso_week(iy, iw); write_num(out, floor_mod(iy, 100), 2, pad, false); break;
    case Num::Month: write_num(out, dt.month, 2, pad, false); break;
    case Num::Day: write_num(out, dt.day, 2, pad, false); break;
    case Num::WeekSun: write_num(out, (f.ordinal() - f.weekday_sun() + 7) / 7, 2, pad, false); break;
    case Num::WeekMon: write_num(out, (f.ordinal() - f.weekday_mon() + 7) / 7, 2, pad, false); break;
    case Num::IsoWeek: f.iso_week(iy, iw); write_num(out, iw, 2, pad, false); break;
    case Num::DaySun: write_num(out, f.weekday_sun(), 1, pad, false); break;
    case Num::DayMon: write_num(out, f.weekday_mon() + 1, 1, pad, false); break;
    case Num::Ordinal: write_num(out, f.ordinal(), 3, pad, false); break;
    case Num::Hour: write_num(out, dt.hour, 2, pad, false); break;
    case Num::Hour12: write_num(out, dt.hour % 12 == 0 ? 12 : dt.hour % 12, 2, pad, false); break;
    case Num::Minute: write_num(out, dt.minute, 2, pad, false); break;
    case Num::Second: write_num(out, dt.second, 2, pad, false); break;
    case Num::Nano: write_num(out, dt.nano, 9, pad, false); break;
    case Num::Timestamp:
      write_num(out, f.days * 86400 + dt.hour * 3600 + dt.minute * 60 + dt.second - (f.off ? f.off->seconds : 0), 1,
                pad, false);
      break;
  }
}

// Formats dt with a chrono strftime string. Returns 1 for an invalid format
// (Tera's "Invalid date format"), 2 when the format needs an offset the value
// does not have (chrono fails there), 0 on success.
int strftime_chrono(std::string& out, std::string_view fmt, const DateTime& dt, const Offset* off, bool validate_only) {
  Fields f{dt, off, days_from_civil(dt.year, dt.month, dt.day)};
  int status = 0;
  size_t i = 0;
  auto fail_offset = [&]() { if (status == 0) status = 2; };
  while (i < fmt.size()) {
    char c = fmt[i];
    if (c != '%') {
      size_t j = fmt.find('%', i);
      if (j == std::string_view::npos) j = fmt.size();
      if (!validate_only) out.append(fmt.substr(i, j - i));
      i = j;
      continue;
    }
    ++i;
    if (i >= fmt.size()) return 1;
    char spec = fmt[i++];
    Pad override_pad = Pad::Zero;
    bool has_override = false;
    bool alternate = false;
    if (spec == '-' || spec == '0' || spec == '_') {
      has_override = true;
      override_pad = spec == '-' ? Pad::None : spec == '0' ? Pad::Zero : Pad::Space;
    } else if (spec == '#') {
      alternate = true;
    }
    if (has_override || alternate) {
      if (i >= fmt.size()) return 1;
      // The specifier is a whole char; a multibyte one is simply invalid.
      spec = fmt[i++];
      if (alternate && spec != 'z') return 1;
    }
    Num n;
    Pad pad;
    if (numeric_spec(spec, n, pad)) {
      if (has_override) pad = override_pad;
      if (!validate_only) write_numeric(out, f, n, pad);
      continue;
    }
    if (has_override) return 1;  // only plain numeric items take a padding override
    std::string tmp;
    switch (spec) {
      case 'A': tmp = kLongDays[f.weekday_sun()]; break;
      case 'a': tmp = kShortDays[f.weekday_sun()]; break;
      case 'B': tmp = kLongMonths[dt.month - 1]; break;
      case 'b':
      case 'h': tmp = kShortMonths[dt.month - 1]; break;
      case 'D':
        write_numeric(tmp, f, Num::Month, Pad::Zero); tmp += '/';
        write_numeric(tmp, f, Num::Day, Pad::Zero); tmp += '/';
        write_numeric(tmp, f, Num::YearMod100, Pad::Zero);
        break;
      case 'x':
        write_numeric(tmp, f, Num::Month, Pad::Zero); tmp += '/';
        write_numeric(tmp, f, Num::Day, Pad::Zero); tmp += '/';
        write_numeric(tmp, f, Num::YearMod100, Pad::Zero);
        break;
      case 'F':
        write_numeric(tmp, f, Num::Year, Pad::Zero); tmp += '-';
        write_numeric(tmp, f, Num::Month, Pad::Zero); tmp += '-';
        write_numeric(tmp, f, Num::Day, Pad::Zero);
        break;
      case 'v':
        write_numeric(tmp, f, Num::Day, Pad::Space); tmp += '-';
        tmp += kShortMonths[dt.month - 1]; tmp += '-';
        write_numeric(tmp, f, Num::Year, Pad::Zero);
        break;
      case 'R':
        write_numeric(tmp, f, Num::Hour, Pad::Zero); tmp += ':';
        write_numeric(tmp, f, Num::Minute, Pad::Zero);
        break;
      case 'T':
      case 'X':
        write_numeric(tmp, f, Num::Hour, Pad::Zero); tmp += ':';
        write_numeric(tmp, f, Num::Minute, Pad::Zero); tmp += ':';
        write_numeric(tmp, f, Num::Second, Pad::Zero);
        break;
      case 'r':
        write_numeric(tmp, f, Num::Hour12, Pad::Zero); tmp += ':';
        write_numeric(tmp, f, Num::Minute, Pad::Zero); tmp += ':';
        write_numeric(tmp, f, Num::Second, Pad::Zero); tmp += ' ';
        tmp += dt.hour >= 12 ? "PM" : "AM";
        break;
      case 'c':
        tmp = kShortDays[f.weekday_sun()]; tmp += ' ';
        tmp += kShortMonths[dt.month - 1]; tmp += ' ';
        write_numeric(tmp, f, Num::Day, Pad::Space); tmp += ' ';
        write_numeric(tmp, f, Num::Hour, Pad::Zero); tmp += ':';
        write_numeric(tmp, f, Num::Minute, Pad::Zero); tmp += ':';
        write_numeric(tmp, f, Num::Second, Pad::Zero); tmp += ' ';
        write_numeric(tmp, f, Num::Year, Pad::Zero);
        break;
      case 'P': tmp = dt.hour >= 12 ? "pm" : "am"; break;
      case 'p': tmp = dt.hour >= 12 ? "PM" : "AM"; break;
      case 'n': tmp = "\n"; break;
      case 't': tmp = "\t"; break;
      case '%': tmp = "%"; break;
      case 'Z':
        if (off) tmp = off->name; else fail_offset();
        break;
      case 'z':
        if (alternate) {
          fail_offset();  // chrono panics formatting %#z
        } else if (off) {
          write_offset(tmp, off->seconds, 0);
        } else {
          fail_offset();
        }
        break;
      case ':': {
        int colons;
        if (fmt.substr(i, 3) == "::z") { colons = 3; i += 3; }
        else if (fmt.substr(i, 2) == ":z") { colons = 2; i += 2; }
        else if (fmt.substr(i, 1) == "z") { colons = 1; i += 1; }
        else return 1;
        if (off) write_offset(tmp, off->seconds, colons); else fail_offset();
        break;
      }
      case '+':
        if (off) {
          write_numeric(tmp, f, Num::Year, Pad::Zero);
          char buf[32];
          std::snprintf(buf, sizeof buf, "-%02u-%02uT%02u:%02u:%02u", dt.month, dt.day, dt.hour, dt.minute, dt.second);
          tmp += buf;
          write_frac_auto(tmp, dt.nano);
          write_offset(tmp, off->seconds, 1);
        } else {
          fail_offset();
        }
        break;
      case '.': {
        if (i >= fmt.size()) return 1;
        char d = fmt[i++];
        char buf[16];
        if (d == 'f') {
          write_frac_auto(tmp, dt.nano);
        } else if (d == '3' || d == '6' || d == '9') {
          if (i >= fmt.size() || fmt[i] != 'f') return 1;
          ++i;
          if (d == '3') std::snprintf(buf, sizeof buf, ".%03u", dt.nano / 1000000);
          else if (d == '6') std::snprintf(buf, sizeof buf, ".%06u", dt.nano / 1000);
          else std::snprintf(buf, sizeof buf, ".%09u", dt.nano);
          tmp = buf;
        } else {
          return 1;
        }
        break;
      }
      case '3':
      case '6':
      case '9': {
        if (i >= fmt.size() || fmt[i] != 'f') return 1;
        ++i;
        char buf[16];
        if (spec == '3') std::snprintf(buf, sizeof buf, "%03u", dt.nano / 1000000);
        else if (spec == '6') std::snprintf(buf, sizeof buf, "%06u", dt.nano / 1000);
        else std::snprintf(buf, sizeof buf, "%09u", dt.nano);
        tmp = buf;
        break;
      }
      default:
        return 1;
    }
    if (!validate_only) out.append(tmp);
  }
  return status;
}

// ---------------------------------------------------------------- parsing

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

// chrono's DateTime<FixedOffset>::from_str.
bool parse_rfc3339(std::string_view s, DateTime& dt, int32_t& off) {
  Scanner sc(s);
  if (!parse_ymd(sc, dt)) return false;
  if (!sc.lit('T') && !sc.lit(' ')) return false;
  if (!parse_hms(sc, dt)) return false;
  if (!sc.offset(off)) return false;
  sc.spaces();
  return sc.done();
}

// chrono's NaiveDateTime::from_str.
bool parse_naive(std::string_view s, DateTime& dt) {
  Scanner sc(s);
  if (!parse_ymd(sc, dt)) return false;
  sc.spaces();
  if (!sc.lit('T')) return false;
  if (!parse_hms(sc, dt)) return false;
  sc.spaces();
  return sc.done();
}

std::string offset_name(int32_t off) {
  std::string s;
  write_offset(s, off, 1);
  return s;
}

}  // namespace

Result<Value> f_date(const Value& input, const Args& args, Budget& budget) {
  auto fmt_arg = arg_string(args, "date", "format", "%Y-%m-%d");
  if (!fmt_arg) return fmt_arg.error();
  std::string_view format = *fmt_arg;
  if (!budget.charge(format.size())) return Budget::stopped();
  {
    std::string scratch;
    DateTime epoch;
    if (strftime_chrono(scratch, format, epoch, nullptr, true) == 1) {
      std::string m = "Invalid date format `";
      m.append(format).append("`");
      return Error{std::move(m)};
    }
  }
  std::shared_ptr<const Zone> zone;
  if (const Value* tz = args.find("timezone")) {
    if (!tz->is_string()) return incorrect_arg("date", "timezone", *tz, "String");
    if (!budget.charge(tz->get_string().size())) return Budget::stopped();
    zone = find_zone(tz->get_string());
    if (!zone) {
      std::string m = "Error parsing `";
      m.append(tz->get_string()).append("` as a timezone");
      return Error{std::move(m)};
    }
  }

  DateTime dt;
  Offset offset;
  const Offset* off = nullptr;
  switch (input.kind()) {
    case Value::Kind::Int: {
      int64_t ts = input.get_int();
      int64_t days = floor_div(ts, 86400);
      if (days < days_from_civil(kMinYear, 1, 1) || days > days_from_civil(kMaxYear, 12, 31)) {
        return Error{"invalid or out-of-range datetime"};
      }
      if (zone) {
        LocalType lt = zone->lookup(ts);
        dt = from_epoch(ts + lt.offset, 0);
        offset = Offset{lt.offset, lt.abbr};
        off = &offset;
      } else {
        dt = from_epoch(ts, 0);
      }
      break;
    }
    case Value::Kind::Float: {
      std::string m = "Filter `date` was invoked on a float: ";
      m.append(display(input));
      return Error{std::move(m)};
    }
    case Value::Kind::String: {
      std::string_view s = input.get_string();
      if (!budget.charge(s.size())) return Budget::stopped();
      if (s.find('T') != std::string_view::npos) {
        int32_t o;
        if (parse_rfc3339(s, dt, o)) {
          if (zone) {
            int64_t utc = to_epoch(dt) - o;
            LocalType lt = zone->lookup(utc);
            uint32_t nano = dt.nano;
            dt = from_epoch(utc + lt.offset, nano);
            offset = Offset{lt.offset, lt.abbr};
          } else {
            offset = Offset{o, offset_name(o)};
          }
          off = &offset;
        } else if (parse_naive(s, dt)) {
          offset = Offset{0, "UTC"};
          off = &offset;
        } else {
          std::string m = "Error parsing `";
          append_rust_debug_str(m, s);
          m.append("` as rfc3339 date or naive datetime");
          return Error{std::move(m)};
        }
      } else {
        Scanner sc(s);
        if (!parse_ymd(sc, dt) || !sc.done()) {
          std::string m = "Error parsing `";
          append_rust_debug_str(m, s);
          m.append("` as YYYY-MM-DD date");
          return Error{std::move(m)};
        }
        offset = Offset{0, "UTC"};
        off = &offset;
      }
      break;
    }
    default: {
      std::string m = "Filter `date` received an incorrect type for arg `value`: got `";
      m.append(debug(input)).append("` but expected i64|u64|String");
      return Error{std::move(m)};
    }
  }
  std::string out;
  out.reserve(format.size() + 16);
  int rc = strftime_chrono(out, format, dt, off, false);
  if (rc != 0) {
    std::string m = "Filter `date` could not format the value with `";
    m.append(format).append("`: the value has no time zone offset");
    return Error{std::move(m)};
  }
  // An item of two bytes may write thirty (`%+`).
  if (!budget.charge(out.size())) return Budget::stopped();
  return Value(out);
}

Result<Value> fn_now(const Args& args, Budget&) {
  bool utc = false, timestamp = false;
  if (const Value* v = args.find("utc")) {
    if (!v->is_bool()) return Error{"Function `now` received utc=" + display(*v) + " but `utc` can only be a boolean"};
    utc = v->get_bool();
  }
  if (const Value* v = args.find("timestamp")) {
    if (!v->is_bool()) {
      return Error{"Function `now` received timestamp=" + display(*v) + " but `timestamp` can only be a boolean"};
    }
    timestamp = v->get_bool();
  }
  auto now = std::chrono::system_clock::now();
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  int64_t secs = floor_div(ns, 1000000000);
  uint32_t nano = static_cast<uint32_t>(ns - secs * 1000000000);
  if (timestamp) return Value(secs);
  int32_t off = 0;
  if (!utc) {
    time_t t = static_cast<time_t>(secs);
    struct tm tm_local;
    if (localtime_r(&t, &tm_local)) off = static_cast<int32_t>(tm_local.tm_gmtoff);
  }
  DateTime dt = from_epoch(secs + off, nano);
  std::string out;
  write_num(out, dt.year, 4, Pad::Zero, true);
  char buf[32];
  std::snprintf(buf, sizeof buf, "-%02u-%02uT%02u:%02u:%02u", dt.month, dt.day, dt.hour, dt.minute, dt.second);
  out += buf;
  write_frac_auto(out, dt.nano);
  write_offset(out, off, 1);
  return Value(out);
}

}  // namespace sindri::tera::builtins
