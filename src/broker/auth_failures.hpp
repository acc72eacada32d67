#pragma once
// Refused authentications for the audit log. Anyone can cause them, so a
// flood must not fill the table or slow the broker: failures are counted per
// source address and minute in memory, and a periodic flush writes one entry
// when a source first fails in a minute (with the failures so far) and, once
// the minute is over, one more with the rest if there were more: at most two
// entries per source and minute, each with its count. A broker that stops
// writes the rest of its minutes first (flush with Due::everything).

#include <chrono>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "broker/api_error.hpp"
#include "store/database.hpp"

namespace sindri::broker {

class AuthFailureLog {
 public:
  // Sources waiting for their first entry that make a flush due at once.
  static constexpr size_t kBatch = 100;
  // Sources counted apart; failures from any more are counted as "other".
  static constexpr size_t kMaxSources = 10000;

  // Counts one failure; true when kBatch sources wait (flush now).
  bool record(std::string_view source, std::string_view path, std::string_view user_agent, std::string_view reason,
              std::chrono::system_clock::time_point now);
  // by_time: the first entries, and the rest of minutes over at `now`;
  // everything: also the rest of the minutes still running.
  enum class Due { by_time, everything };
  // Writes the entries due at `now` in one transaction; answers how many.
  ApiResult<size_t> flush(store::Database& db, std::chrono::system_clock::time_point now, Due due = Due::by_time);

 private:
  struct Window {
    int64_t minute = 0;  // minutes since the epoch
    std::string first_at, path, user_agent, reason;
    int64_t count = 0;    // failures in the minute
    int64_t written = 0;  // of them, counted in entries already written
  };

  std::mutex mutex_;
  std::unordered_map<std::string, Window> windows_;  // by source address
  // Windows whose minute ended before their last failures were written.
  std::vector<std::pair<std::string, Window>> finished_;
  size_t waiting_first_entry_ = 0;
};

}  // namespace sindri::broker
