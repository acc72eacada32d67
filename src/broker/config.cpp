#include "broker/config.hpp"

#include <charconv>

#include "value/file_text.hpp"
#include "value/yaml.hpp"

namespace sindri::broker {
namespace {

Result<int64_t> parse_integer(std::string_view text, std::string_view setting) {
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    return make_error(std::string(setting) + ": expected an integer, got \"" + std::string(text) + "\"");
  }
  return value;
}

Status set_log_level(BrokerConfig& config, std::string_view text, std::string_view setting) {
  auto level = parse_log_level(text);
  if (!level) {
    return make_error(std::string(setting) + ": expected debug, info, warn or error, got \"" + std::string(text) + "\"");
  }
  config.log_level = *level;
  return Ok{};
}

// Reads one scalar setting of the file into its field.
Status read_setting(BrokerConfig& config, const std::string& name, const Value& value, const std::string& where) {
  auto string_value = [&](std::string& out) -> Status {
    if (!value.is_string()) return make_error(where + ": expected a string, got " + value.kind_name());
    out = std::string(value.get_string());
    return Ok{};
  };
  auto integer_value = [&](int64_t& out) -> Status {
    if (!value.is_int()) return make_error(where + ": expected an integer, got " + value.kind_name());
    out = value.get_int();
    return Ok{};
  };
  if (name == "listen") return string_value(config.listen);
  if (name == "database.url") return string_value(config.database_url);
  if (name == "database.schema") return string_value(config.database_schema);
  if (name == "database.pool_size") return integer_value(config.database_pool_size);
  if (name == "admin_pak_file") return string_value(config.admin_pak_file);
  if (name == "threads") return integer_value(config.threads);
  if (name == "body_limit") return integer_value(config.body_limit);
  if (name == "template_targets_interval") return integer_value(config.template_targets_interval);
  if (name == "peer_change_delay_ms") return integer_value(config.peer_change_delay_ms);
  if (name == "shutdown_grace") return integer_value(config.shutdown_grace);
  if (name == "log.level") {
    std::string level;
    if (auto status = string_value(level); !status.ok()) return status;
    return set_log_level(config, level, where);
  }
  return make_error(where + ": unknown setting");
}

Status read_section(BrokerConfig& config, const Value& section, const std::string& prefix, const std::string& path) {
  for (const Member& member : section.get_object()) {
    const std::string name = prefix + std::string(member.key.get_string());
    const std::string where = path + ": " + name;
    if (member.value.is_object()) {
      if (name != "database" && name != "log") return make_error(where + ": unknown section");
      if (auto status = read_section(config, member.value, name + ".", path); !status.ok()) return status;
      continue;
    }
    if (auto status = read_setting(config, name, member.value, where); !status.ok()) return status;
  }
  return Ok{};
}

}  // namespace

Status apply_config_file(BrokerConfig& config, const std::string& path) {
  auto text = read_file_text(path, "configuration file");
  if (!text.ok()) return text.error();
  auto parsed = parse_yaml(*text, path);
  if (!parsed.ok()) return make_error("invalid configuration file: " + parsed.error().describe());
  if (parsed->is_null()) return Ok{};
  if (!parsed->is_object()) return make_error(path + ": the configuration must be a mapping of settings");
  return read_section(config, *parsed, "", path);
}

Status apply_environment(BrokerConfig& config, const std::function<const char*(const char*)>& lookup) {
  struct TextVariable {
    const char* name;
    std::string* field;
  };
  for (const TextVariable& variable : {TextVariable{"SINDRI_LISTEN", &config.listen},
                                       TextVariable{"SINDRI_DATABASE_URL", &config.database_url},
                                       TextVariable{"SINDRI_DATABASE_SCHEMA", &config.database_schema},
                                       TextVariable{"SINDRI_ADMIN_PAK_FILE", &config.admin_pak_file}}) {
    if (const char* value = lookup(variable.name)) *variable.field = value;
  }
  struct IntegerVariable {
    const char* name;
    int64_t* field;
  };
  for (const IntegerVariable& variable : {IntegerVariable{"SINDRI_DATABASE_POOL_SIZE", &config.database_pool_size},
                                          IntegerVariable{"SINDRI_THREADS", &config.threads},
                                          IntegerVariable{"SINDRI_BODY_LIMIT", &config.body_limit},
                                          IntegerVariable{"SINDRI_TEMPLATE_TARGETS_INTERVAL",
                                                          &config.template_targets_interval},
                                          IntegerVariable{"SINDRI_PEER_CHANGE_DELAY_MS", &config.peer_change_delay_ms},
                                          IntegerVariable{"SINDRI_SHUTDOWN_GRACE", &config.shutdown_grace}}) {
    if (const char* value = lookup(variable.name)) {
      auto parsed = parse_integer(value, variable.name);
      if (!parsed.ok()) return parsed.error();
      *variable.field = *parsed;
    }
  }
  if (const char* level = lookup("SINDRI_LOG_LEVEL")) return set_log_level(config, level, "SINDRI_LOG_LEVEL");
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
