// The `date` filter and `now` function: Tera's arguments and messages around
// chrono's parsing and strftime (datetime.hpp).

#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>

#include "tera/builtins/datetime.hpp"
#include "tera/builtins/internal.hpp"

namespace sindri::tera::builtins {

namespace {

std::string offset_name(int32_t off) {
  using namespace datetime;
  std::string s;
  write_offset(s, off, 1);
  return s;
}

}  // namespace

Result<Value> f_date(const Value& input, const Args& args, Budget& budget) {
  using namespace datetime;
  SINDRI_TRY(fmt_arg, arg_string(args, "date", "format", "%Y-%m-%d"));
  std::string_view format = fmt_arg;
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
        if (!parse_date(s, dt)) {
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
  using namespace datetime;
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
