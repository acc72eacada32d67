// The broker's migrations on a database that already holds data: migration 3
// moves the target-state generation into shards without losing its value;
// migration 4 gives every agent registration an id of its own; migration 5
// keys provenance by its object's sequence id and keeps every row;
// migration 10 starts each agent's target history from its targets and the
// stacks of the objects it reported on.

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "broker/db/tables.hpp"
#include "store/migrations.hpp"
#include "support/test_postgres.hpp"

namespace sindri::broker {
namespace {

namespace fs = std::filesystem;

int64_t single_int(store::Database& db, const std::string& sql) {
  int64_t value = -1;
  auto read = db.read([&](store::Connection& connection) -> store::DbStatus {
    auto rows = connection.query(sql);
    if (!rows.ok()) return std::move(rows).error();
    value = rows->rows.at(0).at(0).get_int();
    return Ok{};
  });
  EXPECT_TRUE(read.ok()) << sql << ": " << read.error().message;
  return value;
}

// Runs `sql`, one statement or several, in a write transaction.
store::DbStatus write_sql(store::Database& db, const std::string& sql) {
  return db.write([&](store::Connection& connection) { return connection.execute_script(sql); });
}

// Every row a query reads, each cell as text.
std::vector<std::vector<std::string>> text_rows(store::Database& db, const std::string& sql) {
  std::vector<std::vector<std::string>> rows;
  auto read = db.read([&](store::Connection& connection) -> store::DbStatus {
    auto found = connection.query(sql);
    if (!found.ok()) return std::move(found).error();
    for (const auto& row : found->rows) {
      std::vector<std::string>& cells = rows.emplace_back();
      for (const auto& cell : row) cells.emplace_back(cell.get_string());
    }
    return Ok{};
  });
  EXPECT_TRUE(read.ok()) << sql << ": " << read.error().message;
  return rows;
}

void carries_the_generation_over(store::Database& db) {
  const auto all = broker_migrations();
  ASSERT_TRUE(store::migrate(db, all.first(2)).ok());
  ASSERT_TRUE(write_sql(db, "UPDATE broker_state SET generation = 41 WHERE id = 1").ok());

  auto applied = store::migrate(db, all.first(3));
  ASSERT_TRUE(applied.ok()) << applied.error().message;
  EXPECT_EQ(*applied, 1);
  EXPECT_EQ(single_int(db, "SELECT COUNT(*) FROM target_state_generations"), kTargetStateShards);
  EXPECT_EQ(single_int(db, "SELECT CAST(SUM(generation) AS BIGINT) FROM target_state_generations"), 41);
  // The old counter is gone, so nothing can read a value that no longer moves.
  auto old_column = db.read([](store::Connection& connection) -> store::DbStatus {
    auto rows = connection.query("SELECT generation FROM broker_state");
    if (!rows.ok()) return std::move(rows).error();
    return Ok{};
  });
  EXPECT_FALSE(old_column.ok());
}

void gives_registrations_ids(store::Database& db) {
  const auto all = broker_migrations();
  ASSERT_TRUE(store::migrate(db, all.first(3)).ok());
  ASSERT_TRUE(write_sql(db,
                        "INSERT INTO generators (id, name, created_at, updated_at) VALUES "
                        "('g1', 'one', 't', 't'), ('g2', 'two', 't', 't');"
                        "INSERT INTO agents (id, name, cluster_name, created_at, updated_at) VALUES "
                        "('a1', 'agent', 'c', 't', 't');"
                        "INSERT INTO agent_generators (agent_id, generator_id, created_at) VALUES "
                        "('a1', 'g1', 't'), ('a1', 'g2', 't');")
                  .ok());

  auto applied = store::migrate(db, all.first(4));
  ASSERT_TRUE(applied.ok()) << applied.error().message;
  EXPECT_EQ(*applied, 1);
  std::set<std::string> ids;
  for (const auto& row : text_rows(db, "SELECT id FROM agent_generators")) ids.insert(row.at(0));
  ASSERT_EQ(ids.size(), 2u);
  const std::regex uuid_v4("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  for (const std::string& id : ids) EXPECT_TRUE(std::regex_match(id, uuid_v4)) << id;
}

void keys_provenance_by_sequence(store::Database& db) {
  const auto all = broker_migrations();
  ASSERT_TRUE(store::migrate(db, all.first(4)).ok());
  ASSERT_TRUE(write_sql(db,
                        "INSERT INTO generators (id, name, created_at, updated_at) VALUES ('g1', 'one', 't', 't');"
                        "INSERT INTO stacks (id, generator_id, name, created_at, updated_at) VALUES "
                        "('s1', 'g1', 'stack', 't', 't');"
                        "INSERT INTO deployment_objects (id, stack_id, yaml_content, yaml_checksum, submitted_at, "
                        "created_at, updated_at) VALUES ('o1', 's1', 'a: 1', 'c1', 't', 't', 't'), "
                        "('o2', 's1', 'a: 2', 'c2', 't', 't', 't'), ('o3', 's1', 'a: 3', 'c3', 't', 't', 't');"
                        "INSERT INTO stack_templates (id, generator_id, name, version, template_content, "
                        "parameters_schema, checksum, created_at, updated_at) VALUES "
                        "('t1', 'g1', 'tpl', 1, 'a: {{ a }}', '{}', 'c', 't', 't');"
                        "INSERT INTO rendered_deployment_objects (id, deployment_object_id, template_id, "
                        "template_version, template_parameters, created_at) VALUES "
                        "('p1', 'o1', 't1', 1, '{\"a\":1}', 't'), ('p3', 'o3', 't1', 1, '{\"a\":3}', 't');")
                  .ok());

  auto applied = store::migrate(db, all.first(5));
  ASSERT_TRUE(applied.ok()) << applied.error().message;
  EXPECT_EQ(*applied, 1);
  const auto rows = text_rows(db,
                              "SELECT d.id, r.template_id, r.template_parameters FROM rendered_deployment_objects r "
                              "JOIN deployment_objects d ON d.sequence_id = r.deployment_object_sequence_id "
                              "ORDER BY d.sequence_id");
  EXPECT_EQ(rows, (std::vector<std::vector<std::string>>{{"o1", "t1", "{\"a\":1}"}, {"o3", "t1", "{\"a\":3}"}}));
  // Still one provenance per object, and only for objects that exist.
  for (const char* duplicate : {"(1, 't1', 1, '{}', 't')", "(99, 't1', 1, '{}', 't')"}) {
    EXPECT_FALSE(write_sql(db, std::string("INSERT INTO rendered_deployment_objects (deployment_object_sequence_id, "
                                           "template_id, template_version, template_parameters, created_at) VALUES ") +
                                   duplicate)
                     .ok())
        << duplicate;
  }
  // A broker of an earlier version names the columns that went: its insert
  // fails instead of landing on whichever object has the next sequence id.
  EXPECT_FALSE(write_sql(db,
                         "INSERT INTO rendered_deployment_objects (id, deployment_object_id, template_id, "
                         "template_version, template_parameters, created_at) VALUES ('p2', 'o2', 't1', 1, '{}', 't')")
                   .ok());
}

void starts_the_target_history(store::Database& db) {
  const auto all = broker_migrations();
  ASSERT_TRUE(store::migrate(db, all.first(9)).ok());
  ASSERT_TRUE(write_sql(db,
                        "INSERT INTO generators (id, name, created_at, updated_at) VALUES ('g1', 'one', 't', 't');"
                        "INSERT INTO stacks (id, generator_id, name, created_at, updated_at) VALUES "
                        "('s1', 'g1', 'targeted', 't', 't'), ('s2', 'g1', 'left', 't', 't'), "
                        "('s3', 'g1', 'never', 't', 't');"
                        "INSERT INTO deployment_objects (id, stack_id, yaml_content, yaml_checksum, submitted_at, "
                        "created_at, updated_at) VALUES ('o1', 's1', 'a: 1', 'c1', 't', 't', 't'), "
                        "('o2', 's2', 'a: 2', 'c2', 't', 't', 't'), ('o3', 's2', 'a: 3', 'c3', 't', 't', 't');"
                        "INSERT INTO agents (id, name, cluster_name, created_at, updated_at) VALUES "
                        "('a1', 'agent', 'c', 't', 't');"
                        "INSERT INTO agent_targets (id, agent_id, stack_id) VALUES ('t1', 'a1', 's1');"
                        "INSERT INTO agent_events (id, agent_id, deployment_object_id, event_type, status, "
                        "created_at, updated_at) VALUES ('e1', 'a1', 'o1', 'DEPLOY', 'SUCCESS', 't', 't'), "
                        "('e2', 'a1', 'o2', 'DEPLOY', 'SUCCESS', 't', 't'), "
                        "('e3', 'a1', 'o3', 'DEPLOY', 'SUCCESS', 't', 't');")
                  .ok());

  auto applied = store::migrate(db, all.first(10));
  ASSERT_TRUE(applied.ok()) << applied.error().message;
  EXPECT_EQ(*applied, 1);
  EXPECT_EQ(text_rows(db, "SELECT agent_id, stack_id FROM agent_target_history ORDER BY stack_id"),
            (std::vector<std::vector<std::string>>{{"a1", "s1"}, {"a1", "s2"}}));
}


// A fresh database for each check: a file on SQLite, a tenant schema on
// PostgreSQL (dropped afterwards).
void on_sqlite(void (*check)(store::Database&)) {
  const fs::path path = fs::temp_directory_path() / ("sindri-schema-" + std::to_string(getpid()) + ".db");
  fs::remove(path);
  {
    auto db = store::Database::open("sqlite://" + path.string());
    ASSERT_TRUE(db.ok()) << db.error().message;
    check(**db);
  }
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path.string() + suffix);
}

void on_postgres(void (*check)(store::Database&)) {
  const std::optional<sindri_test::TestPostgres> server = sindri_test::test_postgres();
  if (!server) {
    ADD_FAILURE() << sindri_test::kNoTestPostgres;
    return;
  }
  store::OpenOptions options;
  options.pool_size = 2;
  options.tenant_schema = "schema_test_" + std::to_string(std::random_device{}()) + "_" + std::to_string(getpid());
  auto db = store::Database::open(server->url, options);
  ASSERT_TRUE(db.ok()) << db.error().message;
  check(**db);
  EXPECT_TRUE((*db)->write([&](store::Connection& connection) {
                   return connection.execute_script("DROP SCHEMA \"" + options.tenant_schema + "\" CASCADE");
                 }).ok());
}

TEST(BrokerSchema, TargetStateShardsKeepTheGenerationOnSqlite) { on_sqlite(carries_the_generation_over); }
TEST(BrokerSchema, TargetStateShardsKeepTheGenerationOnPostgres) { on_postgres(carries_the_generation_over); }
TEST(BrokerSchema, RegistrationsGetIdsOnSqlite) { on_sqlite(gives_registrations_ids); }
TEST(BrokerSchema, RegistrationsGetIdsOnPostgres) { on_postgres(gives_registrations_ids); }
TEST(BrokerSchema, ProvenanceIsKeyedBySequenceOnSqlite) { on_sqlite(keys_provenance_by_sequence); }
TEST(BrokerSchema, ProvenanceIsKeyedBySequenceOnPostgres) { on_postgres(keys_provenance_by_sequence); }
TEST(BrokerSchema, TargetHistoryStartsFromTargetsAndEventsOnSqlite) { on_sqlite(starts_the_target_history); }
TEST(BrokerSchema, TargetHistoryStartsFromTargetsAndEventsOnPostgres) { on_postgres(starts_the_target_history); }

}  // namespace
}  // namespace sindri::broker
