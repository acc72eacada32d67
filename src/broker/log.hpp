#pragma once
// Structured logs: one JSON object per line on stderr, with a time, a level,
// a message and fields. Thread-safe; lines below the level cost one compare.

#include <atomic>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "value/value.hpp"

namespace sindri::broker {

enum class LogLevel { Debug = 0, Info = 1, Warn = 2, Error = 3 };

std::optional<LogLevel> parse_log_level(std::string_view text);

class Logger {
 public:
  explicit Logger(LogLevel level = LogLevel::Info) : level_(level) {}
  void set_level(LogLevel level) { level_.store(level, std::memory_order_relaxed); }
  bool enabled(LogLevel level) const { return level >= level_.load(std::memory_order_relaxed); }

  using Fields = std::initializer_list<std::pair<std::string_view, Value>>;
  void log(LogLevel level, std::string_view message, Fields fields = {});
  void info(std::string_view message, Fields fields = {}) { log(LogLevel::Info, message, fields); }
  void warn(std::string_view message, Fields fields = {}) { log(LogLevel::Warn, message, fields); }
  void error(std::string_view message, Fields fields = {}) { log(LogLevel::Error, message, fields); }
  void debug(std::string_view message, Fields fields = {}) { log(LogLevel::Debug, message, fields); }

 private:
  std::atomic<LogLevel> level_;
  std::mutex write_mutex_;
};

}  // namespace sindri::broker
