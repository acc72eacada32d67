#include "broker/log.hpp"

#include <cstdio>

#include "broker/ids.hpp"
#include "value/json.hpp"

namespace sindri::broker {

std::optional<LogLevel> parse_log_level(std::string_view text) {
  if (text == "debug" || text == "trace") return LogLevel::Debug;
  if (text == "info") return LogLevel::Info;
  if (text == "warn" || text == "warning") return LogLevel::Warn;
  if (text == "error") return LogLevel::Error;
  return std::nullopt;
}

void Logger::log(LogLevel level, std::string_view message, Fields fields) {
  if (!enabled(level)) return;
  static constexpr const char* kNames[] = {"debug", "info", "warn", "error"};
  std::string line = "{\"time\":";
  append_json_string(line, now_timestamp());
  line += ",\"level\":";
  append_json_string(line, kNames[static_cast<int>(level)]);
  line += ",\"message\":";
  append_json_string(line, message);
  for (const auto& [name, value] : fields) {
    line += ',';
    append_json_string(line, name);
    line += ':';
    append_json(line, value);
  }
  line += "}\n";
  std::lock_guard lock(write_mutex_);
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

}  // namespace sindri::broker
