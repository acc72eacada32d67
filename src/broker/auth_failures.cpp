#include "broker/auth_failures.hpp"

#include <utility>
#include <vector>

#include "broker/context.hpp"
#include "broker/db/audit.hpp"
#include "broker/ids.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker {
namespace {

constexpr size_t kKeptText = 256;

int64_t minute_of(std::chrono::system_clock::time_point moment) {
  return std::chrono::duration_cast<std::chrono::minutes>(moment.time_since_epoch()).count();
}

}  // namespace

bool AuthFailureLog::record(std::string_view source, std::string_view path, std::string_view user_agent,
                            std::string_view reason, std::chrono::system_clock::time_point now) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::string key(source);
  if (!windows_.contains(key) && windows_.size() >= kMaxSources) key = "other";
  Window& window = windows_[key];
  const int64_t minute = minute_of(now);
  if (window.count == 0 || window.minute != minute) {
    // A minute over before a flush wrote all of it: the next flush writes
    // its rest.
    if (window.count > window.written) finished_.emplace_back(key, std::move(window));
    ++waiting_first_entry_;
    // Cut to size: a flood may send long paths and user agents.
    window = Window{minute,
                    timestamp_at(now),
                    std::string(path.substr(0, kKeptText)),
                    std::string(user_agent.substr(0, kKeptText)),
                    std::string(reason),
                    0,
                    0};
  }
  ++window.count;
  return waiting_first_entry_ >= kBatch;
}

ApiResult<size_t> AuthFailureLog::flush(store::Database& db, std::chrono::system_clock::time_point now, Due due) {
  std::vector<db::AuditEntry> entries;
  // The entry of a window's failures not written yet.
  const auto write = [&](const std::string& source, Window& window) {
    const bool first = window.written == 0;
    entries.push_back(db::AuditEntry{"system", "", "auth.failed", "system", "",
                                     make_object({{"reason", Value(window.reason)},
                                                  {"path", Value(window.path)},
                                                  {"count", Value(window.count - window.written)},
                                                  {"first_at", Value(window.first_at)},
                                                  {"continued", Value(!first)}}),
                                     source == "other" ? "" : source, window.user_agent});
    window.written = window.count;
    if (first) --waiting_first_entry_;
  };
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [source, window] : finished_) write(source, window);
    finished_.clear();
    const int64_t minute = minute_of(now);
    for (auto it = windows_.begin(); it != windows_.end();) {
      Window& window = it->second;
      const bool over = window.minute < minute || due == Due::everything;
      if (window.count > window.written && (window.written == 0 || over)) write(it->first, window);
      it = over && window.written == window.count ? windows_.erase(it) : std::next(it);
    }
  }
  if (entries.empty()) return size_t{0};
  SINDRI_CHECK(in_write<Ok>(db, [&](store::Connection& connection) -> ApiResult<Ok> {
    for (const db::AuditEntry& entry : entries) SINDRI_CHECK(db::record_audit(connection, entry));
    return Ok{};
  }));
  return entries.size();
}

}  // namespace sindri::broker
