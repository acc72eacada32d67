#pragma once
// Deadlines in the broker's timestamp text (ids.hpp's now_timestamp: RFC 3339,
// UTC, microseconds, fixed width), so that a statement compares them with
// now as text in both dialects.

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

namespace sindri::broker::db {

inline std::string timestamp_at(std::chrono::system_clock::time_point when) {
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(when.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(micros / 1'000'000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", utc.tm_year + 1900, utc.tm_mon + 1,
                utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, static_cast<int>(micros % 1'000'000));
  return text;
}

}  // namespace sindri::broker::db
