#include "store/sqlite.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <unordered_map>
#include <utility>

#include "store/backend.hpp"
#include "store/pool.hpp"
#include "store/wal_checkpointer.hpp"
#include "store/write_queue.hpp"

namespace sindri::store {

namespace {

using Work = std::function<DbStatus(Connection&)>;

// Reader connections: enough for the broker's concurrent reads; SQLite gains
// nothing from more.
constexpr size_t kMaxReaders = 8;

DbError::Kind error_kind(int extended_code) {
  switch (extended_code) {
    case SQLITE_CONSTRAINT_UNIQUE:
    case SQLITE_CONSTRAINT_PRIMARYKEY:
      return DbError::Kind::Unique;
    case SQLITE_CONSTRAINT_FOREIGNKEY:
      return DbError::Kind::ForeignKey;
  }
  switch (extended_code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return DbError::Kind::Busy;
    // The file cannot be opened or read: the database is gone, not the SQL wrong.
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      return DbError::Kind::Unavailable;
  }
  return DbError::Kind::Invalid;
}

bool identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

// Binds one parameter; false for a Value SQLite cannot hold (array, object).
bool bind(sqlite3_stmt* statement, int index, const Value& value, int& rc) {
  switch (value.kind()) {
    case Value::Kind::Null:
      rc = sqlite3_bind_null(statement, index);
      return true;
    case Value::Kind::Bool:
      rc = sqlite3_bind_int(statement, index, value.get_bool() ? 1 : 0);
      return true;
    case Value::Kind::Int:
      rc = sqlite3_bind_int64(statement, index, value.get_int());
      return true;
    case Value::Kind::Float:
      rc = sqlite3_bind_double(statement, index, value.get_float());
      return true;
    case Value::Kind::String: {
      std::string_view text = value.get_string();
      // SQLITE_STATIC: the parameters outlive the statement's run, and the
      // bindings are cleared before query() returns.
      rc = sqlite3_bind_text64(statement, index, text.data(), text.size(), SQLITE_STATIC, SQLITE_UTF8);
      return true;
    }
    case Value::Kind::Array:
    case Value::Kind::Object:
      return false;
  }
  return false;
}

Value cell(sqlite3_stmt* statement, int column) {
  switch (sqlite3_column_type(statement, column)) {
    case SQLITE_INTEGER:
      return Value(sqlite3_column_int64(statement, column));
    case SQLITE_FLOAT:
      return Value(sqlite3_column_double(statement, column));
    case SQLITE_NULL:
      return Value();
    case SQLITE_TEXT: {
      const unsigned char* text = sqlite3_column_text(statement, column);
      return Value(std::string_view(reinterpret_cast<const char*>(text), sqlite3_column_bytes(statement, column)));
    }
    default: {
      const void* blob = sqlite3_column_blob(statement, column);
      return Value(std::string_view(static_cast<const char*>(blob), sqlite3_column_bytes(statement, column)));
    }
  }
}

class SqliteConnection final : public Connection {
 public:
  explicit SqliteConnection(sqlite3* db) : db_(db) {}
  ~SqliteConnection() override {
    for (auto& entry : statements_) sqlite3_finalize(entry.second);
    sqlite3_close(db_);
  }
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  Dialect dialect() const override { return Dialect::Sqlite; }
  using Connection::query;
  DbResult<Rows> query(std::string_view sql, std::span<const Value> params = {}) override;
  DbStatus execute_script(std::string_view sql) override;

  // A SQLite connection does not break the way a network connection does.
  bool usable() const { return true; }
  // False once SQLite has rolled a transaction back on its own (a full disk,
  // an I/O error), which it does without being asked.
  bool in_transaction() const { return sqlite3_get_autocommit(db_) == 0; }
  sqlite3* handle() const { return db_; }

 private:
  DbError error(std::string_view sql) const {
    return statement_error(error_kind(sqlite3_extended_errcode(db_)), sqlite3_errmsg(db_), sql);
  }
  DbResult<sqlite3_stmt*> prepared(std::string_view sql);

  sqlite3* db_;
  std::unordered_map<std::string, sqlite3_stmt*, TextHash, std::equal_to<>> statements_;
};

DbResult<sqlite3_stmt*> SqliteConnection::prepared(std::string_view sql) {
  if (auto found = statements_.find(sql); found != statements_.end()) return found->second;
  std::string text = sqlite_placeholders(sql);
  sqlite3_stmt* statement = nullptr;
  const char* tail = nullptr;
  if (sqlite3_prepare_v3(db_, text.data(), static_cast<int>(text.size()), SQLITE_PREPARE_PERSISTENT, &statement,
                         &tail) != SQLITE_OK) {
    return error(sql);
  }
  if (!statement) return statement_error(DbError::Kind::Invalid, "empty statement", sql);
  std::string_view rest(tail, text.data() + text.size() - tail);
  if (rest.find_first_not_of(" \t\r\n;") != std::string_view::npos) {
    sqlite3_finalize(statement);
    return statement_error(DbError::Kind::Invalid, "query() runs one statement; execute_script() runs several", sql);
  }
  statements_.emplace(std::string(sql), statement);
  return statement;
}

DbResult<Rows> SqliteConnection::query(std::string_view sql, std::span<const Value> params) {
  DbResult<sqlite3_stmt*> found = prepared(sql);
  if (!found.ok()) return std::move(found).error();
  sqlite3_stmt* statement = *found;
  // The cached statement goes back to its initial state however query() ends.
  struct Reset {
    sqlite3_stmt* statement;
    ~Reset() {
      sqlite3_reset(statement);
      sqlite3_clear_bindings(statement);
    }
  } reset{statement};

  const int expected = sqlite3_bind_parameter_count(statement);
  if (params.size() != static_cast<size_t>(expected)) {
    return statement_error(
        DbError::Kind::Invalid,
        "the statement takes " + std::to_string(expected) + " parameters, " + std::to_string(params.size()) + " given",
        sql);
  }
  for (size_t i = 0; i < params.size(); ++i) {
    int rc = SQLITE_OK;
    if (!bind(statement, static_cast<int>(i + 1), params[i], rc)) {
      return statement_error(DbError::Kind::Invalid,
                             "parameter $" + std::to_string(i + 1) + " is " + params[i].kind_name() +
                                 ": only null, bool, int, float and string can be bound",
                             sql);
    }
    if (rc != SQLITE_OK) return error(sql);
  }

  Rows rows;
  const int columns = sqlite3_column_count(statement);
  rows.columns.reserve(columns);
  for (int i = 0; i < columns; ++i) rows.columns.emplace_back(sqlite3_column_name(statement, i));
  for (;;) {
    const int rc = sqlite3_step(statement);
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) return error(sql);
    std::vector<Value>& row = rows.rows.emplace_back();
    row.reserve(columns);
    for (int i = 0; i < columns; ++i) row.push_back(cell(statement, i));
  }
  return rows;
}

DbStatus SqliteConnection::execute_script(std::string_view script) {
  const char* at = script.data();
  const char* const end = script.data() + script.size();
  // One statement at a time, so that an error names the statement that failed.
  while (at < end) {
    sqlite3_stmt* statement = nullptr;
    const char* tail = nullptr;
    if (sqlite3_prepare_v3(db_, at, static_cast<int>(end - at), 0, &statement, &tail) != SQLITE_OK) {
      return error(std::string_view(at, end - at));
    }
    if (!statement) break;  // only blanks and comments were left
    std::string_view text(at, tail - at);
    at = tail;
    int rc = SQLITE_ROW;
    while (rc == SQLITE_ROW) rc = sqlite3_step(statement);
    DbStatus status = rc == SQLITE_DONE ? DbStatus(Ok{}) : DbStatus(error(text));
    sqlite3_finalize(statement);
    if (!status.ok()) return status;
  }
  return Ok{};
}

// Runs work between `begin` and COMMIT, and rolls back when work or COMMIT
// fails (or work throws), so the connection goes back to its pool clean.
DbStatus in_transaction(SqliteConnection& conn, std::string_view begin, const Work& work) {
  DbResult<Rows> begun = conn.query(begin);
  if (!begun.ok()) return std::move(begun).error();
  struct Rollback {
    SqliteConnection& conn;
    bool armed = true;
    ~Rollback() {
      if (armed) conn.query("ROLLBACK");
    }
  } rollback{conn};
  DbStatus result = work(conn);
  if (!result.ok()) return result;
  DbResult<Rows> committed = conn.query("COMMIT");
  if (!committed.ok()) return std::move(committed).error();
  rollback.armed = false;
  return Ok{};
}

enum class Role { Writer, Reader };

// SQLite keeps memory statistics by default, behind one process-wide mutex
// that every allocation of every connection takes; the broker never reads
// them. Set once, before the library initialises itself on the first open.
void configure_sqlite_library() {
  static const bool configured = [] {
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    return true;
  }();
  (void)configured;
}

DbResult<std::unique_ptr<SqliteConnection>> connect(const std::string& name, bool memory,
                                                    std::chrono::milliseconds busy_timeout, Role role) {
  configure_sqlite_library();
  // NOMUTEX: a pooled connection is used by one thread at a time.
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (memory) flags |= SQLITE_OPEN_URI;
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(name.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return DbError{DbError::Kind::Unavailable, "cannot open SQLite database '" + name + "': " + message};
  }
  auto conn = std::make_unique<SqliteConnection>(db);
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, static_cast<int>(std::min<std::chrono::milliseconds::rep>(busy_timeout.count(), INT_MAX)));

  auto setup_failed = [&](const std::string& message) {
    return DbError{DbError::Kind::Unavailable, "cannot set up SQLite database '" + name + "': " + message};
  };
  if (role == Role::Writer) {
    // The journal mode is stored in the file: the writer sets it for everyone.
    DbResult<Rows> mode = conn->query("PRAGMA journal_mode=WAL");
    if (!mode.ok()) return setup_failed(mode.error().message);
    // An in-memory database has no WAL; it keeps its own journal in memory.
    const Value& now = mode->rows.at(0).at(0);
    if (!memory && !(now.is_string() && now.get_string() == "wal")) {
      return setup_failed("it stays out of WAL mode");
    }
  }
  // synchronous=NORMAL in WAL mode: a commit survives the process being
  // killed; only a power loss can take back the last commits.
  std::string_view settings = role == Role::Writer
                                  ? "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;"
                                  : "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA query_only=ON;";
  if (DbStatus set = conn->execute_script(settings); !set.ok()) return setup_failed(set.error().message);
  return conn;
}

class SqliteDatabase final : public Database {
 public:
  SqliteDatabase(std::unique_ptr<SqliteConnection> writer, std::unique_ptr<WalCheckpointer> checkpointer,
                 std::string name, bool memory, const OpenOptions& options)
      : writer_(std::move(writer)),
        checkpointer_(std::move(checkpointer)),
        write_queue_(options.busy_timeout),
        readers_(std::clamp<size_t>(options.pool_size, 1, kMaxReaders), options.busy_timeout,
                 [name = std::move(name), memory, timeout = options.busy_timeout] {
                   return connect(name, memory, timeout, Role::Reader);
                 }) {}

  Dialect dialect() const override { return Dialect::Sqlite; }

  DbStatus read(const Work& work) override {
    DbResult<Pool<SqliteConnection>::Lease> lease = readers_.acquire();
    if (!lease.ok()) return std::move(lease).error();
    // Deferred BEGIN: the snapshot is taken by the first statement and holds
    // until COMMIT.
    return in_transaction(**lease, "BEGIN", work);
  }

  DbResult<Rows> query_alone(std::string_view sql, std::span<const Value> params) override {
    DbResult<Pool<SqliteConnection>::Lease> lease = readers_.acquire();
    if (!lease.ok()) return std::move(lease).error();
    return (*lease)->query(sql, params);
  }

  DbStatus write(const Work& work) override {
    if (writing_thread_ == this) {
      return DbError{DbError::Kind::Invalid,
                     "write() called inside write() on the same thread: it would wait for itself"};
    }
    return write_queue_.submit(work, [this](std::span<WriteQueue::Entry* const> batch) { write_batch(batch); });
  }

  PoolStats pool_stats() const override {
    PoolStats stats = readers_.stats();
    stats.size += 1;
    stats.limit += 1;
    stats.in_use += writing_ ? 1 : 0;
    stats.queued_writes = write_queue_.queued();
    stats.writes = writes_;
    stats.write_transactions = write_transactions_;
    stats.wal_checkpoints = checkpointer_ ? checkpointer_->checkpoints() : 0;
    return stats;
  }

 private:
  // The leader's side of group commit: the batch in one transaction, each
  // work inside its own savepoint, so that a work that fails is undone alone
  // and the others still commit. Should the transaction itself fail (a
  // deferred constraint at COMMIT, or SQLite rolling everything back after an
  // I/O error), every work runs again alone: one that failed inside the group
  // may have failed on an earlier one's rows, which are gone now, and no
  // caller may fail for another's write. IMMEDIATE takes the write lock at
  // BEGIN, so no statement inside can find the database locked by another
  // process halfway through.
  void write_batch(std::span<WriteQueue::Entry* const> batch) {
    writing_ = true;
    struct Done {
      SqliteDatabase& db;
      const SqliteDatabase* outer = std::exchange(writing_thread_, &db);
      ~Done() {
        db.writing_ = false;
        writing_thread_ = outer;
      }
    } done{*this};
    writes_ += batch.size();
    if (batch.size() == 1) return write_alone(*batch[0]);
    ++write_transactions_;
    DbStatus begun = step("BEGIN IMMEDIATE");
    if (!begun.ok()) {
      for (WriteQueue::Entry* entry : batch) entry->status = begun.error();
      return;
    }
    // Whatever escapes (an allocation failure) must not leave the writer
    // inside this transaction for every later write to trip over.
    struct RollbackLeftover {
      SqliteDatabase& db;
      ~RollbackLeftover() {
        if (db.writer_->in_transaction()) (void)db.step("ROLLBACK");
      }
    } leftover{*this};
    bool whole = true;
    for (WriteQueue::Entry* entry : batch) {
      if (!step("SAVEPOINT sindri_group_write").ok()) {
        whole = false;
        break;
      }
      entry->status = run_caught(*entry, [&] { return (*entry->work)(*writer_); });
      whole = writer_->in_transaction() &&
              (entry->status.ok() ? step("RELEASE sindri_group_write") : undo_savepoint()).ok();
      if (!whole) break;
    }
    if (whole && step("COMMIT").ok()) return;
    if (writer_->in_transaction()) (void)step("ROLLBACK");
    for (WriteQueue::Entry* entry : batch) {
      entry->exception = nullptr;
      write_alone(*entry);
    }
  }

  void write_alone(WriteQueue::Entry& entry) {
    ++write_transactions_;
    entry.status = run_caught(entry, [&] { return in_transaction(*writer_, "BEGIN IMMEDIATE", *entry.work); });
  }

  DbStatus step(std::string_view sql) {
    DbResult<Rows> done = writer_->query(sql);
    if (!done.ok()) return std::move(done).error();
    return Ok{};
  }

  DbStatus undo_savepoint() {
    DbStatus undone = step("ROLLBACK TO sindri_group_write");
    if (!undone.ok()) return undone;
    return step("RELEASE sindri_group_write");
  }

  // A work's outcome, with what it throws kept for its caller's thread.
  template <class Run>
  static DbStatus run_caught(WriteQueue::Entry& entry, Run&& run) {
    try {
      return run();
    } catch (...) {
      entry.exception = std::current_exception();
      return DbError{DbError::Kind::Invalid, "the write threw an exception"};
    }
  }

  // The innermost Database whose writer this thread holds, to refuse a
  // nested write() that would wait for itself.
  static thread_local const SqliteDatabase* writing_thread_;

  std::unique_ptr<SqliteConnection> writer_;
  std::unique_ptr<WalCheckpointer> checkpointer_;  // after writer_: it lets go of writer_'s hook first
  WriteQueue write_queue_;
  std::atomic<bool> writing_{false};
  std::atomic<uint64_t> writes_{0};
  std::atomic<uint64_t> write_transactions_{0};
  Pool<SqliteConnection> readers_;
};

thread_local const SqliteDatabase* SqliteDatabase::writing_thread_ = nullptr;

}  // namespace

std::string sqlite_placeholders(std::string_view sql) {
  std::string out;
  out.reserve(sql.size());
  size_t i = 0;
  // Copies sql[i, end) unchanged, end clamped to the text.
  auto copy_to = [&](size_t end) {
    end = std::min(end, sql.size());
    out.append(sql, i, end - i);
    i = end;
  };
  const size_t npos = std::string_view::npos;
  while (i < sql.size()) {
    const char c = sql[i];
    const char next = i + 1 < sql.size() ? sql[i + 1] : '\0';
    if (c == '\'' || c == '"' || c == '`') {
      // A doubled quote inside ends one literal and starts the next: same text.
      size_t close = sql.find(c, i + 1);
      copy_to(close == npos ? npos : close + 1);
    } else if (c == '[') {
      size_t close = sql.find(']', i + 1);
      copy_to(close == npos ? npos : close + 1);
    } else if (c == '-' && next == '-') {
      copy_to(sql.find('\n', i));
    } else if (c == '/' && next == '*') {
      size_t close = sql.find("*/", i + 2);
      copy_to(close == npos ? npos : close + 2);
    } else if (c == '$' && next >= '0' && next <= '9' && (i == 0 || !identifier_char(sql[i - 1]))) {
      out += '?';
      ++i;
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

DbResult<std::unique_ptr<Database>> open_sqlite(std::string_view path, const OpenOptions& options) {
  if (!options.tenant_schema.empty()) {
    return DbError{DbError::Kind::Invalid,
                   "tenant schema '" + options.tenant_schema + "': multi-tenant mode needs PostgreSQL"};
  }
  if (path.empty()) {
    return DbError{DbError::Kind::Invalid, "sqlite:// needs a path: sqlite://FILE or sqlite://:memory:"};
  }
  const bool memory = path == ":memory:";
  std::string name(path);
  if (memory) {
    // memdb shares a database among the connections that open the same
    // "/name", with real locks (busy_timeout applies), unlike shared cache.
    static std::atomic<unsigned> next_memory_id{0};
    name = "file:/sindri-memory-" + std::to_string(next_memory_id++) + "?vfs=memdb";
  }
  if (!memory && !options.create_if_missing && ::access(name.c_str(), F_OK) != 0) {
    return DbError{DbError::Kind::Invalid, "no SQLite database at '" + name + "': " + std::strerror(errno)};
  }
  DbResult<std::unique_ptr<SqliteConnection>> writer = connect(name, memory, options.busy_timeout, Role::Writer);
  if (!writer.ok()) return std::move(writer).error();
  std::unique_ptr<WalCheckpointer> checkpointer;
  if (!memory) {
    SINDRI_TRY(started, WalCheckpointer::start(name, (*writer)->handle(), options.busy_timeout));
    checkpointer = std::move(started);
  }
  return std::unique_ptr<Database>(std::make_unique<SqliteDatabase>(std::move(writer).value(), std::move(checkpointer),
                                                                    std::move(name), memory, options));
}

}  // namespace sindri::store
