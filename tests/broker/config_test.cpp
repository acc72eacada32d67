// The broker's settings: defaults, file, environment and their errors.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string_view>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "broker/config.hpp"

namespace sindri::broker {
namespace {

namespace fs = std::filesystem;

fs::path write_temp(const std::string& name, const std::string& text) {
  const fs::path path = fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
  std::ofstream(path) << text;
  return path;
}

TEST(BrokerConfig, DefaultsFollowTheSeed) {
  BrokerConfig config;
  EXPECT_EQ(config.database_url, "sqlite://./sindri.db");
  EXPECT_EQ(config.database_pool_size, 50);
  EXPECT_EQ(config.admin_pak_file, "./admin.pak");
  EXPECT_EQ(config.peer_change_delay_ms, 1);
  EXPECT_EQ(config.shutdown_grace, 10);
  EXPECT_TRUE(validate_config(config).ok());
}

TEST(BrokerConfig, FileThenEnvironmentOverride) {
  const fs::path file = write_temp("sindri-config.yaml",
                                   "listen: 0.0.0.0:9000\n"
                                   "database:\n  url: postgres://db/sindri\n  schema: tenant_a\n  pool_size: 20\n"
                                   "threads: 8\ntemplate_targets_interval: 30\npeer_change_delay_ms: 0\nshutdown_grace: 0\n"
                                   "log:\n  level: debug\n");
  BrokerConfig config;
  ASSERT_TRUE(apply_config_file(config, file.string()).ok());
  EXPECT_EQ(config.listen, "0.0.0.0:9000");
  EXPECT_EQ(config.database_url, "postgres://db/sindri");
  EXPECT_EQ(config.database_schema, "tenant_a");
  EXPECT_EQ(config.database_pool_size, 20);
  EXPECT_EQ(config.threads, 8);
  EXPECT_EQ(config.template_targets_interval, 30);
  EXPECT_EQ(config.peer_change_delay_ms, 0);
  EXPECT_EQ(config.shutdown_grace, 0);
  EXPECT_EQ(config.log_level, LogLevel::Debug);

  const std::map<std::string, std::string> environment = {{"SINDRI_DATABASE_POOL_SIZE", "5"},
                                                           {"SINDRI_LOG_LEVEL", "warn"},
                                                           {"SINDRI_TEMPLATE_TARGETS_INTERVAL", "5"},
                                                           {"SINDRI_PEER_CHANGE_DELAY_MS", "250"},
                                                           {"SINDRI_SHUTDOWN_GRACE", "30"}};
  ASSERT_TRUE(apply_environment(config, [&](const char* name) -> const char* {
                auto it = environment.find(name);
                return it == environment.end() ? nullptr : it->second.c_str();
              }).ok());
  EXPECT_EQ(config.database_pool_size, 5);
  EXPECT_EQ(config.log_level, LogLevel::Warn);
  EXPECT_EQ(config.template_targets_interval, 5);
  EXPECT_EQ(config.peer_change_delay_ms, 250);
  EXPECT_EQ(config.shutdown_grace, 30);
  EXPECT_EQ(config.threads, 8);
  fs::remove(file);
}

TEST(BrokerConfig, ErrorsNameTheFileAndSetting) {
  const fs::path typo = write_temp("sindri-typo.yaml", "database:\n  ulr: sqlite://x\n");
  BrokerConfig config;
  auto status = apply_config_file(config, typo.string());
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("database.ulr: unknown setting"), std::string::npos) << status.error().message;
  EXPECT_NE(status.error().message.find(typo.string()), std::string::npos);

  const fs::path wrong_type = write_temp("sindri-type.yaml", "threads: many\n");
  status = apply_config_file(config, wrong_type.string());
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("threads: expected an integer"), std::string::npos);

  const fs::path broken = write_temp("sindri-broken.yaml", "listen: [\n");
  status = apply_config_file(config, broken.string());
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("invalid configuration file"), std::string::npos);

  status = apply_config_file(config, "/nonexistent/sindri.yaml");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().message,
            "cannot read configuration file /nonexistent/sindri.yaml: No such file or directory");
  // Read as a file, a directory would be an empty configuration.
  status = apply_config_file(config, fs::temp_directory_path().string());
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("is a directory"), std::string::npos) << status.error().message;
  auto environment = apply_environment(config, [](const char* name) -> const char* {
    return std::string(name) == "SINDRI_THREADS" ? "4x" : nullptr;
  });
  ASSERT_FALSE(environment.ok());
  EXPECT_NE(environment.error().message.find("SINDRI_THREADS"), std::string::npos);
  for (const fs::path& path : {typo, wrong_type, broken}) fs::remove(path);
}

TEST(BrokerConfig, ValidationCatchesBadValues) {
  BrokerConfig config;
  config.listen = "nowhere";
  EXPECT_FALSE(validate_config(config).ok());
  config.listen = "127.0.0.1:70000";
  EXPECT_FALSE(validate_config(config).ok());
  config.listen = "[::1]:8080";
  EXPECT_TRUE(validate_config(config).ok());
  EXPECT_EQ(parse_listen_address(config.listen)->host, "::1");
  config.threads = 0;
  EXPECT_FALSE(validate_config(config).ok());
  config.threads = 4;
  config.body_limit = 10;
  EXPECT_FALSE(validate_config(config).ok());
  config.body_limit = 1 << 20;
  config.template_targets_interval = 0;
  EXPECT_FALSE(validate_config(config).ok());
  config.template_targets_interval = 60;
  config.peer_change_delay_ms = -1;
  auto negative = validate_config(config);
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.error().message.find("peer change delay"), std::string::npos) << negative.error().message;
  config.peer_change_delay_ms = 60001;
  EXPECT_FALSE(validate_config(config).ok());
  config.peer_change_delay_ms = 60000;
  EXPECT_TRUE(validate_config(config).ok());
  config.shutdown_grace = -1;
  auto negative_grace = validate_config(config);
  ASSERT_FALSE(negative_grace.ok());
  EXPECT_NE(negative_grace.error().message.find("shutdown grace"), std::string::npos)
      << negative_grace.error().message;
  config.shutdown_grace = 3601;
  EXPECT_FALSE(validate_config(config).ok());
  config.shutdown_grace = 3600;
  EXPECT_TRUE(validate_config(config).ok());
}

// Listening anywhere else without TLS is warned about: PAKs would cross the
// network in clear.
TEST(BrokerConfig, LoopbackAddressesAreTheOnesOnlyThisMachineReaches) {
  for (const char* listen : {"127.0.0.1:8080", "127.1.2.3:0", "[::1]:8080", "localhost:8080"}) {
    EXPECT_TRUE(parse_listen_address(listen)->is_loopback()) << listen;
  }
  for (const char* listen : {"0.0.0.0:8080", "[::]:8080", "10.0.0.7:8080", "128.0.0.1:8080", "broker.example:443",
                             "[::ffff:10.0.0.1]:8080"}) {
    EXPECT_FALSE(parse_listen_address(listen)->is_loopback()) << listen;
  }
}

// Intervals take fractions of a second, so that tests run passes quickly;
// lists come as YAML sequences or comma-separated text.
TEST(BrokerConfig, DurationsTakeFractionsAndListsTakeEitherForm) {
  const fs::path file = write_temp("sindri-durations.yaml",
                                   "webhooks:\n  delivery_interval: 0.05\n"
                                   "cors:\n  allowed_origins: [\"https://a.example\", \"http://b.example:8080\"]\n");
  BrokerConfig config;
  ASSERT_TRUE(apply_config_file(config, file.string()).ok());
  EXPECT_DOUBLE_EQ(config.webhooks_delivery_interval, 0.05);
  EXPECT_EQ(config.cors_allowed_origins, (std::vector<std::string>{"https://a.example", "http://b.example:8080"}));
  EXPECT_TRUE(validate_config(config).ok());
  fs::remove(file);

  const std::map<std::string, std::string> variables = {{"SINDRI_WORK_ORDERS_MAINTENANCE_INTERVAL", "0.25"},
                                                        {"SINDRI_CORS_ALLOWED_ORIGINS", "https://a.example, *"}};
  ASSERT_TRUE(apply_environment(config, [&](const char* name) -> const char* {
                auto found = variables.find(name);
                return found == variables.end() ? nullptr : found->second.c_str();
              }).ok());
  EXPECT_DOUBLE_EQ(config.work_orders_maintenance_interval, 0.25);
  EXPECT_EQ(config.cors_allowed_origins, (std::vector<std::string>{"https://a.example", "*"}));

  auto negative = apply_environment(config, [](const char* name) -> const char* {
    return std::string_view(name) == "SINDRI_WEBHOOKS_DELIVERY_INTERVAL" ? "-1" : nullptr;
  });
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.error().message.find("SINDRI_WEBHOOKS_DELIVERY_INTERVAL"), std::string::npos);
  config.webhooks_delivery_interval = 0;
  auto spinning = validate_config(config);
  ASSERT_FALSE(spinning.ok());
  EXPECT_NE(spinning.error().message.find("webhooks.delivery_interval"), std::string::npos);
}

TEST(BrokerConfig, ValidationCatchesBadPassAndWebhookSettings) {
  auto refused = [](auto change, std::string_view named) {
    BrokerConfig config;
    change(config);
    auto status = validate_config(config);
    if (status.ok()) return std::string("accepted");
    return status.error().message.find(named) == std::string::npos ? status.error().message : std::string();
  };
  EXPECT_EQ(refused([](BrokerConfig& c) { c.webhooks_encryption_key = "abc"; }, "webhooks.encryption_key"), "");
  EXPECT_EQ(refused([](BrokerConfig& c) { c.webhooks_encryption_key = std::string(64, 'g'); },
                    "webhooks.encryption_key"),
            "");
  EXPECT_EQ(refused([](BrokerConfig& c) { c.webhooks_delivery_batch_size = 0; }, "delivery_batch_size"), "");
  EXPECT_EQ(refused([](BrokerConfig& c) { c.audit_retention_days = 0; }, "audit.retention_days"), "");
  EXPECT_EQ(refused([](BrokerConfig& c) { c.cors_max_age_seconds = 86401; }, "cors.max_age_seconds"), "");
  EXPECT_EQ(refused([](BrokerConfig& c) { c.cors_allowed_origins = {"example.com"}; }, "cors.allowed_origins"), "");
  BrokerConfig good;
  good.webhooks_encryption_key = std::string(32, 'a') + std::string(32, 'F');
  EXPECT_TRUE(validate_config(good).ok());
}

TEST(BrokerConfig, LimitsAndTlsAreReadFromFileVariableAndFlagLayers) {
  const fs::path file = write_temp("sindri-limits.yaml",
                                   "http:\n  max_connections: 500\n  header_timeout: 0.25\n  min_body_rate: 0\n"
                                   "  idle_timeout: 0\n  max_connections_per_identity: 0\n"
                                   "render:\n  threads: 3\n  per_identity_limit: 2\n  queue_wait: 0\n"
                                   "  max_steps: 0\n  max_duration: 0\n  max_output_bytes: 0\n"
                                   "tls:\n  cert_file: /etc/sindri/tls.crt\n  key_file: /etc/sindri/tls.key\n"
                                   "body_limit: 0\n");
  BrokerConfig config;
  ASSERT_TRUE(apply_config_file(config, file.string()).ok());
  fs::remove(file);
  EXPECT_EQ(config.http_max_connections, 500);
  EXPECT_EQ(config.http_max_unfinished_connections, 1000);
  EXPECT_DOUBLE_EQ(config.http_header_timeout, 0.25);
  EXPECT_EQ(config.http_min_body_rate, 0);
  EXPECT_DOUBLE_EQ(config.http_idle_timeout, 0);
  EXPECT_EQ(config.http_max_connections_per_identity, 0);
  EXPECT_EQ(config.render_threads, 3);
  EXPECT_EQ(config.render_per_identity_limit, 2);
  EXPECT_DOUBLE_EQ(config.render_queue_wait, 0);
  EXPECT_EQ(config.render_max_steps, 0);
  EXPECT_DOUBLE_EQ(config.render_max_duration, 0);
  EXPECT_EQ(config.render_max_output_bytes, 0);
  EXPECT_EQ(config.body_limit, 0);
  EXPECT_EQ(config.tls_cert_file, "/etc/sindri/tls.crt");
  // 0 means none for every limit that says so.
  EXPECT_TRUE(validate_config(config).ok()) << validate_config(config).error().message;

  const std::map<std::string, std::string> variables = {{"SINDRI_HTTP_HEADER_TIMEOUT", "2.5"},
                                                        {"SINDRI_RENDER_QUEUE_LIMIT", "8"},
                                                        {"SINDRI_HTTP_IDLE_TIMEOUT", "0.5"},
                                                        {"SINDRI_HTTP_MAX_CONNECTIONS_PER_IDENTITY", "4"},
                                                        {"SINDRI_TLS_CLIENT_CA_FILE", "/etc/sindri/ca.crt"},
                                                        {"SINDRI_TLS_RELOAD_CHECK_INTERVAL", "0.05"}};
  ASSERT_TRUE(apply_environment(config, [&](const char* name) -> const char* {
                auto found = variables.find(name);
                return found == variables.end() ? nullptr : found->second.c_str();
              }).ok());
  EXPECT_DOUBLE_EQ(config.http_header_timeout, 2.5);
  EXPECT_EQ(config.render_queue_limit, 8);
  EXPECT_DOUBLE_EQ(config.http_idle_timeout, 0.5);
  EXPECT_EQ(config.http_max_connections_per_identity, 4);
  EXPECT_EQ(config.tls_client_ca_file, "/etc/sindri/ca.crt");
  EXPECT_DOUBLE_EQ(config.tls_reload_check_interval, 0.05);
  EXPECT_TRUE(validate_config(config).ok());

  auto bad_variable = apply_environment(config, [](const char* name) -> const char* {
    return std::string_view(name) == "SINDRI_HTTP_HEADER_TIMEOUT" ? "ten" : nullptr;
  });
  ASSERT_FALSE(bad_variable.ok());
  EXPECT_NE(bad_variable.error().message.find("SINDRI_HTTP_HEADER_TIMEOUT: expected a number of seconds"),
            std::string::npos)
      << bad_variable.error().message;
}

TEST(BrokerConfig, LimitsOutOfRangeAreRefusedByName) {
  auto message = [](auto change) {
    BrokerConfig config;
    change(config);
    const Status status = validate_config(config);
    return status.ok() ? std::string("accepted") : status.error().message;
  };
  EXPECT_EQ(message([](BrokerConfig& c) { c.http_max_connections = -1; }),
            "http.max_connections must be 0 (none) or more, got -1");
  EXPECT_EQ(message([](BrokerConfig& c) { c.http_max_unfinished_connections = -5; }),
            "http.max_unfinished_connections must be 0 (none) or more, got -5");
  EXPECT_EQ(message([](BrokerConfig& c) { c.http_min_body_rate = -1; }),
            "http.min_body_rate must be 0 (none) or more, got -1");
  EXPECT_EQ(message([](BrokerConfig& c) { c.http_max_connections_per_identity = -1; }),
            "http.max_connections_per_identity must be 0 (none) or more, got -1");
  EXPECT_EQ(message([](BrokerConfig& c) { c.http_idle_timeout = -1; }),
            "http.idle_timeout must be at least 0.001 seconds, got -1");
  EXPECT_EQ(message([](BrokerConfig& c) { c.render_threads = 0; }), "render.threads must be between 1 and 256, got 0");
  EXPECT_EQ(message([](BrokerConfig& c) { c.render_threads = 257; }),
            "render.threads must be between 1 and 256, got 257");
  EXPECT_EQ(message([](BrokerConfig& c) { c.render_per_identity_limit = 0; }),
            "render.per_identity_limit must be between 1 and 1000, got 0");
  EXPECT_EQ(message([](BrokerConfig& c) { c.render_queue_limit = 0; }),
            "render.queue_limit must be between 1 and 100000, got 0");
  EXPECT_EQ(message([](BrokerConfig& c) { c.render_max_steps = -1; }),
            "render.max_steps must be 0 (none) or more, got -1");
  EXPECT_EQ(message([](BrokerConfig& c) { c.render_max_output_bytes = -1; }),
            "render.max_output_bytes must be 0 (none) or more, got -1");
  EXPECT_EQ(message([](BrokerConfig& c) { c.body_limit = 1023; }),
            "body limit must be 0 (none) or at least 1024 bytes, got 1023");
  EXPECT_EQ(message([](BrokerConfig& c) { c.http_header_timeout = 0.0001; }),
            "http.header_timeout must be at least 0.001 seconds, got 0.0001");
  EXPECT_TRUE(message([](BrokerConfig& c) { c.render_max_duration = 1e9; })
                  .starts_with("render.max_duration must be at most"));
  // A check every 0 s would spin.
  EXPECT_EQ(message([](BrokerConfig& c) { c.tls_reload_check_interval = 0; }),
            "tls.reload_check_interval must be at least 0.001 seconds, got 0");
}

TEST(BrokerConfig, TlsFilesComeTogether) {
  auto message = [](std::string cert, std::string key, std::string client_ca) {
    BrokerConfig config;
    config.tls_cert_file = std::move(cert);
    config.tls_key_file = std::move(key);
    config.tls_client_ca_file = std::move(client_ca);
    const Status status = validate_config(config);
    return status.ok() ? std::string("accepted") : status.error().message;
  };
  EXPECT_EQ(message("", "", ""), "accepted");
  EXPECT_EQ(message("tls.crt", "tls.key", ""), "accepted");
  EXPECT_EQ(message("tls.crt", "tls.key", "ca.crt"), "accepted");
  EXPECT_EQ(message("tls.crt", "", ""),
            "tls.cert_file is set but tls.key_file is not: HTTPS needs the certificate's private key");
  EXPECT_EQ(message("", "tls.key", ""),
            "tls.key_file is set but tls.cert_file is not: HTTPS needs the certificate as well");
  EXPECT_EQ(message("", "", "ca.crt"),
            "tls.client_ca_file is set but tls.cert_file is not: client certificates are checked only over HTTPS "
            "(set tls.cert_file and tls.key_file)");
}

// The server's limits and the TLS files are taken at start; the render
// pool reads its limits for each render.
TEST(BrokerConfig, RenderLimitsReloadAndServerLimitsNeedARestart) {
  for (const Setting& setting : settings()) {
    if (setting.key.starts_with("http.") || setting.key.starts_with("tls.") || setting.key == "render.threads") {
      EXPECT_FALSE(setting.reloadable) << setting.key;
    } else if (setting.key.starts_with("render.")) {
      EXPECT_TRUE(setting.reloadable) << setting.key;
    }
  }
}

// Configurations, scripts and deployments name these; a rename breaks them.
TEST(BrokerConfig, EverySettingKeepsItsNames) {
  struct Names {
    std::string_view key, variable, flag;
    bool operator==(const Names&) const = default;
  };
  const std::vector<Names> expected = {
      {"", "SINDRI_CONFIG_FILE", "--config"},
      {"listen", "SINDRI_LISTEN", "--listen"},
      {"database.url", "SINDRI_DATABASE_URL", "--database"},
      {"database.schema", "SINDRI_DATABASE_SCHEMA", "--database-schema"},
      {"database.pool_size", "SINDRI_DATABASE_POOL_SIZE", "--database-pool-size"},
      {"admin_pak_file", "SINDRI_ADMIN_PAK_FILE", "--admin-pak-file"},
      {"threads", "SINDRI_THREADS", "--threads"},
      {"body_limit", "SINDRI_BODY_LIMIT", "--body-limit"},
      {"template_targets_interval", "SINDRI_TEMPLATE_TARGETS_INTERVAL", ""},
      {"peer_change_delay_ms", "SINDRI_PEER_CHANGE_DELAY_MS", "--peer-change-delay-ms"},
      {"shutdown_grace", "SINDRI_SHUTDOWN_GRACE", "--shutdown-grace"},
      {"log.level", "SINDRI_LOG_LEVEL", "--log-level"},
  };
  std::vector<Names> actual;
  for (const Setting& setting : settings()) actual.push_back({setting.key, setting.variable, setting.flag});
  // Settings added later follow the naming rule, which another test checks.
  ASSERT_GE(actual.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_TRUE(actual[i] == expected[i]) << actual[i].variable << " was " << expected[i].variable;
  }
}

bool differs_from_default(const BrokerConfig& config, const Setting& setting) {
  static const BrokerConfig defaults;
  return std::visit(
      [&](const auto& field) {
        if constexpr (std::is_same_v<std::decay_t<decltype(field)>, std::monostate>) {
          return false;
        } else {
          return !(config.*field == defaults.*field);
        }
      },
      setting.field);
}

// Each setting read from its variable and from its key, as the table names them.
TEST(BrokerConfig, EverySettingIsReadFromItsVariableAndItsKey) {
  for (const Setting& setting : settings()) {
    if (setting.names_the_file()) continue;
    const std::string text = setting.is_number()                          ? "17"
                             : setting.key == "log.level"                  ? "error"
                             : setting.key == "webhooks.encryption_key"    ? std::string(64, 'a')
                             : setting.is_list()                            ? "https://a.example"
                                                                            : "x:1";
    BrokerConfig from_environment;
    ASSERT_TRUE(apply_environment(from_environment, [&](const char* name) -> const char* {
                  return name == setting.variable ? text.c_str() : nullptr;
                }).ok());
    EXPECT_TRUE(differs_from_default(from_environment, setting)) << setting.variable;

    const std::string key(setting.key);
    const std::string scalar = setting.is_number() ? text : "\"" + text + "\"";
    const size_t dot = key.find('.');
    const std::string yaml = dot == std::string::npos
                                 ? key + ": " + scalar + "\n"
                                 : key.substr(0, dot) + ":\n  " + key.substr(dot + 1) + ": " + scalar + "\n";
    const fs::path file = write_temp("sindri-one-setting.yaml", yaml);
    BrokerConfig from_file;
    const Status status = apply_config_file(from_file, file.string());
    EXPECT_TRUE(status.ok()) << setting.key << ": " << status.error().message;
    EXPECT_TRUE(differs_from_default(from_file, setting)) << setting.key;
    fs::remove(file);
  }
}

}  // namespace
}  // namespace sindri::broker
