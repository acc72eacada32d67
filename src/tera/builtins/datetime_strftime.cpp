// chrono's strftime, as Tera's `date` filter formats with it.

#include <cstdio>

#include "tera/builtins/datetime.hpp"

namespace sindri::tera::builtins::datetime {

namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

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

}  // namespace sindri::tera::builtins::datetime
