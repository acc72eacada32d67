#include "store/migrations.hpp"

#include <algorithm>
#include <ctime>
#include <vector>

namespace sindri::store {

namespace {

// The advisory lock every broker takes before migrating: "sindrimg" in ASCII.
constexpr int64_t kMigrationLockKey = 0x73696e6472696d67;

std::string utc_now_rfc3339() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// On PostgreSQL, brokers starting together take turns; the lock is released
// with the transaction. SQLite's BEGIN IMMEDIATE already lets one writer in.
DbStatus take_migration_lock(Connection& conn) {
  if (conn.dialect() != Dialect::Postgres) return Ok{};
  DbResult<Rows> locked = conn.query("SELECT pg_advisory_xact_lock($1)", {Value(kMigrationLockKey)});
  if (!locked.ok()) return std::move(locked).error();
  return Ok{};
}

DbStatus create_table(Connection& conn) {
  if (DbStatus locked = take_migration_lock(conn); !locked.ok()) return locked;
  DbResult<Rows> created = conn.query(
      "CREATE TABLE IF NOT EXISTS schema_migrations ("
      "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)");
  if (!created.ok()) return std::move(created).error();
  return Ok{};
}

DbResult<std::vector<int64_t>> recorded_versions(Database& db) {
  std::vector<int64_t> versions;
  DbStatus read = db.read([&](Connection& conn) -> DbStatus {
    versions.clear();
    DbResult<Rows> rows = conn.query("SELECT version FROM schema_migrations ORDER BY version");
    if (!rows.ok()) return std::move(rows).error();
    for (const std::vector<Value>& row : rows->rows) versions.push_back(row[0].get_int());
    return Ok{};
  });
  if (!read.ok()) return std::move(read).error();
  return versions;
}

// Applies one migration and records it, unless another broker recorded it
// first. `applied` says which happened.
DbStatus apply(Connection& conn, const Migration& migration, bool& applied) {
  applied = false;
  if (DbStatus locked = take_migration_lock(conn); !locked.ok()) return locked;
  const Value version(migration.version);
  DbResult<Rows> found = conn.query("SELECT 1 FROM schema_migrations WHERE version = $1", {version});
  if (!found.ok()) return std::move(found).error();
  if (!found->empty()) return Ok{};
  const std::string_view sql = conn.dialect() == Dialect::Sqlite ? migration.sqlite_sql : migration.postgres_sql;
  if (DbStatus ran = conn.execute_script(sql); !ran.ok()) return ran;
  DbResult<Rows> recorded = conn.query("INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
                                       {version, Value(migration.name), Value(utc_now_rfc3339())});
  if (!recorded.ok()) return std::move(recorded).error();
  applied = true;
  return Ok{};
}

}  // namespace

DbResult<int> migrate(Database& db, std::span<const Migration> migrations) {
  for (size_t i = 1; i < migrations.size(); ++i) {
    if (migrations[i].version <= migrations[i - 1].version) {
      return DbError{DbError::Kind::Invalid,
                     "migrations must be listed by increasing version: " + std::to_string(migrations[i].version) +
                         " follows " + std::to_string(migrations[i - 1].version)};
    }
  }
  if (DbStatus created = db.write(create_table); !created.ok()) return std::move(created).error();
  DbResult<std::vector<int64_t>> recorded = recorded_versions(db);
  if (!recorded.ok()) return std::move(recorded).error();
  // A build older than the database would write rows in a shape the newer
  // migrations have changed under it.
  if (!recorded->empty() && !migrations.empty() && recorded->back() > migrations.back().version) {
    return DbError{DbError::Kind::Invalid, "the database is at schema version " + std::to_string(recorded->back()) +
                                               ", newer than this build, which knows versions up to " +
                                               std::to_string(migrations.back().version) +
                                               ": run a sindri at least as new as the one that migrated it"};
  }

  int count = 0;
  for (const Migration& migration : migrations) {
    if (std::binary_search(recorded->begin(), recorded->end(), int64_t{migration.version})) continue;
    bool applied = false;
    DbStatus status = db.write([&](Connection& conn) { return apply(conn, migration, applied); });
    if (!status.ok()) {
      DbError error = std::move(status).error();
      error.message =
          "migration " + std::to_string(migration.version) + " (" + std::string(migration.name) + "): " + error.message;
      return error;
    }
    if (applied) ++count;
  }
  return count;
}

}  // namespace sindri::store
