#pragma once
// The broker's settings: defaults, then a configuration file (YAML or JSON),
// then SINDRI_* environment variables, then command-line flags, each layer
// overriding the one before. Names follow Brokkr's settings where it has one
// (database.url, database.schema, log.level).
//
// settings() is the one list of them: the file reader, the environment
// reader and `sindri serve`'s flags are all made from it, and docs/settings.md
// is printed from it (tests/docs/ checks both).

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "broker/log.hpp"
#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::broker {

// Brokkr's clients read telemetry.retention as at most this (6 hours).
inline constexpr double kTelemetryCeilingSeconds = 21600;

struct BrokerConfig {
  std::string listen = "127.0.0.1:8080";
  std::string database_url = "sqlite://./sindri.db";
  std::string database_schema;
  int64_t database_pool_size = 50;
  std::string admin_pak_file = "./admin.pak";
  int64_t threads = 4;
  int64_t body_limit = 10 * 1024 * 1024;  // bytes; 0: none
  int64_t template_targets_interval = 60;
  int64_t shutdown_grace = 10;  // seconds
  // A read of the database's counters serves this broker's requests for this
  // long (a round trip per request on PostgreSQL otherwise); its own writes
  // are always seen at once.
  int64_t peer_change_delay_ms = 1;
  LogLevel log_level = LogLevel::Info;

  // Periodic passes and what they keep (seconds may be fractions).
  double work_orders_maintenance_interval = 10;
  double diagnostics_cleanup_interval = 900;
  std::string webhooks_encryption_key;       // 64 hex digits; see webhook_crypto.hpp
  std::string webhooks_encryption_key_file;  // empty: webhook.key beside the admin PAK
  double webhooks_delivery_interval = 5;
  int64_t webhooks_delivery_batch_size = 50;
  double webhooks_delivery_lease = 60;
  double webhooks_backoff_unit = 1;
  double webhooks_cleanup_interval = 3600;
  int64_t webhooks_retention_days = 7;
  double audit_flush_interval = 1;
  int64_t audit_retention_days = 90;
  int64_t agent_events_retention_days = 30;
  double retention_interval = 86400;
  double telemetry_retention = 21600;
  double telemetry_trim_interval = 60;
  double notices_reconnect_interval = 1;
  double notices_presence_interval = 10;
  std::vector<std::string> cors_allowed_origins;
  int64_t cors_max_age_seconds = 3600;
  double config_watch_debounce = 5;
  std::string ui_directory;  // empty: the console embedded at build time

  // Limits on what one client can hold; 0 means none.
  int64_t http_max_connections = 10000;
  int64_t http_max_unfinished_connections = 1000;
  double http_header_timeout = 10;
  int64_t http_min_body_rate = 1024;  // bytes a second
  double http_idle_timeout = 60;
  double http_websocket_idle_timeout = 60;
  int64_t http_max_connections_per_identity = 64;

  // The render pool, and the work one render may do; 0 means none for the
  // max_* limits.
  int64_t render_threads = 4;
  int64_t render_per_identity_limit = 1;
  double render_queue_wait = 1;
  int64_t render_queue_limit = 64;
  int64_t render_max_steps = 100000000;
  double render_max_duration = 5;
  int64_t render_max_output_bytes = 10485760;

  // HTTPS when tls_cert_file is set.
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string tls_client_ca_file;
  double tls_reload_check_interval = 1;

  bool operator==(const BrokerConfig&) const = default;
};

// The settings a running broker reads: replaced whole by a reload, read as
// a snapshot that stays valid while it is held.
class LiveConfig {
 public:
  explicit LiveConfig(BrokerConfig config) : current_(std::make_shared<const BrokerConfig>(std::move(config))) {}
  std::shared_ptr<const BrokerConfig> current() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return current_;
  }
  void replace(BrokerConfig config) {
    auto next = std::make_shared<const BrokerConfig>(std::move(config));
    std::lock_guard<std::mutex> lock(mutex_);
    current_ = std::move(next);
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const BrokerConfig> current_;
};

// One setting of `sindri serve`. The rule for names: the key sits in a dotted
// section (tls.cert_file), the variable is SINDRI_ and the key in capitals
// with _ for . (SINDRI_TLS_CERT_FILE), the flag is -- and the key with - for
// . and _ (--tls-cert-file).
struct Setting {
  // Where the value goes; none for the setting that names the file itself.
  using Field = std::variant<std::monostate, std::string BrokerConfig::*, int64_t BrokerConfig::*,
                             LogLevel BrokerConfig::*, double BrokerConfig::*, std::vector<std::string> BrokerConfig::*>;

  std::string_view key = {};  // empty where the file cannot hold it
  std::string_view variable = {};
  std::string_view flag = {};  // empty where there is none
  std::string_view unit = {};  // empty for text
  std::string_view description = {};
  // Why a name departs from the rule, kept so that no configuration breaks;
  // empty when every name follows it.
  std::string_view naming_note = {};
  Field field = {};
  // Applied by POST /admin/config/reload and the file watch; a change to any
  // other setting needs a restart.
  bool reloadable = false;

  bool names_the_file() const { return std::holds_alternative<std::monostate>(field); }
  bool is_integer() const { return std::holds_alternative<int64_t BrokerConfig::*>(field); }
  // Seconds, fractions allowed.
  bool is_duration() const { return std::holds_alternative<double BrokerConfig::*>(field); }
  bool is_number() const { return is_integer() || is_duration(); }
  // A list: a sequence in the file, comma-separated in a variable or a flag.
  bool is_list() const { return std::holds_alternative<std::vector<std::string> BrokerConfig::*>(field); }
};

std::span<const Setting> settings();

// The value a default BrokerConfig holds, as a user would write it; empty
// when there is none.
std::string default_text(const Setting& setting);
// The value `config` holds, as a user would write it.
std::string value_text(const BrokerConfig& config, const Setting& setting);

// Sets one setting from a file's value or a flag's; `where` begins every error.
Status apply_setting(BrokerConfig& config, const Setting& setting, const Value& value, const std::string& where);

// Applies a configuration file over `config`. Errors name the file and the
// setting (unknown settings are errors, so a typo never goes unnoticed).
Status apply_config_file(BrokerConfig& config, const std::string& path);

// Applies SINDRI_* variables; `lookup` returns nullptr for an unset variable
// (getenv in production, a map in tests).
Status apply_environment(BrokerConfig& config, const std::function<const char*(const char*)>& lookup);

// Checks ranges and formats after all layers are applied.
Status validate_config(const BrokerConfig& config);

struct ListenAddress {
  std::string host;
  uint16_t port = 0;

  // 127.0.0.0/8, ::1 or localhost: only this machine can connect.
  bool is_loopback() const;
};
Result<ListenAddress> parse_listen_address(const std::string& text);

}  // namespace sindri::broker
