#include "broker/config.hpp"

#include <array>
#include <charconv>
#include <cmath>

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
            .description = "Largest request body, at least 1024",
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
    Setting{.key = "config.watch_debounce",
            .variable = "SINDRI_CONFIG_WATCH_DEBOUNCE",
            .flag = "--config-watch-debounce",
            .unit = "seconds",
            .description = "The configuration file is reloaded this long after it last changed",
            .field = &BrokerConfig::config_watch_debounce,
            .reloadable = true},
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
  if (config.body_limit < 1024) {
    return make_error("body limit must be at least 1024 bytes, got " + std::to_string(config.body_limit));
  }
  if (config.admin_pak_file.empty()) return make_error("the admin PAK file path must not be empty");
  for (const Setting& setting : kSettings) {
    if (!setting.is_duration()) continue;
    const double seconds = config.*std::get<double BrokerConfig::*>(setting.field);
    // A pass every 0 s would spin; the watch may reload at once. A year
    // is more than any interval needs, and keeps clock arithmetic in range.
    if (seconds < 0.001 && setting.key != "config.watch_debounce") {
      return make_error(std::string(setting.key) + " must be at least 0.001 seconds, got " + duration_text(seconds));
    }
    if (seconds > kYearSeconds) {
      return make_error(std::string(setting.key) + " must be at most " + duration_text(kYearSeconds) +
                        " seconds (a year), got " + duration_text(seconds));
    }
  }
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
  if (config.webhooks_delivery_batch_size < 1 || config.webhooks_delivery_batch_size > 1000) {
    return make_error("webhooks.delivery_batch_size must be between 1 and 1000, got " +
                      std::to_string(config.webhooks_delivery_batch_size));
  }
  if (config.cors_max_age_seconds < 0 || config.cors_max_age_seconds > 86400) {
    return make_error("cors.max_age_seconds must be between 0 and 86400, got " +
                      std::to_string(config.cors_max_age_seconds));
  }
  for (const std::string& origin : config.cors_allowed_origins) {
    if (origin != "*" && !origin.starts_with("http://") && !origin.starts_with("https://")) {
      return make_error("cors.allowed_origins: \"" + origin +
                        "\" is not an origin (scheme://host[:port], or * for any)");
    }
  }
  return Ok{};
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
