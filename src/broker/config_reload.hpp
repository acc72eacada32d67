#pragma once
// Reloading the settings of a running broker: POST /admin/config/reload and
// the watch of the configuration file. A reload reads the settings again
// exactly as the start did (defaults, file, SINDRI_* variables, the start's
// flags), applies the changes to reloadable settings (Setting::reloadable)
// and reports the others as needing a restart without applying them. A file
// that no longer reads changes nothing.
//
// Each broker reloads only itself: with several brokers, each watches its
// own copy of the file, and the answer names the broker.

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "broker/api_error.hpp"
#include "broker/config.hpp"
#include "broker/log.hpp"
#include "store/database.hpp"

namespace sindri::broker {

struct ConfigChange {
  std::string key, old_value, new_value;
  bool applied = false;  // false: the setting needs a restart
};

struct ReloadOutcome {
  std::string broker_id;
  std::string reloaded_at;
  bool success = false;
  std::string message;
  std::vector<ConfigChange> changes;
};

// {reloaded_at, changes, success, message} as brokkr-v1.json's
// ConfigReloadResponse, and what Sindri adds: restart_required (the keys
// changed but not applied) and broker {id, host}.
Value reload_outcome_json(const ReloadOutcome& outcome);

class ConfigReloader {
 public:
  using Reread = std::function<Result<BrokerConfig>()>;
  // Writes the reload's audit entry in a transaction of its own; an error
  // leaves the settings as they were.
  using Record = std::function<ApiResult<Ok>(const ReloadOutcome&)>;

  // `reschedule` makes the periodic passes read their intervals again;
  // `broker_id` names this broker in answers and logs.
  ConfigReloader(LiveConfig& config, Logger& log, store::Database& db, std::string broker_id, Reread reread,
                 std::function<void()> reschedule);
  ~ConfigReloader();  // stops the watch
  ConfigReloader(const ConfigReloader&) = delete;
  ConfigReloader& operator=(const ConfigReloader&) = delete;

  // One reload at a time. success is false, with the reason in message,
  // when the settings do not read; an error only when `record` fails.
  ApiResult<ReloadOutcome> reload(const Record& record);

  // Polls `path` (its modification time, size and inode) a few times a
  // second and reloads once it has stayed unchanged for
  // config.watch_debounce seconds, as the system (audit actor "system").
  void watch(std::string path);

 private:
  // What the watch compares: modification time, size and inode.
  struct FileSignature {
    bool exists = false;
    int64_t modified_ns = 0;
    int64_t size = 0;
    uint64_t inode = 0;
    bool operator==(const FileSignature&) const = default;
  };
  static FileSignature signature_of(const std::string& path);
  void watch_loop(const std::string& path, FileSignature seen);

  LiveConfig& config_;
  Logger& log_;
  store::Database& db_;
  std::string broker_id_;
  Reread reread_;
  std::function<void()> reschedule_;
  std::mutex reload_mutex_;
  std::mutex watch_mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread watcher_;
};

}  // namespace sindri::broker
