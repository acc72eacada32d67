// src/store on both databases. Each SQLite case gets a fresh temporary file;
// each PostgreSQL case a fresh tenant schema on SINDRI_TEST_POSTGRES_URL
// (scripts/with-postgres.sh starts a server and sets it), dropped afterwards,
// so that cases can run in parallel processes against one server.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <latch>
#include <limits>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include "store/database.hpp"
#include "store/migrations.hpp"
#include "store/sqlite.hpp"
#include "support/test_postgres.hpp"

namespace sindri::store {

// Test names and failure messages say "Sqlite" or "Postgres".
void PrintTo(Dialect dialect, std::ostream* out) { *out << (dialect == Dialect::Sqlite ? "Sqlite" : "Postgres"); }

namespace {

namespace fs = std::filesystem;

std::optional<std::string> postgres_url() {
  auto server = sindri_test::test_postgres();
  return server ? std::optional<std::string>(server->url) : std::nullopt;
}

// Distinct across the processes ctest runs at once and within one process.
std::string unique_name(std::string_view prefix) {
  static std::atomic<unsigned> counter{0};
  return std::string(prefix) + std::to_string(getpid()) + "_" + std::to_string(counter++) + "_" +
         std::to_string(std::random_device{}() % 1000000);
}

// One statement in its own write transaction.
DbResult<Rows> write_query(Database& db, std::string_view sql, std::vector<Value> params = {}) {
  DbResult<Rows> out = Rows{};
  DbStatus status = db.write([&](Connection& conn) -> DbStatus {
    out = conn.query(sql, params);
    if (!out.ok()) return out.error();
    return Ok{};
  });
  if (!status.ok()) return std::move(status).error();
  return out;
}

// One statement in its own read transaction.
DbResult<Rows> read_query(Database& db, std::string_view sql, std::vector<Value> params = {}) {
  DbResult<Rows> out = Rows{};
  DbStatus status = db.read([&](Connection& conn) -> DbStatus {
    out = conn.query(sql, params);
    if (!out.ok()) return out.error();
    return Ok{};
  });
  if (!status.ok()) return std::move(status).error();
  return out;
}

int64_t count_rows(Database& db, std::string_view table) {
  DbResult<Rows> rows = read_query(db, "SELECT COUNT(*) AS n FROM " + std::string(table));
  EXPECT_TRUE(rows.ok()) << rows.error().message;
  return rows.ok() ? rows->rows.at(0).at(0).get_int() : -1;
}

// RFC 3339 in UTC to the second: 2024-02-29T13:45:00Z.
bool is_utc_timestamp(std::string_view text) {
  constexpr std::string_view kShape = "dddd-dd-ddTdd:dd:ddZ";
  if (text.size() != kShape.size()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    const bool ok = kShape[i] == 'd' ? text[i] >= '0' && text[i] <= '9' : text[i] == kShape[i];
    if (!ok) return false;
  }
  return true;
}

const char* kind_name(DbError::Kind kind) {
  switch (kind) {
    case DbError::Kind::Unavailable:
      return "Unavailable";
    case DbError::Kind::Unique:
      return "Unique";
    case DbError::Kind::ForeignKey:
      return "ForeignKey";
    case DbError::Kind::Busy:
      return "Busy";
    case DbError::Kind::Invalid:
      return "Invalid";
  }
  return "?";
}

// Expects a failure of the given kind and returns its message.
template <class T>
std::string expect_error(const DbResult<T>& result, DbError::Kind kind) {
  EXPECT_FALSE(result.ok()) << "expected a " << kind_name(kind) << " error";
  if (result.ok()) return {};
  EXPECT_EQ(kind_name(result.error().kind), std::string(kind_name(kind))) << result.error().message;
  return result.error().message;
}

// A database to test against, removed afterwards.
class StoreFixture : public ::testing::Test {
 protected:
  explicit StoreFixture(Dialect dialect) : dialect_(dialect) {}

  void SetUp() override {
    if (dialect_ == Dialect::Sqlite) {
      std::string pattern = (fs::temp_directory_path() / "sindri-store-XXXXXX").string();
      ASSERT_NE(mkdtemp(pattern.data()), nullptr);
      dir_ = pattern;
      url_ = "sqlite://" + (dir_ / "test.db").string();
    } else {
      const std::optional<std::string> url = postgres_url();
      ASSERT_TRUE(url) << sindri_test::kNoTestPostgres;
      url_ = *url;
      options_.tenant_schema = fresh_schema();
    }
    db_ = open_database(options_);
    ASSERT_NE(db_, nullptr);
  }

  void TearDown() override {
    db_.reset();
    if (dialect_ == Dialect::Sqlite) {
      if (!dir_.empty()) fs::remove_all(dir_);
      return;
    }
    if (schemas_.empty()) return;
    auto admin = Database::open(url_);
    ASSERT_TRUE(admin.ok()) << admin.error().message;
    for (const std::string& schema : schemas_) {
      auto dropped = write_query(**admin, "DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE");
      EXPECT_TRUE(dropped.ok()) << dropped.error().message;
    }
  }

  bool postgres() const { return dialect_ == Dialect::Postgres; }
  std::string_view sql(std::string_view sqlite, std::string_view postgres) const {
    return dialect_ == Dialect::Sqlite ? sqlite : postgres;
  }

  // A tenant schema no other case uses, dropped in TearDown.
  std::string fresh_schema() {
    schemas_.push_back(unique_name("t"));
    return schemas_.back();
  }

  std::unique_ptr<Database> open_database(const OpenOptions& options) {
    auto db = Database::open(url_, options);
    EXPECT_TRUE(db.ok()) << db.error().message;
    return db.ok() ? std::move(db).value() : nullptr;
  }

  void exec(std::string_view statement, std::vector<Value> params = {}) {
    auto done = write_query(*db_, statement, std::move(params));
    ASSERT_TRUE(done.ok()) << done.error().message;
  }

  Dialect dialect_;
  fs::path dir_;
  std::string url_;
  OpenOptions options_;
  std::vector<std::string> schemas_;
  std::unique_ptr<Database> db_;
};

class StoreTest : public StoreFixture, public ::testing::WithParamInterface<Dialect> {
 protected:
  StoreTest() : StoreFixture(GetParam()) {}
};

class PostgresTest : public StoreFixture {
 protected:
  PostgresTest() : StoreFixture(Dialect::Postgres) {}
};

class SqliteTest : public StoreFixture {
 protected:
  SqliteTest() : StoreFixture(Dialect::Sqlite) {}
};

INSTANTIATE_TEST_SUITE_P(Databases, StoreTest, ::testing::Values(Dialect::Sqlite, Dialect::Postgres),
                         [](const ::testing::TestParamInfo<Dialect>& info) {
                           return info.param == Dialect::Sqlite ? "Sqlite" : "Postgres";
                         });

TEST_P(StoreTest, ReportsItsDialect) {
  EXPECT_EQ(db_->dialect(), dialect_);
  DbStatus status = db_->read([&](Connection& conn) -> DbStatus {
    EXPECT_EQ(conn.dialect(), dialect_);
    return Ok{};
  });
  EXPECT_TRUE(status.ok());
}

TEST_P(StoreTest, EveryCellTypeRoundTrips) {
  exec(sql("CREATE TABLE cells (id INTEGER PRIMARY KEY, i INTEGER, f REAL, s TEXT, b INTEGER, n TEXT)",
           "CREATE TABLE cells (id BIGINT PRIMARY KEY, i BIGINT, f DOUBLE PRECISION, s TEXT, b BOOLEAN, n TEXT)"));
  const std::string long_text = "a string longer than fourteen bytes, with 'quotes', $1 and ünïcödé";
  const std::string_view insert = "INSERT INTO cells (id, i, f, s, b, n) VALUES ($1, $2, $3, $4, $5, $6)";
  exec(insert, {1, std::numeric_limits<int64_t>::max(), 0.1, long_text, true, nullptr});
  exec(insert, {2, std::numeric_limits<int64_t>::min(), -1.2345678901234567e300, "", false, nullptr});
  exec(insert, {3, 0, 5e-324, "short", true, "not null"});

  auto rows = read_query(*db_, "SELECT id, i, f, s, b, n FROM cells ORDER BY id");
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  EXPECT_EQ(rows->columns, (std::vector<std::string>{"id", "i", "f", "s", "b", "n"}));
  ASSERT_EQ(rows->size(), 3u);
  const auto& first = rows->rows[0];
  EXPECT_EQ(first[rows->column("id")], Value(1));
  EXPECT_EQ(first[rows->column("i")], Value(std::numeric_limits<int64_t>::max()));
  EXPECT_EQ(first[rows->column("f")], Value(0.1));
  EXPECT_EQ(first[rows->column("s")], Value(long_text));
  // SQLite has no boolean type: a bool is stored and read back as 0 or 1.
  EXPECT_EQ(first[rows->column("b")], postgres() ? Value(true) : Value(1));
  EXPECT_TRUE(first[rows->column("n")].is_null());
  const auto& second = rows->rows[1];
  EXPECT_EQ(second[1], Value(std::numeric_limits<int64_t>::min()));
  EXPECT_EQ(second[2], Value(-1.2345678901234567e300));
  EXPECT_EQ(second[3], Value(""));
  EXPECT_EQ(second[4], postgres() ? Value(false) : Value(0));
  const auto& third = rows->rows[2];
  EXPECT_EQ(third[2], Value(5e-324));
  EXPECT_EQ(third[5], Value("not null"));

  // Parameters bind in WHERE clauses too.
  auto found = read_query(*db_, "SELECT id FROM cells WHERE s = $1 AND b = $2", {"short", true});
  ASSERT_TRUE(found.ok()) << found.error().message;
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ(found->rows[0][0], Value(3));
}

TEST_P(StoreTest, ExpressionCells) {
  // SQLite: the storage class of each value. PostgreSQL: the column type;
  // types other than bool, integers and floats come back as their text.
  auto rows = read_query(*db_, sql("SELECT 7 AS a, 1.5 AS b, 'x' AS c, NULL AS d, x'4142' AS e",
                                   "SELECT 7::int2 AS a, 1.5::float4 AS b, 'x' AS c, NULL AS d, 1.25::numeric AS e, "
                                   "8::int4 AS f, 'NaN'::float8 AS g, '-Infinity'::float8 AS h, "
                                   "DATE '2024-02-29' AS i, ARRAY[1, 2] AS j"));
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  const auto& row = rows->rows.at(0);
  EXPECT_EQ(row[0], Value(7));
  EXPECT_EQ(row[1], Value(1.5));
  EXPECT_EQ(row[2], Value("x"));
  EXPECT_TRUE(row[3].is_null());
  if (!postgres()) {
    EXPECT_EQ(row[4], Value("AB"));  // a BLOB's bytes
    return;
  }
  EXPECT_EQ(row[4], Value("1.25"));
  EXPECT_EQ(row[5], Value(8));
  ASSERT_TRUE(row[6].is_float());
  EXPECT_TRUE(std::isnan(row[6].get_float()));
  EXPECT_EQ(row[7], Value(-std::numeric_limits<double>::infinity()));
  EXPECT_EQ(row[8], Value("2024-02-29"));
  EXPECT_EQ(row[9], Value("{1,2}"));
}

TEST_P(StoreTest, Placeholders) {
  // A $1 inside a string literal is text, not a parameter.
  auto literal = read_query(*db_, "SELECT '$1' AS literal, CAST($1 AS TEXT) AS param", {"bound"});
  ASSERT_TRUE(literal.ok()) << literal.error().message;
  EXPECT_EQ(literal->rows.at(0), (std::vector<Value>{"$1", "bound"}));

  // Two-digit numbers, used out of order and twice.
  std::string text = "SELECT ";
  std::vector<Value> params;
  for (int i = 1; i <= 11; ++i) params.emplace_back(std::to_string(i));
  for (int i = 11; i >= 1; --i) text += "CAST($" + std::to_string(i) + " AS TEXT) || ";
  text += "CAST($10 AS TEXT) AS joined";
  auto joined = read_query(*db_, text, params);
  ASSERT_TRUE(joined.ok()) << joined.error().message;
  EXPECT_EQ(joined->rows.at(0).at(0), Value("111098765432110"));

  // The same statement again comes from the cache, with new parameters.
  params[0] = "one";
  joined = read_query(*db_, text, params);
  ASSERT_TRUE(joined.ok()) << joined.error().message;
  EXPECT_EQ(joined->rows.at(0).at(0), Value("111098765432one10"));
}

TEST_P(StoreTest, BadParametersAreInvalid) {
  std::string message = expect_error(
      read_query(*db_, "SELECT CAST($1 AS TEXT) AS a, CAST($2 AS TEXT) AS b", {"only one"}), DbError::Kind::Invalid);
  EXPECT_NE(message.find("takes 2 parameters, 1 given"), std::string::npos) << message;
  message =
      expect_error(read_query(*db_, "SELECT CAST($1 AS TEXT) AS a", {Value(Array{Value(1)})}), DbError::Kind::Invalid);
  EXPECT_NE(message.find("parameter $1 is array"), std::string::npos) << message;
  // The connection is still good afterwards.
  auto rows = read_query(*db_, "SELECT CAST($1 AS TEXT) AS a", {"fine"});
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  EXPECT_EQ(rows->rows.at(0).at(0), Value("fine"));
}

TEST_P(StoreTest, SqlErrorsNameTheStatement) {
  std::string message =
      expect_error(read_query(*db_, "SELECT nope FROM missing_table\nWHERE 1 = 1"), DbError::Kind::Invalid);
  EXPECT_NE(message.find("missing_table"), std::string::npos) << message;
  EXPECT_NE(message.find("(statement: SELECT nope FROM missing_table)"), std::string::npos) << message;
  expect_error(read_query(*db_, "SELECT 1; SELECT 2"), DbError::Kind::Invalid);
}

TEST_P(StoreTest, Returning) {
  exec(sql("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)",
           "CREATE TABLE items (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE)"));
  for (int64_t expected = 1; expected <= 2; ++expected) {
    auto rows = write_query(*db_, "INSERT INTO items (name) VALUES ($1) RETURNING id, name",
                            {"item " + std::to_string(expected)});
    ASSERT_TRUE(rows.ok()) << rows.error().message;
    EXPECT_EQ(rows->columns, (std::vector<std::string>{"id", "name"}));
    ASSERT_EQ(rows->size(), 1u);
    EXPECT_EQ(rows->rows[0][0], Value(expected));
    EXPECT_EQ(rows->rows[0][1], Value("item " + std::to_string(expected)));
  }
  auto updated = write_query(*db_, "UPDATE items SET name = name || '!' RETURNING id");
  ASSERT_TRUE(updated.ok()) << updated.error().message;
  EXPECT_EQ(updated->size(), 2u);
  // A statement without rows has no rows, and no columns without RETURNING.
  auto deleted = write_query(*db_, "DELETE FROM items WHERE id = $1", {99});
  ASSERT_TRUE(deleted.ok()) << deleted.error().message;
  EXPECT_TRUE(deleted->empty());
}

TEST_P(StoreTest, UniqueViolations) {
  exec("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)");
  exec("INSERT INTO users (id, name) VALUES ($1, $2)", {1, "ada"});
  std::string message = expect_error(write_query(*db_, "INSERT INTO users (id, name) VALUES ($1, $2)", {2, "ada"}),
                                     DbError::Kind::Unique);
  EXPECT_NE(message.find("INSERT INTO users (id, name) VALUES ($1, $2)"), std::string::npos) << message;
  expect_error(write_query(*db_, "INSERT INTO users (id, name) VALUES ($1, $2)", {1, "grace"}), DbError::Kind::Unique);
  EXPECT_EQ(count_rows(*db_, "users"), 1);
}

TEST_P(StoreTest, ForeignKeyViolations) {
  exec("CREATE TABLE parents (id INTEGER PRIMARY KEY)");
  exec("CREATE TABLE children (id INTEGER PRIMARY KEY, parent INTEGER NOT NULL REFERENCES parents (id))");
  exec("INSERT INTO parents (id) VALUES ($1)", {1});
  exec("INSERT INTO children (id, parent) VALUES ($1, $2)", {1, 1});
  expect_error(write_query(*db_, "INSERT INTO children (id, parent) VALUES ($1, $2)", {2, 42}),
               DbError::Kind::ForeignKey);
  expect_error(write_query(*db_, "DELETE FROM parents WHERE id = $1", {1}), DbError::Kind::ForeignKey);
  EXPECT_EQ(count_rows(*db_, "parents"), 1);
  EXPECT_EQ(count_rows(*db_, "children"), 1);
}

TEST_P(StoreTest, ErrorFromWorkRollsBack) {
  exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL UNIQUE)");
  DbStatus status = db_->write([](Connection& conn) -> DbStatus {
    auto inserted = conn.query("INSERT INTO notes (id, body) VALUES ($1, $2)", {1, "draft"});
    if (!inserted.ok()) return inserted.error();
    return DbError{DbError::Kind::Invalid, "changed my mind"};
  });
  EXPECT_EQ(expect_error(status, DbError::Kind::Invalid), "changed my mind");
  EXPECT_EQ(count_rows(*db_, "notes"), 0);

  // A failing statement after a good one: work passes the error on, and
  // the good one is undone with it.
  status = db_->write([](Connection& conn) -> DbStatus {
    for (int id : {1, 2}) {
      auto inserted = conn.query("INSERT INTO notes (id, body) VALUES ($1, $2)", {id, "same"});
      if (!inserted.ok()) return inserted.error();
    }
    return Ok{};
  });
  expect_error(status, DbError::Kind::Unique);
  EXPECT_EQ(count_rows(*db_, "notes"), 0);

  // The first statement of a transaction failing, and works that run no
  // statement at all.
  for (int attempt = 0; attempt < 3; ++attempt) {
    status = db_->write([](Connection& conn) -> DbStatus {
      auto inserted = conn.query("INSERT INTO nowhere (id) VALUES ($1)", {1});
      if (!inserted.ok()) return inserted.error();
      return Ok{};
    });
    EXPECT_NE(expect_error(status, DbError::Kind::Invalid).find("nowhere"), std::string::npos);
    EXPECT_TRUE(db_->write([](Connection&) -> DbStatus { return Ok{}; }).ok());
    EXPECT_TRUE(db_->read([](Connection&) -> DbStatus { return Ok{}; }).ok());
  }

  // Later writes on the same connections work.
  exec("INSERT INTO notes (id, body) VALUES ($1, $2)", {3, "kept"});
  EXPECT_EQ(count_rows(*db_, "notes"), 1);
}

TEST_P(StoreTest, ManyThreadsWriting) {
  exec("CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)");
  exec("INSERT INTO counter (id, n) VALUES (1, 0)");
  constexpr int kThreads = 8;
  constexpr int kIncrements = 200;
  std::atomic<int> failures{0};
  std::atomic<bool> writing{true};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kIncrements; ++i) {
        if (!write_query(*db_, "UPDATE counter SET n = n + 1 WHERE id = 1").ok()) ++failures;
      }
    });
  }
  // Readers at the same time see the count only grow.
  std::thread reader([&] {
    int64_t last = 0;
    while (writing) {
      auto rows = read_query(*db_, "SELECT n FROM counter WHERE id = 1");
      if (!rows.ok() || rows->rows.at(0).at(0).get_int() < last) {
        ++failures;
        continue;
      }
      last = rows->rows[0][0].get_int();
    }
  });
  for (auto& thread : threads) thread.join();
  writing = false;
  reader.join();
  EXPECT_EQ(failures, 0);
  auto rows = read_query(*db_, "SELECT n FROM counter WHERE id = 1");
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  EXPECT_EQ(rows->rows.at(0).at(0), Value(kThreads * kIncrements));
}

TEST_P(StoreTest, ReadIsOneSnapshot) {
  exec("CREATE TABLE events (id INTEGER PRIMARY KEY)");
  exec("INSERT INTO events (id) VALUES (1)");
  DbStatus status = db_->read([&](Connection& conn) -> DbStatus {
    auto before = conn.query("SELECT COUNT(*) FROM events");
    if (!before.ok()) return before.error();
    // Committed by another transaction in the middle of this read.
    auto inserted = write_query(*db_, "INSERT INTO events (id) VALUES (2)");
    if (!inserted.ok()) return inserted.error();
    auto after = conn.query("SELECT COUNT(*) FROM events");
    if (!after.ok()) return after.error();
    EXPECT_EQ(before->rows.at(0).at(0), Value(1));
    EXPECT_EQ(after->rows.at(0).at(0), Value(1));
    return Ok{};
  });
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(count_rows(*db_, "events"), 2);
}

TEST_P(StoreTest, ReadCannotWrite) {
  exec("CREATE TABLE events (id INTEGER PRIMARY KEY)");
  DbStatus status = db_->read([](Connection& conn) -> DbStatus {
    auto inserted = conn.query("INSERT INTO events (id) VALUES (1)");
    if (!inserted.ok()) return inserted.error();
    return Ok{};
  });
  expect_error(status, DbError::Kind::Invalid);
  EXPECT_EQ(count_rows(*db_, "events"), 0);
}

TEST_P(StoreTest, ReadStatementRunsOneSelectAlone) {
  exec("CREATE TABLE events (id INTEGER PRIMARY KEY, kind TEXT NOT NULL)");
  exec("INSERT INTO events (id, kind) VALUES (1, 'a'), (2, 'b')");
  auto rows = db_->read_statement("  select id FROM events WHERE kind = $1", {Value("b")});
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows->rows[0][0], Value(2));
  // It sees what was committed since.
  ASSERT_TRUE(write_query(*db_, "INSERT INTO events (id, kind) VALUES (3, 'b')").ok());
  rows = db_->read_statement("SELECT\n  COUNT(*) FROM events WHERE kind = $1", {Value("b")});
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  EXPECT_EQ(rows->rows[0][0], Value(2));

  // Nothing but a SELECT runs: no transaction would keep it read-only.
  for (const char* sql : {"DELETE FROM events", "INSERT INTO events (id, kind) VALUES (9, 'x')",
                          "WITH gone AS (DELETE FROM events RETURNING id) SELECT COUNT(*) FROM gone", "SELECTED",
                          ""}) {
    auto refused = db_->read_statement(sql);
    ASSERT_FALSE(refused.ok()) << sql;
    EXPECT_EQ(refused.error().kind, DbError::Kind::Invalid) << sql;
    EXPECT_NE(refused.error().message.find("only a SELECT"), std::string::npos) << refused.error().message;
  }
  EXPECT_EQ(count_rows(*db_, "events"), 3);
  // A bad SELECT is the database's error, naming the statement.
  auto bad = db_->read_statement("SELECT nope FROM events");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("SELECT nope FROM events"), std::string::npos) << bad.error().message;
}

const Migration kMigrations[] = {
    {1, "widgets", "CREATE TABLE widgets (id INTEGER PRIMARY KEY, name TEXT NOT NULL);",
     "CREATE TABLE widgets (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL);"},
    {2, "seed widgets", "INSERT INTO widgets (name) VALUES ('first');\nINSERT INTO widgets (name) VALUES ('second');",
     "INSERT INTO widgets (name) VALUES ('first');\nINSERT INTO widgets (name) VALUES ('second');"},
};
const Migration kMoreMigrations[] = {
    kMigrations[0],
    kMigrations[1],
    {3, "widget colour", "ALTER TABLE widgets ADD COLUMN colour TEXT;", "ALTER TABLE widgets ADD COLUMN colour TEXT;"},
};

TEST_P(StoreTest, MigrationsApplyOnce) {
  auto applied = migrate(*db_, kMigrations);
  ASSERT_TRUE(applied.ok()) << applied.error().message;
  EXPECT_EQ(*applied, 2);
  EXPECT_EQ(count_rows(*db_, "widgets"), 2);

  applied = migrate(*db_, kMigrations);
  ASSERT_TRUE(applied.ok()) << applied.error().message;
  EXPECT_EQ(*applied, 0);
  EXPECT_EQ(count_rows(*db_, "widgets"), 2);

  applied = migrate(*db_, kMoreMigrations);
  ASSERT_TRUE(applied.ok()) << applied.error().message;
  EXPECT_EQ(*applied, 1);
  exec("INSERT INTO widgets (name, colour) VALUES ($1, $2)", {"third", "blue"});

  // An older build refuses the newer database instead of writing to it.
  const std::string older = expect_error(migrate(*db_, kMigrations), DbError::Kind::Invalid);
  EXPECT_NE(older.find("schema version 3, newer than this build, which knows versions up to 2"), std::string::npos)
      << older;

  auto recorded = read_query(*db_, "SELECT version, name, applied_at FROM schema_migrations ORDER BY version");
  ASSERT_TRUE(recorded.ok()) << recorded.error().message;
  ASSERT_EQ(recorded->size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(recorded->rows[i][0], Value(kMoreMigrations[i].version));
    EXPECT_EQ(recorded->rows[i][1], Value(kMoreMigrations[i].name));
    const Value& at = recorded->rows[i][2];
    EXPECT_TRUE(at.is_string() && is_utc_timestamp(at.get_string())) << at.kind_name();
  }
}

TEST_P(StoreTest, FailedMigrationLeavesNothingBehind) {
  const Migration broken[] = {
      kMigrations[0],
      {2, "half done", "CREATE TABLE half (id INTEGER);\nTHIS IS NOT SQL;",
       "CREATE TABLE half (id INTEGER);\nTHIS IS NOT SQL;"},
  };
  auto applied = migrate(*db_, broken);
  std::string message = expect_error(applied, DbError::Kind::Invalid);
  EXPECT_EQ(message.rfind("migration 2 (half done): ", 0), 0u) << message;
  EXPECT_NE(message.find("THIS IS NOT SQL"), std::string::npos) << message;
  // Migration 1 stays applied; migration 2 left no table and no record.
  EXPECT_EQ(count_rows(*db_, "schema_migrations"), 1);
  expect_error(read_query(*db_, "SELECT COUNT(*) FROM half"), DbError::Kind::Invalid);

  const Migration unordered[] = {kMigrations[1], kMigrations[0]};
  message = expect_error(migrate(*db_, unordered), DbError::Kind::Invalid);
  EXPECT_NE(message.find("increasing version"), std::string::npos) << message;
}

TEST_P(StoreTest, ConcurrentMigratorsApplyEachOnce) {
  // Brokers starting together: separate Database objects on one database
  // (on PostgreSQL a schema none of them has created yet).
  OpenOptions options = options_;
  if (postgres()) options.tenant_schema = fresh_schema();
  constexpr int kBrokers = 4;
  std::vector<std::unique_ptr<Database>> brokers(kBrokers);
  std::vector<DbResult<int>> results(kBrokers, DbResult<int>(0));
  std::latch start(kBrokers);
  std::vector<std::thread> threads;
  for (int b = 0; b < kBrokers; ++b) {
    threads.emplace_back([&, b] {
      start.arrive_and_wait();
      auto db = Database::open(url_, options);
      if (!db.ok()) {
        results[b] = std::move(db).error();
        return;
      }
      brokers[b] = std::move(db).value();
      results[b] = migrate(*brokers[b], kMigrations);
    });
  }
  for (auto& thread : threads) thread.join();
  int total = 0;
  for (const auto& result : results) {
    ASSERT_TRUE(result.ok()) << result.error().message;
    total += *result;
  }
  EXPECT_EQ(total, 2);
  EXPECT_EQ(count_rows(*brokers[0], "widgets"), 2);
  EXPECT_EQ(count_rows(*brokers[0], "schema_migrations"), 2);
}

TEST_P(StoreTest, InvalidSchemaNamesAreRejected) {
  for (const char* name : {"1abc", "a-b", "a;drop", "_x", "sch ema", "x\"y"}) {
    OpenOptions options;
    options.tenant_schema = name;
    auto db = Database::open(url_, options);
    std::string message = expect_error(db, DbError::Kind::Invalid);
    EXPECT_NE(message.find(std::string("'") + name + "'"), std::string::npos) << message;
    EXPECT_NE(message.find("must start with a letter"), std::string::npos) << message;
  }
}

TEST_P(StoreTest, PoolStats) {
  OpenOptions options = options_;
  options.pool_size = 2;
  options.busy_timeout = std::chrono::milliseconds(200);
  auto db = open_database(options);
  ASSERT_NE(db, nullptr);
  // SQLite counts its writer connection; PostgreSQL opened one to check the URL.
  EXPECT_EQ(db->pool_stats().in_use, 0u);
  EXPECT_EQ(db->pool_stats().size, 1u);

  DbStatus status = db->read([&](Connection&) -> DbStatus {
    EXPECT_EQ(db->pool_stats().in_use, 1u);
    return db->read([&](Connection&) -> DbStatus {
      EXPECT_EQ(db->pool_stats().in_use, 2u);
      // Both readers are lent out: a third waits 200 ms and gives up.
      std::string message =
          expect_error(db->read([](Connection&) -> DbStatus { return Ok{}; }), DbError::Kind::Unavailable);
      EXPECT_NE(message.find("within 200 ms"), std::string::npos) << message;
      return Ok{};
    });
  });
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(db->pool_stats().in_use, 0u);
  EXPECT_EQ(db->pool_stats().size, postgres() ? 2u : 3u);

  status = db->write([&](Connection&) -> DbStatus {
    EXPECT_EQ(db->pool_stats().in_use, 1u);
    return Ok{};
  });
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(db->pool_stats().in_use, 0u);
}

TEST_P(StoreTest, CommittedWritesSurviveSigkill) {
  exec("CREATE TABLE journal (id INTEGER PRIMARY KEY)");
  // The child opens its own connections: none may be inherited across fork.
  db_.reset();
  constexpr int kWrites = 20;
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto db = Database::open(url_, options_);
    if (!db.ok()) _exit(2);
    for (int i = 1; i <= kWrites; ++i) {
      if (!write_query(**db, "INSERT INTO journal (id) VALUES ($1)", {i}).ok()) _exit(3);
    }
    kill(getpid(), SIGKILL);
    _exit(4);
  }
  int wait_status = 0;
  ASSERT_EQ(waitpid(child, &wait_status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(wait_status)) << "child exited with " << WEXITSTATUS(wait_status);
  EXPECT_EQ(WTERMSIG(wait_status), SIGKILL);
  db_ = open_database(options_);
  ASSERT_NE(db_, nullptr);
  EXPECT_EQ(count_rows(*db_, "journal"), kWrites);
}

TEST(DatabaseOpen, UnknownUrlSchemes) {
  std::string message = expect_error(Database::open("mysql://root:secret@localhost/db"), DbError::Kind::Invalid);
  EXPECT_NE(message.find("'mysql'"), std::string::npos) << message;
  EXPECT_EQ(message.find("secret"), std::string::npos) << message;
  expect_error(Database::open(""), DbError::Kind::Invalid);
  message = expect_error(Database::open("host=localhost password=secret"), DbError::Kind::Invalid);
  EXPECT_EQ(message.find("secret"), std::string::npos) << message;
}

TEST(SqliteOpen, BadPaths) {
  expect_error(Database::open("sqlite://"), DbError::Kind::Invalid);
  std::string message =
      expect_error(Database::open("sqlite:///nonexistent-sindri-dir/x/test.db"), DbError::Kind::Unavailable);
  EXPECT_NE(message.find("/nonexistent-sindri-dir/x/test.db"), std::string::npos) << message;

  // A file that is not a database.
  std::string pattern = (fs::temp_directory_path() / "sindri-store-XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  const fs::path garbage = fs::path(pattern) / "garbage.db";
  std::ofstream(garbage) << std::string(8192, 'x');
  message = expect_error(Database::open("sqlite://" + garbage.string()), DbError::Kind::Unavailable);
  EXPECT_NE(message.find("not a database"), std::string::npos) << message;
  fs::remove_all(pattern);
}

// Commits never checkpoint the WAL themselves: a thread of the store's does,
// once the WAL passes 1,000 pages, and the pages reach the database file
// while every connection stays open.
TEST(SqliteCheckpoints, RunInTheBackgroundOnceTheWalIsLarge) {
  std::string pattern = (fs::temp_directory_path() / "sindri-store-XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  const fs::path file = fs::path(pattern) / "test.db";
  {
    auto db = Database::open("sqlite://" + file.string());
    ASSERT_TRUE(db.ok()) << db.error().message;
    ASSERT_TRUE(write_query(**db, "CREATE TABLE blobs (id INTEGER PRIMARY KEY, body TEXT NOT NULL)").ok());
    const std::string body(64 * 1024, 'x');
    // About 10,000 pages of 4 KiB (40 MiB), one commit each: without a
    // checkpoint they would all still be in the WAL.
    for (int i = 0; i < 600; ++i) {
      ASSERT_TRUE(write_query(**db, "INSERT INTO blobs (body) VALUES ($1)", {Value(body)}).ok());
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while ((*db)->pool_stats().wal_checkpoints == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_GE((*db)->pool_stats().wal_checkpoints, 1u);  // the thread's own, not the writer's catch-ups
    // Until a checkpoint the database file holds next to nothing; the first
    // one copies the WAL's first 1,000 frames or more, most of them new pages.
    EXPECT_GE(fs::file_size(file), 2u * 1024u * 1024u);
    // And the WAL started over rather than growing with every commit: the
    // writer waits for the thread before it gets 4,000 frames behind.
    EXPECT_LT(fs::file_size(file.string() + "-wal"), 5000u * 4096u);
    EXPECT_EQ(count_rows(**db, "blobs"), 600);
  }
  fs::remove_all(pattern);
}

TEST(SqliteOpen, TenantSchemaNeedsPostgres) {
  OpenOptions options;
  options.tenant_schema = "tenant_a";
  std::string message = expect_error(Database::open("sqlite://:memory:", options), DbError::Kind::Invalid);
  EXPECT_NE(message.find("multi-tenant mode needs PostgreSQL"), std::string::npos) << message;
}

TEST(SqliteOpen, MemoryDatabasesArePrivateAndShared) {
  auto first = Database::open("sqlite://:memory:");
  auto second = Database::open("sqlite://:memory:");
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_TRUE(second.ok()) << second.error().message;
  ASSERT_TRUE(write_query(**first, "CREATE TABLE t (x INTEGER)").ok());
  // Written by the writer connection, read by pooled readers from many threads.
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        if (!write_query(**first, "INSERT INTO t (x) VALUES ($1)", {i}).ok()) ++failures;
        if (!read_query(**first, "SELECT COUNT(*) FROM t").ok()) ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(count_rows(**first, "t"), 200);
  // The second in-memory database is another database.
  expect_error(read_query(**second, "SELECT COUNT(*) FROM t"), DbError::Kind::Invalid);
}

TEST(SqlitePlaceholders, RewritesOnlyParameters) {
  EXPECT_EQ(sqlite_placeholders("SELECT $1, $2 FROM t WHERE a = $10"), "SELECT ?1, ?2 FROM t WHERE a = ?10");
  EXPECT_EQ(sqlite_placeholders("SELECT '$1', \"$2\", `$3`, [$4] -- $5\n, $6 /* $7 */"),
            "SELECT '$1', \"$2\", `$3`, [$4] -- $5\n, ?6 /* $7 */");
  EXPECT_EQ(sqlite_placeholders("SELECT 'it''s $1', $2"), "SELECT 'it''s $1', ?2");
  EXPECT_EQ(sqlite_placeholders("SELECT a$1, $x, $"), "SELECT a$1, $x, $");
  EXPECT_EQ(sqlite_placeholders("SELECT '$1"), "SELECT '$1");
}

TEST_F(SqliteTest, NestedWriteIsRefused) {
  DbStatus status = db_->write([&](Connection&) -> DbStatus {
    std::string message =
        expect_error(db_->write([](Connection&) -> DbStatus { return Ok{}; }), DbError::Kind::Invalid);
    EXPECT_NE(message.find("inside write()"), std::string::npos) << message;
    return Ok{};
  });
  EXPECT_TRUE(status.ok());
}

TEST_F(SqliteTest, WriterLockedElsewhereIsBusy) {
  exec("CREATE TABLE t (x INTEGER)");
  OpenOptions impatient;
  impatient.busy_timeout = std::chrono::milliseconds(100);
  auto other = open_database(impatient);
  ASSERT_NE(other, nullptr);
  DbStatus status = db_->write([&](Connection&) -> DbStatus {
    expect_error(write_query(*other, "INSERT INTO t (x) VALUES (1)"), DbError::Kind::Busy);
    return Ok{};
  });
  EXPECT_TRUE(status.ok());
  EXPECT_TRUE(write_query(*other, "INSERT INTO t (x) VALUES (1)").ok());
}

// Runs `writers` writes at once behind a write that holds the writer until
// they have all been queued, so that they are committed as one group.
template <class Write>
void write_in_a_group(Database& db, int writers, Write&& write) {
  std::atomic<bool> holding{false};
  std::thread holder([&] {
    DbStatus held = db.write([&](Connection&) -> DbStatus {
      holding = true;
      while (db.pool_stats().queued_writes < static_cast<size_t>(writers)) std::this_thread::yield();
      return Ok{};
    });
    EXPECT_TRUE(held.ok());
  });
  while (!holding) std::this_thread::yield();
  std::vector<std::thread> threads;
  for (int i = 0; i < writers; ++i) threads.emplace_back([&, i] { write(i); });
  for (auto& thread : threads) thread.join();
  holder.join();
}

TEST_F(SqliteTest, ConcurrentWritesCommitInGroupsAndFailAlone) {
  exec("CREATE TABLE t (id INTEGER PRIMARY KEY)");
  constexpr int kWriters = 16;
  const auto before = db_->pool_stats();
  std::atomic<int> surprises{0};
  write_in_a_group(*db_, kWriters, [&](int i) {
    try {
      DbStatus status = db_->write([&](Connection& conn) -> DbStatus {
        auto inserted = conn.query("INSERT INTO t (id) VALUES ($1)", {i});
        if (!inserted.ok()) return inserted.error();
        if (i == 7) throw std::runtime_error("work 7 threw");
        if (i % 4 == 1) return DbError{DbError::Kind::Invalid, "work " + std::to_string(i) + " changed its mind"};
        return Ok{};
      });
      const bool expected = i % 4 == 1 ? !status.ok() && status.error().message.find(std::to_string(i)) != std::string::npos
                                       : status.ok();
      if (i == 7 || !expected) ++surprises;
    } catch (const std::runtime_error& thrown) {
      if (i != 7 || std::string(thrown.what()) != "work 7 threw") ++surprises;
    }
  });
  EXPECT_EQ(surprises, 0);
  auto rows = read_query(*db_, "SELECT id FROM t ORDER BY id");
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  std::vector<int64_t> ids;
  for (const auto& row : rows->rows) ids.push_back(row.at(0).get_int());
  std::vector<int64_t> expected;
  for (int i = 0; i < kWriters; ++i) {
    if (i % 4 != 1 && i != 7) expected.push_back(i);
  }
  EXPECT_EQ(ids, expected);
  // The writes behind the holder shared transactions.
  const auto after = db_->pool_stats();
  EXPECT_EQ(after.writes - before.writes, kWriters + 1u);
  EXPECT_LT(after.write_transactions - before.write_transactions, kWriters + 1u);
}

TEST_F(SqliteTest, AGroupWhoseCommitFailsRunsEachWriteAgainAlone) {
  exec("CREATE TABLE parent (id INTEGER PRIMARY KEY)");
  exec("CREATE TABLE child (id INTEGER PRIMARY KEY, "
       "parent_id INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)");
  exec("INSERT INTO parent (id) VALUES (1)");
  // Child 3 names a parent that does not exist: its deferred constraint fails
  // the group's COMMIT, and only its own write may fail for it.
  constexpr int kWriters = 6;
  const auto before = db_->pool_stats();
  std::vector<std::string> outcomes(kWriters);
  write_in_a_group(*db_, kWriters, [&](int i) {
    auto done = write_query(*db_, "INSERT INTO child (id, parent_id) VALUES ($1, $2)", {i, i == 3 ? 99 : 1});
    outcomes[i] = done.ok()                                       ? "ok"
                  : done.error().kind == DbError::Kind::ForeignKey ? "foreign key"
                                                                  : done.error().message;
  });
  for (int i = 0; i < kWriters; ++i) EXPECT_EQ(outcomes[i], i == 3 ? "foreign key" : "ok") << "write " << i;
  EXPECT_EQ(count_rows(*db_, "child"), kWriters - 1);
  expect_error(write_query(*db_, "INSERT INTO child (id, parent_id) VALUES (3, 99)"), DbError::Kind::ForeignKey);
  // The group did form, and its writes then ran alone: more transactions than writes.
  const auto after = db_->pool_stats();
  EXPECT_GT(after.write_transactions - before.write_transactions, after.writes - before.writes);
}

TEST_F(SqliteTest, AWriteNeverFailsOnTheRowsOfALostGroup) {
  exec("CREATE TABLE parent (id INTEGER PRIMARY KEY)");
  exec("CREATE TABLE child (id INTEGER PRIMARY KEY, name TEXT UNIQUE, "
       "parent_id INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)");
  exec("INSERT INTO parent (id) VALUES (1)");
  // Write 0 takes the name with a parent that does not exist, so the group
  // fails at COMMIT; write 1, queued after it, wants the same name: inside
  // the group it meets write 0's row, which never commits.
  std::vector<std::string> outcomes(2);
  write_in_a_group(*db_, 2, [&](int i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(60 * i));
    auto done = write_query(*db_, "INSERT INTO child (id, name, parent_id) VALUES ($1, 'x', $2)", {i, i == 0 ? 99 : 1});
    outcomes[i] = done.ok() ? "ok" : "failed";
  });
  EXPECT_EQ(outcomes[0], "failed");
  EXPECT_EQ(outcomes[1], "ok");
  auto rows = read_query(*db_, "SELECT id FROM child");
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->rows.size(), 1u);
  EXPECT_EQ(rows->rows[0][0], Value(1));
}

TEST_F(SqliteTest, AWriteThatMakesSqliteRollBackLosesOnlyItself) {
  exec("CREATE TABLE t (id INTEGER PRIMARY KEY)");
  exec("INSERT INTO t (id) VALUES (100)");
  // OR ROLLBACK on a conflict ends the whole transaction, not only the statement.
  constexpr int kWriters = 5;
  std::vector<std::string> outcomes(kWriters);
  write_in_a_group(*db_, kWriters, [&](int i) {
    auto done = write_query(*db_, "INSERT OR ROLLBACK INTO t (id) VALUES ($1)", {i == 2 ? 100 : i});
    outcomes[i] = done.ok() ? "ok" : done.error().kind == DbError::Kind::Unique ? "unique" : done.error().message;
  });
  for (int i = 0; i < kWriters; ++i) EXPECT_EQ(outcomes[i], i == 2 ? "unique" : "ok") << "write " << i;
  EXPECT_EQ(count_rows(*db_, "t"), kWriters);
}

TEST_F(SqliteTest, AQueuedWriteGivesUpAfterTheBusyTimeout) {
  OpenOptions impatient;
  impatient.busy_timeout = std::chrono::milliseconds(100);
  auto db = open_database(impatient);
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(write_query(*db, "CREATE TABLE t (x INTEGER)").ok());
  std::atomic<bool> released{false};
  std::thread holder([&] {
    EXPECT_TRUE(db->write([&](Connection&) -> DbStatus {
                    while (!released) std::this_thread::sleep_for(std::chrono::milliseconds(5));
                    return Ok{};
                  }).ok());
  });
  while (db->pool_stats().in_use == 0) std::this_thread::yield();
  std::string message = expect_error(write_query(*db, "INSERT INTO t (x) VALUES (1)"), DbError::Kind::Busy);
  EXPECT_NE(message.find("100 ms"), std::string::npos) << message;
  released = true;
  holder.join();
  EXPECT_TRUE(write_query(*db, "INSERT INTO t (x) VALUES (2)").ok());
  EXPECT_EQ(count_rows(*db, "t"), 1);
}

TEST(SchemaNames, FollowSeed002) {
  for (const char* good : {"a", "Tenant_1", "acme_corp", "x0_"}) EXPECT_TRUE(is_valid_schema_name(good)) << good;
  for (const char* bad : {"", "1abc", "a-b", "a;drop", "_a", "a b", "é", "a.b"}) {
    EXPECT_FALSE(is_valid_schema_name(bad)) << bad;
  }
  EXPECT_TRUE(is_valid_schema_name(std::string(63, 'a')));
  EXPECT_FALSE(is_valid_schema_name(std::string(64, 'a')));
}

TEST(PostgresOpen, UnreachableServer) {
  std::string message =
      expect_error(Database::open("postgres://postgres@127.0.0.1:1/sindri_test"), DbError::Kind::Unavailable);
  EXPECT_NE(message.find("cannot connect to PostgreSQL"), std::string::npos) << message;
  message = expect_error(Database::open("postgresql://postgres@127.0.0.1:1/sindri_test?bogus_option=1"),
                         DbError::Kind::Invalid);
  EXPECT_NE(message.find("bogus_option"), std::string::npos) << message;
}

// A transaction's BEGIN travels with its first statement in
// one pipeline; the connection leaves it clean and is kept: one connection
// serves every transaction, failed ones included.
TEST_F(PostgresTest, TransactionsLeaveTheirConnectionReusable) {
  OpenOptions options = options_;
  options.pool_size = 1;
  auto db = open_database(options);
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(write_query(*db, "CREATE TABLE marks (id INTEGER PRIMARY KEY)").ok());
  auto backend = [&] {
    auto rows = read_query(*db, "SELECT pg_backend_pid() AS pid");
    return rows.ok() ? rows->rows.at(0).at(0).get_int() : -1;
  };
  const int64_t first = backend();
  ASSERT_GT(first, 0);
  for (int id = 1; id <= 5; ++id) {
    ASSERT_TRUE(write_query(*db, "INSERT INTO marks (id) VALUES ($1)", {id}).ok());
    expect_error(write_query(*db, "INSERT INTO marks (id) VALUES ($1)", {id}), DbError::Kind::Unique);
    expect_error(read_query(*db, "SELECT nothing FROM marks"), DbError::Kind::Invalid);
    EXPECT_TRUE(db->write([](Connection&) -> DbStatus { return Ok{}; }).ok());
    EXPECT_EQ(backend(), first) << "after round " << id;
  }
  EXPECT_EQ(count_rows(*db, "marks"), 5);
}

TEST_F(PostgresTest, TenantsAreIsolated) {
  OpenOptions a = options_;
  OpenOptions b = options_;
  a.tenant_schema = fresh_schema();
  b.tenant_schema = fresh_schema();
  auto tenant_a = open_database(a);
  auto tenant_b = open_database(b);
  ASSERT_NE(tenant_a, nullptr);
  ASSERT_NE(tenant_b, nullptr);
  // The same migrations, recorded per tenant.
  for (Database* db : {tenant_a.get(), tenant_b.get()}) {
    auto applied = migrate(*db, kMigrations);
    ASSERT_TRUE(applied.ok()) << applied.error().message;
    EXPECT_EQ(*applied, 2);
  }
  ASSERT_TRUE(write_query(*tenant_a, "INSERT INTO widgets (name) VALUES ($1)", {"only in a"}).ok());
  EXPECT_EQ(count_rows(*tenant_a, "widgets"), 3);
  EXPECT_EQ(count_rows(*tenant_b, "widgets"), 2);
  auto found = read_query(*tenant_b, "SELECT COUNT(*) FROM widgets WHERE name = $1", {"only in a"});
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_EQ(found->rows.at(0).at(0), Value(0));
}

TEST_F(PostgresTest, BrokenConnectionIsDroppedFromThePool) {
  OpenOptions options = options_;
  options.pool_size = 1;
  auto db = open_database(options);
  ASSERT_NE(db, nullptr);
  auto pid = read_query(*db, "SELECT pg_backend_pid()");
  ASSERT_TRUE(pid.ok()) << pid.error().message;
  auto admin = Database::open(url_);
  ASSERT_TRUE(admin.ok()) << admin.error().message;
  auto killed = read_query(**admin, "SELECT pg_terminate_backend($1)", {pid->rows.at(0).at(0)});
  ASSERT_TRUE(killed.ok()) << killed.error().message;
  // The server may take a moment to end the session.
  for (int i = 0; i < 100; ++i) {
    auto alive = read_query(**admin, "SELECT COUNT(*) FROM pg_stat_activity WHERE pid = $1", {pid->rows[0][0]});
    if (alive.ok() && alive->rows.at(0).at(0) == Value(0)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }

  expect_error(read_query(*db, "SELECT 1"), DbError::Kind::Unavailable);
  EXPECT_EQ(db->pool_stats().size, 0u);
  auto again = read_query(*db, "SELECT 1 AS one");
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(db->pool_stats().size, 1u);
}

TEST_F(PostgresTest, DeadlockIsRetried) {
  exec("CREATE TABLE accounts (id INTEGER PRIMARY KEY, balance INTEGER NOT NULL)");
  exec("INSERT INTO accounts (id, balance) VALUES (1, 0), (2, 0)");
  // Two transactions lock the rows in opposite orders; the first attempts
  // meet in the middle, so one of them is chosen as the deadlock victim,
  // rolled back and run again.
  std::latch both_hold_one(2);
  std::atomic<int> attempts{0};
  auto transfer = [&](int first, int second) {
    bool first_attempt = true;
    return db_->write([&](Connection& conn) -> DbStatus {
      ++attempts;
      for (int id : {first, second}) {
        auto updated = conn.query("UPDATE accounts SET balance = balance + 1 WHERE id = $1", {id});
        if (!updated.ok()) return updated.error();
        if (first_attempt && id == first) {
          first_attempt = false;
          both_hold_one.arrive_and_wait();
        }
      }
      return Ok{};
    });
  };
  DbStatus one = Ok{};
  DbStatus two = Ok{};
  std::thread a([&] { one = transfer(1, 2); });
  std::thread b([&] { two = transfer(2, 1); });
  a.join();
  b.join();
  EXPECT_TRUE(one.ok()) << one.error().message;
  EXPECT_TRUE(two.ok()) << two.error().message;
  EXPECT_EQ(attempts, 3);
  auto balances = read_query(*db_, "SELECT balance FROM accounts ORDER BY id");
  ASSERT_TRUE(balances.ok()) << balances.error().message;
  EXPECT_EQ(balances->rows.at(0).at(0), Value(2));
  EXPECT_EQ(balances->rows.at(1).at(0), Value(2));
}

TEST_F(PostgresTest, WorkThatIgnoresAFailureIsNotCommitted) {
  exec("CREATE TABLE t (id INTEGER PRIMARY KEY)");
  DbStatus status = db_->write([](Connection& conn) -> DbStatus {
    (void)conn.query("INSERT INTO t (id) VALUES (1)");
    (void)conn.query("INSERT INTO t (id) VALUES (1)");  // fails; the error is dropped
    return Ok{};
  });
  expect_error(status, DbError::Kind::Invalid);
  EXPECT_EQ(count_rows(*db_, "t"), 0);
}

}  // namespace
}  // namespace sindri::store
