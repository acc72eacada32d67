#include "broker/config.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <tuple>

#include "value/file_text.hpp"
#include "value/setting_text.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::broker {
namespace {

constexpr double kYearSeconds = 365.0 * 24 * 3600;

constexpr std::string_view kTopLevel = "A top-level key, in no section: kept so that existing files still work.";

const std::array kSettings = {
    Setting{.key = "",
            .variable = "SINDRI_CONFIG_FILE",
            .flag = "--config",
            .description = "Configuration file (YAML or JSON), read before the variables and the flags",
            .naming_note = "The file cannot name itself, so it has no key; the flag is --config, not --config-file.",
            .field = std::monostate{}},
    Setting{.key = "listen",
            .variable = "SINDRI_LISTEN",
            .flag = "--listen",
            .description = "HOST:PORT to listen on ([::1]:8080 for IPv6; port 0 takes a free one)",
            .naming_note = kTopLevel,
            .field = &BrokerConfig::listen},
    Setting{.key = "database.url",
            .variable = "SINDRI_DATABASE_URL",
            .flag = "--database",
            .description = "sqlite://PATH, or postgres://... for several brokers on one database",
            .naming_note = "The flag is --database, not --database-url.",
            .field = &BrokerConfig::database_url},
    Setting{.key = "database.schema",
            .variable = "SINDRI_DATABASE_SCHEMA",
            .flag = "--database-schema",
            .description = "PostgreSQL schema of this tenant (multi-tenant mode)",
            .field = &BrokerConfig::database_schema},
    Setting{.key = "database.pool_size",
            .variable = "SINDRI_DATABASE_POOL_SIZE",
            .flag = "--database-pool-size",
            .unit = "connections",
            .description = "Database connections, 1 to 1000",
            .field = &BrokerConfig::database_pool_size},
    Setting{.key = "admin_pak_file",
            .variable = "SINDRI_ADMIN_PAK_FILE",
            .flag = "--admin-pak-file",
            .description = "Where the first start writes the admin PAK, and --rotate-admin-pak the new one",
            .naming_note = kTopLevel,
            .field = &BrokerConfig::admin_pak_file},
    Setting{.key = "threads",
            .variable = "SINDRI_THREADS",
            .flag = "--threads",
            .unit = "threads",
            .description = "HTTP worker threads, 1 to 256",
            .naming_note = kTopLevel,
            .field = &BrokerConfig::threads},
    Setting{.key = "body_limit",
            .variable = "SINDRI_BODY_LIMIT",
            .flag = "--body-limit",
            .unit = "bytes",
            .description = "Largest request body, 0 or at least 1024 (0: none); bounds the memory one request "
                           "can take",
            .naming_note = kTopLevel,
            .field = &BrokerConfig::body_limit},
    Setting{.key = "template_targets_interval",
            .variable = "SINDRI_TEMPLATE_TARGETS_INTERVAL",
            .unit = "seconds",
            .description = "Time between full recomputations of template targets, at least 1",
            .naming_note = "A top-level key, in no section, and it has no flag: kept as it was.",
            .field = &BrokerConfig::template_targets_interval,
            .reloadable = true},
    Setting{.key = "peer_change_delay_ms",
            .variable = "SINDRI_PEER_CHANGE_DELAY_MS",
            .flag = "--peer-change-delay-ms",
            .unit = "ms",
            .description = "How long a change made through another broker on the same database, a revoked PAK "
                           "included, may go unseen here: 0 to 60000 (0: not at all)",
            .naming_note = kTopLevel,
            .field = &BrokerConfig::peer_change_delay_ms},
    Setting{.key = "shutdown_grace",
            .variable = "SINDRI_SHUTDOWN_GRACE",
            .flag = "--shutdown-grace",
            .unit = "seconds",
            .description = "How long a stop waits for requests under way and answers being sent, 0 to 3600 "
                           "(a second SIGTERM or SIGINT ends it at once)",
            .naming_note = kTopLevel,
            .field = &BrokerConfig::shutdown_grace},
    Setting{.key = "log.level",
            .variable = "SINDRI_LOG_LEVEL",
            .flag = "--log-level",
            .description = "debug, info, warn or error (trace and warning are read as debug and warn)",
            .field = &BrokerConfig::log_level,
            .reloadable = true},
    Setting{.key = "work_orders.maintenance_interval",
            .variable = "SINDRI_WORK_ORDERS_MAINTENANCE_INTERVAL",
            .flag = "--work-orders-maintenance-interval",
            .unit = "seconds",
            .description = "Time between passes that return timed-out work-order claims and due retries to pending",
            .field = &BrokerConfig::work_orders_maintenance_interval,
            .reloadable = true},
    Setting{.key = "diagnostics.cleanup_interval",
            .variable = "SINDRI_DIAGNOSTICS_CLEANUP_INTERVAL",
            .flag = "--diagnostics-cleanup-interval",
            .unit = "seconds",
            .description = "Time between passes that delete diagnostic requests past their retention",
            .field = &BrokerConfig::diagnostics_cleanup_interval,
            .reloadable = true},
    Setting{.key = "webhooks.encryption_key",
            .variable = "SINDRI_WEBHOOKS_ENCRYPTION_KEY",
            .flag = "--webhooks-encryption-key",
            .description = "AES-256 key (64 hex digits) for webhook URLs and auth headers; every broker on a "
                           "database needs the same one",
            .field = &BrokerConfig::webhooks_encryption_key},
    Setting{.key = "webhooks.encryption_key_file",
            .variable = "SINDRI_WEBHOOKS_ENCRYPTION_KEY_FILE",
            .flag = "--webhooks-encryption-key-file",
            .description = "Where the key is read from when webhooks.encryption_key is not set, written there "
                           "(mode 0600) on the first start; empty: webhook.key beside the admin PAK file",
            .field = &BrokerConfig::webhooks_encryption_key_file},
    Setting{.key = "webhooks.delivery_interval",
            .variable = "SINDRI_WEBHOOKS_DELIVERY_INTERVAL",
            .flag = "--webhooks-delivery-interval",
            .unit = "seconds",
            .description = "Time between webhook delivery passes",
            .field = &BrokerConfig::webhooks_delivery_interval,
            .reloadable = true},
    Setting{.key = "webhooks.delivery_batch_size",
            .variable = "SINDRI_WEBHOOKS_DELIVERY_BATCH_SIZE",
            .flag = "--webhooks-delivery-batch-size",
            .unit = "deliveries",
            .description = "Deliveries a pass claims at once, 1 to 1000",
            .field = &BrokerConfig::webhooks_delivery_batch_size,
            .reloadable = true},
    Setting{.key = "webhooks.delivery_lease",
            .variable = "SINDRI_WEBHOOKS_DELIVERY_LEASE",
            .flag = "--webhooks-delivery-lease",
            .unit = "seconds",
            .description = "How long a claimed delivery stays with its broker before another may take it",
            .field = &BrokerConfig::webhooks_delivery_lease,
            .reloadable = true},
    Setting{.key = "webhooks.backoff_unit",
            .variable = "SINDRI_WEBHOOKS_BACKOFF_UNIT",
            .flag = "--webhooks-backoff-unit",
            .unit = "seconds",
            .description = "A failed delivery is retried after this times 2^attempts",
            .field = &BrokerConfig::webhooks_backoff_unit,
            .reloadable = true},
    Setting{.key = "webhooks.cleanup_interval",
            .variable = "SINDRI_WEBHOOKS_CLEANUP_INTERVAL",
            .flag = "--webhooks-cleanup-interval",
            .unit = "seconds",
            .description = "Time between passes that delete finished deliveries past their retention",
            .field = &BrokerConfig::webhooks_cleanup_interval,
            .reloadable = true},
    Setting{.key = "webhooks.retention_days",
            .variable = "SINDRI_WEBHOOKS_RETENTION_DAYS",
            .flag = "--webhooks-retention-days",
            .unit = "days",
            .description = "How long finished deliveries are kept, at least 1",
            .field = &BrokerConfig::webhooks_retention_days,
            .reloadable = true},
    Setting{.key = "audit.flush_interval",
            .variable = "SINDRI_AUDIT_FLUSH_INTERVAL",
            .flag = "--audit-flush-interval",
            .unit = "seconds",
            .description = "Most time refused authentications wait to be written to the audit log (100 at once "
                           "are written at once)",
            .field = &BrokerConfig::audit_flush_interval,
            .reloadable = true},
    Setting{.key = "audit.retention_days",
            .variable = "SINDRI_AUDIT_RETENTION_DAYS",
            .flag = "--audit-retention-days",
            .unit = "days",
            .description = "How long audit entries are kept, at least 1",
            .field = &BrokerConfig::audit_retention_days,
            .reloadable = true},
    Setting{.key = "agent_events.retention_days",
            .variable = "SINDRI_AGENT_EVENTS_RETENTION_DAYS",
            .flag = "--agent-events-retention-days",
            .unit = "days",
            .description = "How long agent events are kept, at least 1",
            .field = &BrokerConfig::agent_events_retention_days,
            .reloadable = true},
    Setting{.key = "retention.interval",
            .variable = "SINDRI_RETENTION_INTERVAL",
            .flag = "--retention-interval",
            .unit = "seconds",
            .description = "Time between passes that delete audit entries and agent events past their retention",
            .field = &BrokerConfig::retention_interval,
            .reloadable = true},
    Setting{.key = "telemetry.retention",
            .variable = "SINDRI_TELEMETRY_RETENTION",
            .flag = "--telemetry-retention",
            .unit = "seconds",
            .description = "How long the Kubernetes events and pod log lines agents stream are kept, at most "
                           "21600 (6 hours)",
            .field = &BrokerConfig::telemetry_retention,
            .reloadable = true},
    Setting{.key = "telemetry.trim_interval",
            .variable = "SINDRI_TELEMETRY_TRIM_INTERVAL",
            .flag = "--telemetry-trim-interval",
            .unit = "seconds",
            .description = "Time between passes that delete streamed events and log lines past their retention",
            .field = &BrokerConfig::telemetry_trim_interval,
            .reloadable = true},
    Setting{.key = "notices.reconnect_interval",
            .variable = "SINDRI_NOTICES_RECONNECT_INTERVAL",
            .flag = "--notices-reconnect-interval",
            .unit = "seconds",
            .description = "On PostgreSQL, time before a broker that lost its connection listening for other "
                           "brokers' notices opens another",
            .field = &BrokerConfig::notices_reconnect_interval,
            .reloadable = true},
    Setting{.key = "notices.presence_interval",
            .variable = "SINDRI_NOTICES_PRESENCE_INTERVAL",
            .flag = "--notices-presence-interval",
            .unit = "seconds",
            .description = "On PostgreSQL, how often a broker records that it is alive; the agents' sockets of one "
                           "not seen for three intervals count as closed in every broker's GET /fleet",
            .field = &BrokerConfig::notices_presence_interval,
            .reloadable = true},
    Setting{.key = "cors.allowed_origins",
            .variable = "SINDRI_CORS_ALLOWED_ORIGINS",
            .flag = "--cors-allowed-origins",
            .description = "Origins whose pages may call the API (https://console.example.com; * for any); "
                           "none by default",
            .field = &BrokerConfig::cors_allowed_origins,
            .reloadable = true},
    Setting{.key = "cors.max_age_seconds",
            .variable = "SINDRI_CORS_MAX_AGE_SECONDS",
            .flag = "--cors-max-age-seconds",
            .unit = "seconds",
            .description = "How long a browser may keep a preflight's answer, 0 to 86400",
            .field = &BrokerConfig::cors_max_age_seconds,
            .reloadable = true},
    Setting{.key = "ui.directory",
            .variable = "SINDRI_UI_DIRECTORY",
            .flag = "--ui-directory",
            .description = "A console build (ui/dist) to serve at /ui/ instead of the copy embedded in the binary; "
                           "its files are read again when they change",
            .field = &BrokerConfig::ui_directory,
            .reloadable = true},
    Setting{.key = "config.watch_debounce",
            .variable = "SINDRI_CONFIG_WATCH_DEBOUNCE",
            .flag = "--config-watch-debounce",
            .unit = "seconds",
            .description = "The configuration file is reloaded this long after it last changed",
            .field = &BrokerConfig::config_watch_debounce,
            .reloadable = true},
    Setting{.key = "http.max_connections",
            .variable = "SINDRI_HTTP_MAX_CONNECTIONS",
            .flag = "--http-max-connections",
            .unit = "connections",
            .description = "Connections open at once (0: no cap), so that a flood of connections cannot use up the "
                           "broker's file descriptors; past it the oldest connection that never completed an "
                           "authenticated request is closed, an agent's never",
            .field = &BrokerConfig::http_max_connections},
    Setting{.key = "http.max_unfinished_connections",
            .variable = "SINDRI_HTTP_MAX_UNFINISHED_CONNECTIONS",
            .flag = "--http-max-unfinished-connections",
            .unit = "connections",
            .description = "Connections still sending their first request's headers (0: no cap), so that "
                           "half-sent requests cannot crowd out real ones; past it the oldest is closed",
            .field = &BrokerConfig::http_max_unfinished_connections},
    Setting{.key = "http.header_timeout",
            .variable = "SINDRI_HTTP_HEADER_TIMEOUT",
            .flag = "--http-header-timeout",
            .unit = "seconds",
            .description = "Time a request's line and headers may take to arrive, TLS handshake included (0: no "
                           "deadline), so that a trickling client (slowloris) cannot hold a connection",
            .field = &BrokerConfig::http_header_timeout},
    Setting{.key = "http.min_body_rate",
            .variable = "SINDRI_HTTP_MIN_BODY_RATE",
            .flag = "--http-min-body-rate",
            .unit = "bytes/s",
            .description = "Slowest a request body may arrive, measured after its first second (0: no minimum), "
                           "so that a trickled body cannot hold a connection",
            .field = &BrokerConfig::http_min_body_rate},
    Setting{.key = "http.idle_timeout",
            .variable = "SINDRI_HTTP_IDLE_TIMEOUT",
            .flag = "--http-idle-timeout",
            .unit = "seconds",
            .description = "Time a keep-alive connection may stay idle between requests before it is closed (0: no "
                           "limit), so that idle connections cannot pile up and hold descriptors",
            .field = &BrokerConfig::http_idle_timeout},
    Setting{.key = "http.websocket_idle_timeout",
            .variable = "SINDRI_HTTP_WEBSOCKET_IDLE_TIMEOUT",
            .flag = "--http-websocket-idle-timeout",
            .unit = "seconds",
            .description = "Time a WebSocket (the agent channel) may stay silent before it is dropped, the broker "
                           "pinging it halfway (0: no pings, no limit), so that a vanished agent does not hold its "
                           "socket",
            .field = &BrokerConfig::http_websocket_idle_timeout},
    Setting{.key = "http.max_connections_per_identity",
            .variable = "SINDRI_HTTP_MAX_CONNECTIONS_PER_IDENTITY",
            .flag = "--http-max-connections-per-identity",
            .unit = "connections",
            .description = "Connections one PAK's identity may hold that http.max_connections never closes for "
                           "room (0: no cap), so that one leaked or hostile PAK cannot pin every connection; its "
                           "further connections are treated as anonymous ones",
            .field = &BrokerConfig::http_max_connections_per_identity},
    Setting{.key = "render.threads",
            .variable = "SINDRI_RENDER_THREADS",
            .flag = "--render-threads",
            .unit = "threads",
            .description = "Threads that render templates (instantiations and dry runs), apart from the HTTP "
                           "threads, so that renders never delay health checks or cheap requests; a caller past "
                           "render.per_identity_limit may use a thread no other caller waits for, as long as one "
                           "more stays free; 1 to 256",
            .field = &BrokerConfig::render_threads},
    Setting{.key = "render.per_identity_limit",
            .variable = "SINDRI_RENDER_PER_IDENTITY_LIMIT",
            .flag = "--render-per-identity-limit",
            .unit = "renders",
            .description = "Renders one PAK may have in flight, so that one caller cannot take every render "
                           "thread; 1 to 1000",
            .field = &BrokerConfig::render_per_identity_limit,
            .reloadable = true},
    Setting{.key = "render.queue_wait",
            .variable = "SINDRI_RENDER_QUEUE_WAIT",
            .flag = "--render-queue-wait",
            .unit = "seconds",
            .description = "How long a render may wait for a slot before it is answered 429 (its caller's limit) "
                           "or 503 (every thread busy) with Retry-After; 0: not at all",
            .field = &BrokerConfig::render_queue_wait,
            .reloadable = true},
    Setting{.key = "render.queue_limit",
            .variable = "SINDRI_RENDER_QUEUE_LIMIT",
            .flag = "--render-queue-limit",
            .unit = "renders",
            .description = "Renders waiting for a slot, of all callers; past it a render is answered 503 at once, "
                           "so that waiting requests cannot pile up; 1 to 100000",
            .field = &BrokerConfig::render_queue_limit,
            .reloadable = true},
    Setting{.key = "render.max_steps",
            .variable = "SINDRI_RENDER_MAX_STEPS",
            .flag = "--render-max-steps",
            .unit = "steps",
            .description = "Evaluation steps one render may take (0: none), so that a looping template ends with "
                           "an error",
            .field = &BrokerConfig::render_max_steps,
            .reloadable = true},
    Setting{.key = "render.max_duration",
            .variable = "SINDRI_RENDER_MAX_DURATION",
            .flag = "--render-max-duration",
            .unit = "seconds",
            .description = "Time one render may take (0: none), so that one template cannot hold a render thread",
            .field = &BrokerConfig::render_max_duration,
            .reloadable = true},
    Setting{.key = "render.max_output_bytes",
            .variable = "SINDRI_RENDER_MAX_OUTPUT_BYTES",
            .flag = "--render-max-output-bytes",
            .unit = "bytes",
            .description = "Largest text one render may produce (0: none), so that one template cannot fill the "
                           "broker's memory or the database",
            .field = &BrokerConfig::render_max_output_bytes,
            .reloadable = true},
    Setting{.key = "tls.cert_file",
            .variable = "SINDRI_TLS_CERT_FILE",
            .flag = "--tls-cert-file",
            .description = "PEM certificate chain: when set, the broker serves HTTPS only (TLS 1.2 and 1.3), so "
                           "that PAKs never cross the network in clear; re-read when the file changes",
            .field = &BrokerConfig::tls_cert_file},
    Setting{.key = "tls.key_file",
            .variable = "SINDRI_TLS_KEY_FILE",
            .flag = "--tls-key-file",
            .description = "PEM private key of tls.cert_file; set both or neither",
            .field = &BrokerConfig::tls_key_file},
    Setting{.key = "tls.client_ca_file",
            .variable = "SINDRI_TLS_CLIENT_CA_FILE",
            .flag = "--tls-client-ca-file",
            .description = "PEM CA certificates: when set, every client must present a certificate one of them "
                           "signed (needs tls.cert_file)",
            .field = &BrokerConfig::tls_client_ca_file},
    Setting{.key = "tls.reload_check_interval",
            .variable = "SINDRI_TLS_RELOAD_CHECK_INTERVAL",
            .flag = "--tls-reload-check-interval",
            .unit = "seconds",
            .description = "Time between checks of whether the TLS files changed (a cert-manager rotation is "
                           "served without a restart)",
            .field = &BrokerConfig::tls_reload_check_interval},
};

const char* log_level_name(LogLevel level) {
  switch (level) {
    case LogLevel::Debug: return "debug";
    case LogLevel::Info: return "info";
    case LogLevel::Warn: return "warn";
    case LogLevel::Error: return "error";
  }
  return "";
}

Result<double> parse_seconds(std::string_view text, std::string_view setting) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value) || value < 0) {
    return make_error(std::string(setting) + ": expected a number of seconds (fractions allowed), got \"" +
                      std::string(text) + "\"");
  }
  return value;
}

std::string number_text(const Value& value) {
  return value.is_int() ? std::to_string(value.get_int()) : duration_text(value.as_double());
}

const Setting* find_by_key(std::string_view key) {
  for (const Setting& setting : kSettings) {
    if (!setting.key.empty() && setting.key == key) return &setting;
  }
  return nullptr;
}

bool is_section(std::string_view name) {
  for (const Setting& setting : kSettings) {
    if (setting.key.size() > name.size() && setting.key.starts_with(name) && setting.key[name.size()] == '.') {
      return true;
    }
  }
  return false;
}

Status read_section(BrokerConfig& config, const Value& section, const std::string& prefix, const std::string& path) {
  for (const Member& member : section.get_object()) {
    const std::string name = prefix + std::string(member.key.get_string());
    const std::string where = path + ": " + name;
    if (member.value.is_object()) {
      if (!is_section(name)) return make_error(where + ": unknown section");
      if (auto status = read_section(config, member.value, name + ".", path); !status.ok()) return status;
      continue;
    }
    const Setting* setting = find_by_key(name);
    if (!setting) return make_error(where + ": unknown setting");
    if (auto status = apply_setting(config, *setting, member.value, where); !status.ok()) return status;
  }
  return Ok{};
}

}  // namespace

std::span<const Setting> settings() { return kSettings; }

std::string value_text(const BrokerConfig& config, const Setting& setting) {
  return std::visit(
      [&](const auto& field) -> std::string {
        using Field = std::decay_t<decltype(field)>;
        if constexpr (std::is_same_v<Field, std::string BrokerConfig::*>) return config.*field;
        if constexpr (std::is_same_v<Field, int64_t BrokerConfig::*>) return std::to_string(config.*field);
        if constexpr (std::is_same_v<Field, LogLevel BrokerConfig::*>) return log_level_name(config.*field);
        if constexpr (std::is_same_v<Field, double BrokerConfig::*>) return duration_text(config.*field);
        if constexpr (std::is_same_v<Field, std::vector<std::string> BrokerConfig::*>) {
          std::string joined;
          for (const std::string& item : config.*field) joined += (joined.empty() ? "" : ",") + item;
          return joined;
        }
        return "";
      },
      setting.field);
}

std::string default_text(const Setting& setting) {
  static const BrokerConfig defaults;
  return value_text(defaults, setting);
}

Status apply_setting(BrokerConfig& config, const Setting& setting, const Value& value, const std::string& where) {
  auto expect_string = [&]() -> Status {
    if (!value.is_string()) return make_error(where + ": expected a string, got " + value.kind_name());
    return Ok{};
  };
  return std::visit(
      [&](const auto& field) -> Status {
        using Field = std::decay_t<decltype(field)>;
        if constexpr (std::is_same_v<Field, std::string BrokerConfig::*>) {
          if (auto status = expect_string(); !status.ok()) return status;
          config.*field = std::string(value.get_string());
        } else if constexpr (std::is_same_v<Field, int64_t BrokerConfig::*>) {
          if (!value.is_int()) return make_error(where + ": expected an integer, got " + value.kind_name());
          config.*field = value.get_int();
        } else if constexpr (std::is_same_v<Field, double BrokerConfig::*>) {
          if (!value.is_number() || !std::isfinite(value.as_double()) || value.as_double() < 0) {
            return make_error(where + ": expected a number of seconds (fractions allowed), got " +
                              (value.is_number() ? number_text(value) : std::string(value.kind_name())));
          }
          config.*field = value.as_double();
        } else if constexpr (std::is_same_v<Field, std::vector<std::string> BrokerConfig::*>) {
          SINDRI_TRY(items, string_list(value, where));
          config.*field = std::move(items);
        } else if constexpr (std::is_same_v<Field, LogLevel BrokerConfig::*>) {
          if (auto status = expect_string(); !status.ok()) return status;
          auto level = parse_log_level(value.get_string());
          if (!level) {
            return make_error(where + ": expected debug, info, warn or error, got \"" +
                              std::string(value.get_string()) + "\"");
          }
          config.*field = *level;
        } else {
          return make_error(where + ": names the configuration file, which sets nothing itself");
        }
        return Ok{};
      },
      setting.field);
}

Status apply_config_file(BrokerConfig& config, const std::string& path) {
  SINDRI_TRY(text, read_file_text(path, "configuration file"));
  auto parsed = parse_yaml(text, path);
  if (!parsed.ok()) return make_error("invalid configuration file: " + parsed.error().describe());
  if (parsed->is_null()) return Ok{};
  if (!parsed->is_object()) return make_error(path + ": the configuration must be a mapping of settings");
  return read_section(config, *parsed, "", path);
}

Status apply_environment(BrokerConfig& config, const std::function<const char*(const char*)>& lookup) {
  for (const Setting& setting : kSettings) {
    if (setting.names_the_file()) continue;
    const std::string variable(setting.variable);
    const char* text = lookup(variable.c_str());
    if (!text) continue;
    Value value(text);
    if (setting.is_integer()) {
      SINDRI_TRY(number, integer_from_text(text, variable));
      value = Value(number);
    } else if (setting.is_duration()) {
      SINDRI_TRY(seconds, parse_seconds(text, variable));
      value = Value(seconds);
    }
    if (auto status = apply_setting(config, setting, value, variable); !status.ok()) return status;
  }
  return Ok{};
}

namespace {

bool is_hex_key(std::string_view text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// Durations where 0 has a meaning: no wait before a reload, no deadline, no
// limit, no waiting for a render slot. Any other 0 would make a pass spin.
bool zero_allowed(std::string_view key, double seconds) {
  static constexpr std::array<std::string_view, 6> kZeroMeansNone = {
      "config.watch_debounce", "http.header_timeout", "http.idle_timeout", "http.websocket_idle_timeout",
      "render.max_duration", "render.queue_wait"};
  return seconds == 0 && std::find(kZeroMeansNone.begin(), kZeroMeansNone.end(), key) != kZeroMeansNone.end();
}

Status in_range(std::string_view key, int64_t value, int64_t low, int64_t high) {
  if (value >= low && value <= high) return Ok{};
  return make_error(std::string(key) + " must be between " + std::to_string(low) + " and " + std::to_string(high) +
                    ", got " + std::to_string(value));
}

Status validate_limits(const BrokerConfig& config) {
  constexpr int64_t kNoUpperBound = std::numeric_limits<int64_t>::max();
  const std::tuple<std::string_view, int64_t, int64_t, int64_t> ranges[] = {
      {"http.max_connections", config.http_max_connections, 0, kNoUpperBound},
      {"http.max_unfinished_connections", config.http_max_unfinished_connections, 0, kNoUpperBound},
      {"http.min_body_rate", config.http_min_body_rate, 0, kNoUpperBound},
      {"http.max_connections_per_identity", config.http_max_connections_per_identity, 0, kNoUpperBound},
      {"render.threads", config.render_threads, 1, 256},
      {"render.per_identity_limit", config.render_per_identity_limit, 1, 1000},
      {"render.queue_limit", config.render_queue_limit, 1, 100000},
      {"render.max_steps", config.render_max_steps, 0, kNoUpperBound},
      {"render.max_output_bytes", config.render_max_output_bytes, 0, kNoUpperBound},
  };
  for (const auto& [key, value, low, high] : ranges) {
    if (high == kNoUpperBound && value < low) {
      return make_error(std::string(key) + " must be 0 (none) or more, got " + std::to_string(value));
    }
    if (auto status = in_range(key, value, low, high); !status.ok()) return status;
  }
  return Ok{};
}

Status validate_tls(const BrokerConfig& config) {
  if (!config.tls_cert_file.empty() && config.tls_key_file.empty()) {
    return make_error("tls.cert_file is set but tls.key_file is not: HTTPS needs the certificate's private key");
  }
  if (config.tls_cert_file.empty() && !config.tls_key_file.empty()) {
    return make_error("tls.key_file is set but tls.cert_file is not: HTTPS needs the certificate as well");
  }
  if (config.tls_cert_file.empty() && !config.tls_client_ca_file.empty()) {
    return make_error("tls.client_ca_file is set but tls.cert_file is not: client certificates are checked "
                      "only over HTTPS (set tls.cert_file and tls.key_file)");
  }
  return Ok{};
}

}  // namespace

Status validate_config(const BrokerConfig& config) {
  if (auto address = parse_listen_address(config.listen); !address.ok()) return address.error();
  if (config.database_pool_size < 1 || config.database_pool_size > 1000) {
    return make_error("database pool size must be between 1 and 1000, got " + std::to_string(config.database_pool_size));
  }
  if (config.threads < 1 || config.threads > 256) {
    return make_error("threads must be between 1 and 256, got " + std::to_string(config.threads));
  }
  if (config.template_targets_interval < 1) {
    return make_error("template targets interval must be at least 1 second, got " +
                      std::to_string(config.template_targets_interval));
  }
  if (config.peer_change_delay_ms < 0 || config.peer_change_delay_ms > 60000) {
    return make_error("peer change delay must be between 0 and 60000 ms, got " +
                      std::to_string(config.peer_change_delay_ms));
  }
  if (config.shutdown_grace < 0 || config.shutdown_grace > 3600) {
    return make_error("shutdown grace must be between 0 and 3600 seconds, got " +
                      std::to_string(config.shutdown_grace));
  }
  if (config.body_limit != 0 && config.body_limit < 1024) {
    return make_error("body limit must be 0 (none) or at least 1024 bytes, got " + std::to_string(config.body_limit));
  }
  if (config.admin_pak_file.empty()) return make_error("the admin PAK file path must not be empty");
  for (const Setting& setting : kSettings) {
    if (!setting.is_duration()) continue;
    const double seconds = config.*std::get<double BrokerConfig::*>(setting.field);
    // A pass every 0 s would spin; the watch may reload at once. A year
    // is more than any interval needs, and keeps clock arithmetic in range.
    if (seconds < 0.001 && !zero_allowed(setting.key, seconds)) {
      return make_error(std::string(setting.key) + " must be at least 0.001 seconds, got " + duration_text(seconds));
    }
    if (seconds > kYearSeconds) {
      return make_error(std::string(setting.key) + " must be at most " + duration_text(kYearSeconds) +
                        " seconds (a year), got " + duration_text(seconds));
    }
  }
  if (auto status = validate_limits(config); !status.ok()) return status;
  if (auto status = validate_tls(config); !status.ok()) return status;
  if (!config.webhooks_encryption_key.empty() && !is_hex_key(config.webhooks_encryption_key)) {
    return make_error("webhooks.encryption_key must be 64 hexadecimal digits (32 bytes), got " +
                      std::to_string(config.webhooks_encryption_key.size()) + " characters");
  }
  const std::pair<const char*, int64_t> at_least_one_day[] = {{"webhooks.retention_days", config.webhooks_retention_days},
                                                              {"audit.retention_days", config.audit_retention_days},
                                                              {"agent_events.retention_days",
                                                               config.agent_events_retention_days}};
  for (const auto& [key, days] : at_least_one_day) {
    if (days < 1) return make_error(std::string(key) + " must be at least 1 day, got " + std::to_string(days));
  }
  if (config.telemetry_retention > kTelemetryCeilingSeconds) {
    return make_error("telemetry.retention must be at most " + duration_text(kTelemetryCeilingSeconds) +
                      " seconds (6 hours), got " + duration_text(config.telemetry_retention));
  }
  if (config.webhooks_delivery_batch_size < 1 || config.webhooks_delivery_batch_size > 1000) {
    return make_error("webhooks.delivery_batch_size must be between 1 and 1000, got " +
                      std::to_string(config.webhooks_delivery_batch_size));
  }
  if (config.cors_max_age_seconds < 0 || config.cors_max_age_seconds > 86400) {
    return make_error("cors.max_age_seconds must be between 0 and 86400, got " +
                      std::to_string(config.cors_max_age_seconds));
  }
  if (!config.ui_directory.empty()) {
    std::error_code error;
    const bool has_index = std::filesystem::is_regular_file(config.ui_directory + "/index.html", error);
    if (error && error != std::errc::no_such_file_or_directory) {
      return make_error("ui.directory \"" + config.ui_directory + "\" cannot be read: " + error.message());
    }
    if (!has_index) {
      return make_error("ui.directory \"" + config.ui_directory +
                        "\" holds no index.html: name a console build (ui/dist after npm run build)");
    }
  }
  for (const std::string& origin : config.cors_allowed_origins) {
    if (origin != "*" && !origin.starts_with("http://") && !origin.starts_with("https://")) {
      return make_error("cors.allowed_origins: \"" + origin +
                        "\" is not an origin (scheme://host[:port], or * for any)");
    }
  }
  return Ok{};
}

bool ListenAddress::is_loopback() const {
  if (host == "localhost") return true;
  in_addr ipv4{};
  if (inet_pton(AF_INET, host.c_str(), &ipv4) == 1) return (ntohl(ipv4.s_addr) >> 24) == 127;
  in6_addr ipv6{};
  return inet_pton(AF_INET6, host.c_str(), &ipv6) == 1 && IN6_IS_ADDR_LOOPBACK(&ipv6);
}

Result<ListenAddress> parse_listen_address(const std::string& text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    return make_error("listen address must be HOST:PORT, got \"" + text + "\"");
  }
  std::string host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  auto port = integer_from_text(std::string_view(text).substr(colon + 1), "listen port");
  if (!port.ok() || *port < 0 || *port > 65535) {
    return make_error("listen address must end in a port from 0 to 65535, got \"" + text + "\"");
  }
  return ListenAddress{std::move(host), static_cast<uint16_t>(*port)};
}

}  // namespace sindri::broker
