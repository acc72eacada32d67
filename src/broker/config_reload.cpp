#include "broker/config_reload.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>

#include "broker/context.hpp"
#include "broker/ids.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker {
namespace {

// How often the watch looks at the file: far below any useful debounce, and
// a stat() is cheap.
constexpr auto kWatchPoll = std::chrono::milliseconds(100);

void copy_setting(BrokerConfig& to, const BrokerConfig& from, const Setting& setting) {
  std::visit(
      [&](const auto& field) {
        using Field = std::decay_t<decltype(field)>;
        if constexpr (!std::is_same_v<Field, std::monostate>) to.*field = from.*field;
      },
      setting.field);
}

// A secret never shows in an answer, a log or the audit log: the key, and
// the password a database URL may carry (postgres://user:secret@host/db).
std::string shown(const Setting& setting, std::string text) {
  if (setting.key == "webhooks.encryption_key" && !text.empty()) return "(hidden)";
  if (setting.key == "database.url") {
    const size_t authority = text.find("://");
    const size_t at = text.find('@', authority == std::string::npos ? 0 : authority + 3);
    if (authority != std::string::npos && at != std::string::npos) {
      const size_t colon = text.find(':', authority + 3);
      if (colon != std::string::npos && colon < at) text.replace(colon + 1, at - colon - 1, "(hidden)");
    }
  }
  return text;
}

std::string summary(const std::vector<ConfigChange>& changes) {
  size_t applied = 0;
  std::string restart;
  for (const ConfigChange& change : changes) {
    if (change.applied) {
      ++applied;
    } else {
      restart += (restart.empty() ? "" : ", ") + change.key;
    }
  }
  if (changes.empty()) return "No changes detected";
  std::string message = std::to_string(applied) + " setting(s) updated";
  if (!restart.empty()) message += "; not applied, a restart is needed for: " + restart;
  return message;
}

Value changes_json(const std::vector<ConfigChange>& changes) {
  Array items;
  for (const ConfigChange& change : changes) {
    items.push_back(make_object({{"key", Value(change.key)},
                                 {"old_value", Value(change.old_value)},
                                 {"new_value", Value(change.new_value)}}));
  }
  return Value(std::move(items));
}

Value restart_required_json(const std::vector<ConfigChange>& changes) {
  Array keys;
  for (const ConfigChange& change : changes) {
    if (!change.applied) keys.push_back(Value(change.key));
  }
  return Value(std::move(keys));
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

}  // namespace

// stat() follows links, so a ConfigMap's swapped link counts as a change.
ConfigReloader::FileSignature ConfigReloader::signature_of(const std::string& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) return {};
  return FileSignature{true, int64_t(status.st_mtim.tv_sec) * 1'000'000'000 + status.st_mtim.tv_nsec,
                       int64_t(status.st_size), uint64_t(status.st_ino)};
}

Value reload_outcome_json(const ReloadOutcome& outcome) {
  return make_object({{"reloaded_at", Value(outcome.reloaded_at)},
                      {"success", Value(outcome.success)},
                      {"message", Value(outcome.message)},
                      {"changes", changes_json(outcome.changes)},
                      {"restart_required", restart_required_json(outcome.changes)},
                      {"broker", make_object({{"id", Value(outcome.broker_id)}, {"host", Value(host_name())}})}});
}

ConfigReloader::ConfigReloader(LiveConfig& config, Logger& log, store::Database& db, std::string broker_id,
                               Reread reread, std::function<void()> reschedule)
    : config_(config),
      log_(log),
      db_(db),
      broker_id_(std::move(broker_id)),
      reread_(std::move(reread)),
      reschedule_(std::move(reschedule)) {}

ConfigReloader::~ConfigReloader() {
  {
    std::lock_guard<std::mutex> lock(watch_mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (watcher_.joinable()) watcher_.join();
}

ApiResult<ReloadOutcome> ConfigReloader::reload(const Record& record) {
  std::lock_guard<std::mutex> lock(reload_mutex_);
  ReloadOutcome outcome;
  outcome.broker_id = broker_id_;
  outcome.reloaded_at = now_timestamp();
  auto reread = reread_();
  if (!reread.ok()) {
    outcome.message = "configuration not reloaded, the running settings are unchanged: " + reread.error().message;
    log_.warn("configuration not reloaded", {{"error", Value(reread.error().message)}});
    return outcome;
  }
  const auto current = config_.current();
  BrokerConfig next = *current;
  for (const Setting& setting : settings()) {
    if (setting.names_the_file()) continue;
    std::string old_text = value_text(*current, setting);
    std::string new_text = value_text(*reread, setting);
    if (old_text == new_text) continue;
    outcome.changes.push_back({std::string(setting.key), shown(setting, std::move(old_text)),
                               shown(setting, std::move(new_text)), setting.reloadable});
    if (setting.reloadable) copy_setting(next, *reread, setting);
  }
  outcome.success = true;
  outcome.message = summary(outcome.changes);
  SINDRI_CHECK(record(outcome));
  const LogLevel level = next.log_level;
  config_.replace(std::move(next));
  log_.set_level(level);
  reschedule_();
  log_.info("configuration reloaded", {{"changes", changes_json(outcome.changes)},
                                       {"restart_required", restart_required_json(outcome.changes)}});
  return outcome;
}

void ConfigReloader::watch(std::string path) {
  // Taken here, not when the thread first runs: a change made in between
  // (the thread may be scheduled late on a loaded machine) would be missed.
  const FileSignature seen = signature_of(path);
  watcher_ = std::thread([this, path = std::move(path), seen] { watch_loop(path, seen); });
}

void ConfigReloader::watch_loop(const std::string& path, FileSignature seen) {
  const Record record_as_system = [this](const ReloadOutcome& outcome) {
    return in_write<Ok>(db_, [&](store::Connection& connection) {
      return db::record_audit(connection,
                              db::AuditEntry{"system", "", "config.reloaded", "config", "",
                                             make_object({{"changes", changes_json(outcome.changes)},
                                                          {"restart_required", restart_required_json(outcome.changes)},
                                                          {"broker_id", Value(broker_id_)},
                                                          {"trigger", Value("file_watch")}}),
                                             "", ""});
    });
  };
  bool pending = false;  // changed, not yet reloaded
  auto changed_at = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(watch_mutex_);
  while (!wake_.wait_for(lock, kWatchPoll, [this] { return stopping_; })) {
    const FileSignature now_seen = signature_of(path);
    const auto now = std::chrono::steady_clock::now();
    if (!(now_seen == seen)) {
      seen = now_seen;
      pending = true;
      changed_at = now;
      continue;
    }
    const std::chrono::duration<double> debounce(config_.current()->config_watch_debounce);
    if (!pending || now - changed_at < debounce) continue;
    pending = false;
    lock.unlock();
    log_.info("configuration file changed: reloading", {{"file", Value(path)}});
    auto outcome = reload(record_as_system);
    if (!outcome.ok()) log_.error("configuration not reloaded", {{"error", Value(outcome.error().message)}});
    lock.lock();
  }
}

}  // namespace sindri::broker
