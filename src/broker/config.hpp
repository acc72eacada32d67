#pragma once
// The broker's settings: defaults, then a configuration file (YAML or JSON),
// then SINDRI_* environment variables, then command-line flags, each layer
// overriding the one before. Names follow Brokkr's settings where it has one
// (database.url, database.schema, log.level).
//
//   listen: 127.0.0.1:8080        SINDRI_LISTEN
//   database:
//     url: sqlite://./sindri.db   SINDRI_DATABASE_URL
//     schema: tenant_a            SINDRI_DATABASE_SCHEMA (PostgreSQL multi-tenant mode)
//     pool_size: 50               SINDRI_DATABASE_POOL_SIZE
//   admin_pak_file: ./admin.pak   SINDRI_ADMIN_PAK_FILE
//   threads: 4                    SINDRI_THREADS (HTTP worker pool)
//   body_limit: 10485760          SINDRI_BODY_LIMIT (bytes)
//   template_targets_interval: 60 SINDRI_TEMPLATE_TARGETS_INTERVAL (seconds between
//                                 full recomputations of template targets)
//   shutdown_grace: 10            SINDRI_SHUTDOWN_GRACE (seconds a stop waits for requests
//                                 that have begun to arrive and answers being sent; a
//                                 second SIGTERM or SIGINT ends it at once)
//   peer_change_delay_ms: 1       SINDRI_PEER_CHANGE_DELAY_MS (how long a change made
//                                 through another broker sharing the database, a revoked
//                                 PAK included, may go unseen here; 0: not at all)
//   log:
//     level: info                 SINDRI_LOG_LEVEL (debug, info, warn, error)
//
// The file is named by --config or SINDRI_CONFIG_FILE.

#include <cstdint>
#include <functional>
#include <string>

#include "broker/log.hpp"
#include "value/result.hpp"

namespace sindri::broker {

struct BrokerConfig {
  std::string listen = "127.0.0.1:8080";
  std::string database_url = "sqlite://./sindri.db";
  std::string database_schema;
  int64_t database_pool_size = 50;
  std::string admin_pak_file = "./admin.pak";
  int64_t threads = 4;
  int64_t body_limit = 10 * 1024 * 1024;
  int64_t template_targets_interval = 60;
  int64_t shutdown_grace = 10;  // seconds
  // A read of the database's counters serves this broker's requests for this
  // long (a round trip per request on PostgreSQL otherwise); its own writes
  // are always seen at once.
  int64_t peer_change_delay_ms = 1;
  LogLevel log_level = LogLevel::Info;
};

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
};
Result<ListenAddress> parse_listen_address(const std::string& text);

}  // namespace sindri::broker
