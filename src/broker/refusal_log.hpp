#pragma once
// The log line for connections the server's limits refuse. Under attack
// they come by thousands a second: at most one line per interval, with how
// many of each reason came since the line before (/metrics has the totals).

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "value/value.hpp"

namespace sindri::broker {

class RefusalLog {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  // Given the reason that made the line due and the counts by reason since
  // the line before, that reason's included ({"header_timeout": 3}).
  using Write = std::function<void(std::string_view reason, const Value& since_last_line)>;

  RefusalLog(Write write, std::chrono::nanoseconds interval, Clock now = std::chrono::steady_clock::now)
      : write_(std::move(write)), interval_(interval), now_(std::move(now)) {}

  // Counts one refusal, and writes a line when none was written in the
  // last interval.
  void refused(std::string_view reason) {
    const auto now = now_();
    Object counts;
    {
      std::lock_guard lock(mutex_);
      ++pending_[std::string(reason)];
      if (written_once_ && now - last_line_ < interval_) return;
      written_once_ = true;
      last_line_ = now;
      counts = take_pending();
    }
    write_(reason, Value(std::move(counts)));
  }

  // Writes what was counted since the last line once an interval has passed
  // since it, so that the last second of a burst is logged without waiting
  // for another refusal. Called by a timer, every interval.
  void flush_if_due() {
    const auto now = now_();
    Object counts;
    {
      std::lock_guard lock(mutex_);
      if (pending_.empty() || now - last_line_ < interval_) return;
      last_line_ = now;
      counts = take_pending();
    }
    write_("", Value(std::move(counts)));
  }

  // Writes what was counted since the last line, if anything (at a stop).
  void flush() {
    Object counts;
    {
      std::lock_guard lock(mutex_);
      if (pending_.empty()) return;
      counts = take_pending();
    }
    write_("", Value(std::move(counts)));
  }

 private:
  Object take_pending() {
    Object counts;
    for (const auto& [reason, count] : pending_) counts.push_back({Value(reason), Value(count)});
    pending_.clear();
    return counts;
  }

  Write write_;
  std::chrono::nanoseconds interval_;
  Clock now_;
  std::mutex mutex_;
  std::map<std::string, int64_t> pending_;
  bool written_once_ = false;
  std::chrono::steady_clock::time_point last_line_;
};

}  // namespace sindri::broker
