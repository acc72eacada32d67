#pragma once
// One interface over the two databases the broker runs on: SQLite (embedded
// default, one file) and PostgreSQL (shared by several brokers). Statements
// are written once with $1..$n placeholders; parameters and result cells are
// Values (null, bool, int, float, string), so rows flow straight into the
// API's JSON without another representation in between.

#include <chrono>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::store {

enum class Dialect { Sqlite, Postgres };

struct DbError {
  enum class Kind {
    Unavailable,  // cannot connect, pool exhausted past the timeout, database gone
    Unique,       // a UNIQUE or PRIMARY KEY constraint refused the row
    ForeignKey,   // a FOREIGN KEY constraint refused the row
    Busy,         // lock or serialization conflict that outlived the retries
    Invalid,      // bad URL, bad schema name, SQL the database rejected
  };
  Kind kind = Kind::Invalid;
  std::string message;  // the database's own words, with the statement's first line
};

template <class T>
using DbResult = Result<T, DbError>;
using DbStatus = DbResult<Ok>;

// The rows a statement produced (RETURNING included). Cells are Null, Int
// (SQLite INTEGER; PostgreSQL int2/int4/int8), Bool (PostgreSQL bool only),
// Float, or String (everything else, as text).
struct Rows {
  std::vector<std::string> columns;
  std::vector<std::vector<Value>> rows;

  bool empty() const { return rows.empty(); }
  size_t size() const { return rows.size(); }
  // Index of a column by name; the name must exist.
  size_t column(std::string_view name) const;
};

// One connection, borrowed from the pool for the duration of a read or write.
class Connection {
 public:
  virtual ~Connection() = default;
  virtual Dialect dialect() const = 0;
  // One statement with $1..$n parameters. Prepared once per connection and
  // reused: call it with the same SQL text every time.
  virtual DbResult<Rows> query(std::string_view sql, std::span<const Value> params = {}) = 0;
  DbResult<Rows> query(std::string_view sql, std::initializer_list<Value> params) {
    return query(sql, std::span<const Value>(params.begin(), params.size()));
  }
  // Several statements without parameters (migrations).
  virtual DbStatus execute_script(std::string_view sql) = 0;
};

struct OpenOptions {
  size_t pool_size = 50;  // PostgreSQL connections (seed 002's default); SQLite readers
  std::chrono::milliseconds busy_timeout{5000};  // SQLite busy_timeout; pool wait for both
  // PostgreSQL multi-tenant mode: every table lives in this schema, created if
  // missing. Letter first, then letters, digits and underscores (seed 002).
  std::string tenant_schema;
  // When false, a missing SQLite file or tenant schema is an error instead
  // of being created: for tools that work on a database a broker made.
  bool create_if_missing = true;
};

// A connection of its own that hears the notices processes sharing the
// database send (PostgreSQL's LISTEN). One thread uses it.
class Listener {
 public:
  virtual ~Listener() = default;
  // The payloads that arrived within `timeout`, oldest first (none when it
  // passed quietly); Unavailable when the connection was lost, after which
  // the listener is spent and a new one must be opened.
  virtual DbResult<std::vector<std::string>> wait(std::chrono::milliseconds timeout) = 0;
};

// The largest payload notify() carries (PostgreSQL's limit is 8000 bytes).
inline constexpr size_t kMaxNoticeBytes = 7900;

// A database and its connection pool. Thread-safe.
class Database {
 public:
  virtual ~Database() = default;

  // "sqlite://PATH" (relative or absolute; "sqlite://:memory:" for a private
  // in-memory database) or "postgres://..." / "postgresql://..." (libpq URI).
  static DbResult<std::unique_ptr<Database>> open(const std::string& url, const OpenOptions& options = {});

  virtual Dialect dialect() const = 0;

  // Runs `work` on a pooled connection inside a read transaction (a
  // consistent snapshot across its statements).
  virtual DbStatus read(const std::function<DbStatus(Connection&)>& work) = 0;
  // One SELECT on a pooled connection, as a transaction of its own:
  // consistent by itself, without read()'s BEGIN and COMMIT (two round trips
  // on PostgreSQL). Text that does not start with SELECT is refused as
  // Invalid; no read-only transaction guards it, so a SELECT that writes
  // (nextval, FOR UPDATE) is the caller's to avoid.
  DbResult<Rows> read_statement(std::string_view sql, std::span<const Value> params = {});
  DbResult<Rows> read_statement(std::string_view sql, std::initializer_list<Value> params) {
    return read_statement(sql, std::span<const Value>(params.begin(), params.size()));
  }
  // Runs `work` inside a write transaction: committed when it returns Ok and
  // durable against a process crash once write() returns; rolled back when it
  // returns an error. SQLite has one writer at a time (BEGIN IMMEDIATE) and
  // may run concurrent works in one transaction (group commit), each in its
  // own savepoint; PostgreSQL retries the whole of `work` on a serialization
  // failure or deadlock. So `work` may run more than once, on another
  // thread, and must never begin, commit or roll back the transaction itself.
  virtual DbStatus write(const std::function<DbStatus(Connection&)>& work) = 0;

  // Connections in use and in the pool, writes waiting for SQLite's writer,
  // and the writes run so far and the transactions they took (fewer when
  // SQLite commits them in groups; more when PostgreSQL retries), and
  // SQLite's WAL checkpoints, for /metrics.
  struct PoolStats {
    size_t in_use = 0;
    size_t size = 0;
    size_t limit = 0;  // the most connections the pool opens
    size_t queued_writes = 0;
    uint64_t writes = 0;
    uint64_t write_transactions = 0;
    uint64_t wal_checkpoints = 0;  // SQLite's, run off the write path
  };
  virtual PoolStats pool_stats() const = 0;

  // Whether processes sharing this database hear each other's notices
  // (PostgreSQL); SQLite has one process, and neither call below.
  virtual bool carries_notices() const { return false; }
  // Opens a listener for `topic` (a tenant schema hears only its own).
  virtual DbResult<std::unique_ptr<Listener>> listen(std::string_view topic);
  // Sends `payload` (at most kMaxNoticeBytes) to every listener of `topic`,
  // at once, outside any transaction.
  virtual DbStatus notify(std::string_view topic, std::string_view payload);
  // The same within the transaction `connection` is in: sent when it
  // commits, never when it rolls back.
  virtual DbStatus notify_in(Connection& connection, std::string_view topic, std::string_view payload);

 protected:
  // read_statement() once the statement is known to be a SELECT.
  virtual DbResult<Rows> query_alone(std::string_view sql, std::span<const Value> params) = 0;
};

// True for the names seed 002 accepts as tenant schema names:
// [A-Za-z][A-Za-z0-9_]*, at most 63 bytes (PostgreSQL's identifier limit).
bool is_valid_schema_name(std::string_view name);

}  // namespace sindri::store
