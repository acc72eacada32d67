// IANA time zones: the system's TZif files (Debian's tzdata,
// /usr/share/zoneinfo) and the POSIX TZ rule in their footer.

#include <fstream>
#include <iterator>
#include <mutex>
#include <unordered_map>

#include "tera/builtins/datetime.hpp"

namespace sindri::tera::builtins::datetime {

namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

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

}  // namespace sindri::tera::builtins::datetime
