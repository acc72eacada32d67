#include "broker/config.hpp"

#include <array>
#include <charconv>

#include "value/file_text.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::broker {
namespace {

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
            .field = &BrokerConfig::template_targets_interval},
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
            .field = &BrokerConfig::log_level},
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

Result<int64_t> parse_integer(std::string_view text, std::string_view setting) {
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    return make_error(std::string(setting) + ": expected an integer, got \"" + std::string(text) + "\"");
  }
  return value;
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

std::string default_text(const Setting& setting) {
  static const BrokerConfig defaults;
  return std::visit(
      [](const auto& field) -> std::string {
        using Field = std::decay_t<decltype(field)>;
        if constexpr (std::is_same_v<Field, std::string BrokerConfig::*>) return defaults.*field;
        if constexpr (std::is_same_v<Field, int64_t BrokerConfig::*>) return std::to_string(defaults.*field);
        if constexpr (std::is_same_v<Field, LogLevel BrokerConfig::*>) return log_level_name(defaults.*field);
        return "";
      },
      setting.field);
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
      SINDRI_TRY(number, parse_integer(text, variable));
      value = Value(number);
    }
    if (auto status = apply_setting(config, setting, value, variable); !status.ok()) return status;
  }
  return Ok{};
}

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
  return Ok{};
}

Result<ListenAddress> parse_listen_address(const std::string& text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    return make_error("listen address must be HOST:PORT, got \"" + text + "\"");
  }
  std::string host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  auto port = parse_integer(std::string_view(text).substr(colon + 1), "listen port");
  if (!port.ok() || *port < 0 || *port > 65535) {
    return make_error("listen address must end in a port from 0 to 65535, got \"" + text + "\"");
  }
  return ListenAddress{std::move(host), static_cast<uint16_t>(*port)};
}

}  // namespace sindri::broker
