#include "store/postgres.hpp"

#include <libpq-fe.h>
#include <poll.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <random>
#include <span>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "store/backend.hpp"
#include "store/pool.hpp"
#include "value/digest.hpp"

namespace sindri::store {

namespace {

using Work = std::function<DbStatus(Connection&)>;

// Column type OIDs (pg_type.oid) that become Bool, Int or Float cells.
constexpr Oid kBoolOid = 16;
constexpr Oid kInt8Oid = 20;
constexpr Oid kInt2Oid = 21;
constexpr Oid kInt4Oid = 23;
constexpr Oid kFloat4Oid = 700;
constexpr Oid kFloat8Oid = 701;

// Runs of a write() that ends in a serialization failure or deadlock.
constexpr int kWriteAttempts = 5;

// Used when the URL sets no connect_timeout: a host that drops packets
// would otherwise hold a pool slot for the kernel's TCP timeout (minutes).
constexpr const char* kConnectTimeoutSeconds = "10";

struct ClearResult {
  void operator()(PGresult* result) const { PQclear(result); }
};
using PgResult = std::unique_ptr<PGresult, ClearResult>;

// libpq's messages end in a newline and continue on indented lines
// ("ERROR:  ...\nDETAIL:  ..."): one line, single spaces.
std::string one_line(const char* text) {
  std::string out;
  for (const char* at = text; *at; ++at) {
    const bool blank = *at == ' ' || *at == '\n' || *at == '\t' || *at == '\r';
    if (!blank) {
      out += *at;
    } else if (!out.empty() && out.back() != ' ') {
      out += ' ';
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

DbError::Kind sqlstate_kind(std::string_view state) {
  if (state == "23505") return DbError::Kind::Unique;
  if (state == "23503") return DbError::Kind::ForeignKey;
  // serialization_failure, deadlock_detected, lock_not_available
  if (state == "40001" || state == "40P01" || state == "55P03") return DbError::Kind::Busy;
  // connection_exception, and the server shutting down or killing the session
  if (state.starts_with("08") || state == "57P01" || state == "57P02" || state == "57P03") {
    return DbError::Kind::Unavailable;
  }
  return DbError::Kind::Invalid;
}

Value cell(Oid type, std::string_view text) {
  switch (type) {
    case kBoolOid:
      return Value(text == "t");
    case kInt2Oid:
    case kInt4Oid:
    case kInt8Oid: {
      int64_t number = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
      if (ec == std::errc() && end == text.data() + text.size()) return Value(number);
      break;
    }
    case kFloat4Oid:
    case kFloat8Oid: {
      // from_chars also reads PostgreSQL's "NaN", "Infinity" and "-Infinity".
      double number = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
      if (ec == std::errc() && end == text.data() + text.size()) return Value(number);
      break;
    }
  }
  return Value(text);
}

class PgConnection final : public Connection {
 public:
  explicit PgConnection(PGconn* conn) : conn_(conn) {}
  ~PgConnection() override { PQfinish(conn_); }
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  Dialect dialect() const override { return Dialect::Postgres; }
  using Connection::query;
  DbResult<Rows> query(std::string_view sql, std::span<const Value> params = {}) override;
  DbStatus execute_script(std::string_view sql) override;

  // Worth keeping in the pool: connected, and not left inside a transaction.
  bool usable() const {
    return !broken_ && pending_begin_.empty() && PQstatus(conn_) == CONNECTION_OK &&
           PQtransactionStatus(conn_) == PQTRANS_IDLE;
  }
  // A transaction's BEGIN goes to the server with its first statement, in
  // one pipeline: a round trip fewer for every transaction.
  void begin_with_next_statement(std::string_view begin) { pending_begin_ = begin; }
  // COMMIT or ROLLBACK; nothing to send when no statement ran.
  DbStatus end_transaction(std::string_view how) {
    if (!pending_begin_.empty()) {
      pending_begin_.clear();
      return Ok{};
    }
    return execute_script(how);
  }
  // A statement failed and the transaction can only be rolled back.
  bool transaction_failed() const { return PQtransactionStatus(conn_) == PQTRANS_INERROR; }
  PGconn* raw() const { return conn_; }

 private:
  DbError error(const PGresult* result, std::string_view sql);
  struct Prepared {
    std::string name;
    size_t params;  // as the server counted them
  };
  DbResult<const Prepared*> prepared(std::string_view sql);
  DbResult<PgResult> execute_after_begin(const Prepared& statement, const std::vector<const char*>& values,
                                         std::string_view sql);

  PGconn* conn_;
  bool broken_ = false;
  std::string pending_begin_;  // BEGIN not sent yet; see begin_with_next_statement
  size_t statements_prepared_ = 0;
  // SQL text to its prepared statement on this connection; statements
  // outlive the transaction they were prepared in.
  std::unordered_map<std::string, Prepared, TextHash, std::equal_to<>> statements_;
};

DbError PgConnection::error(const PGresult* result, std::string_view sql) {
  const char* state = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  DbError::Kind kind = state ? sqlstate_kind(state) : DbError::Kind::Invalid;
  if (kind == DbError::Kind::Unavailable || PQstatus(conn_) == CONNECTION_BAD) {
    broken_ = true;  // the pool drops it when it comes back
    kind = DbError::Kind::Unavailable;
  }
  std::string message = one_line(result ? PQresultErrorMessage(result) : "");
  if (message.empty()) message = one_line(PQerrorMessage(conn_));
  return statement_error(kind, message, sql);
}

DbResult<const PgConnection::Prepared*> PgConnection::prepared(std::string_view sql) {
  if (auto found = statements_.find(sql); found != statements_.end()) return &found->second;
  // A fresh name even if an earlier PQprepare left one behind uncached.
  std::string name = "sindri_" + std::to_string(++statements_prepared_);
  // No parameter types: the server infers them from the statement.
  PgResult result(PQprepare(conn_, name.c_str(), std::string(sql).c_str(), 0, nullptr));
  if (!result || PQresultStatus(result.get()) != PGRES_COMMAND_OK) return error(result.get(), sql);
  // The parameter count, checked before each run: the server answers a
  // wrong count with a protocol violation, which reads as a lost connection.
  PgResult described(PQdescribePrepared(conn_, name.c_str()));
  if (!described || PQresultStatus(described.get()) != PGRES_COMMAND_OK) return error(described.get(), sql);
  Prepared statement{std::move(name), static_cast<size_t>(PQnparams(described.get()))};
  return &statements_.emplace(std::string(sql), std::move(statement)).first->second;
}

DbResult<Rows> PgConnection::query(std::string_view sql, std::span<const Value> params) {
  // Parameters go as text, which the server parses as the inferred type.
  std::vector<std::string> texts(params.size());
  std::vector<const char*> values(params.size(), nullptr);
  for (size_t i = 0; i < params.size(); ++i) {
    const Value& param = params[i];
    char digits[32];
    switch (param.kind()) {
      case Value::Kind::Null:
        break;
      case Value::Kind::Bool:
        values[i] = param.get_bool() ? "true" : "false";
        break;
      case Value::Kind::Int:
        texts[i].assign(digits, std::to_chars(digits, digits + sizeof digits, param.get_int()).ptr);
        values[i] = texts[i].c_str();
        break;
      case Value::Kind::Float:
        // Shortest text that reads back as the same double.
        texts[i].assign(digits, std::to_chars(digits, digits + sizeof digits, param.get_float()).ptr);
        values[i] = texts[i].c_str();
        break;
      case Value::Kind::String:
        // Text parameters end at a NUL: refuse rather than store a cut string.
        if (param.get_string().find('\0') != std::string_view::npos) {
          return statement_error(DbError::Kind::Invalid,
                                 "parameter $" + std::to_string(i + 1) + " holds a NUL character, which text cannot",
                                 sql);
        }
        texts[i] = param.get_string();
        values[i] = texts[i].c_str();
        break;
      case Value::Kind::Array:
      case Value::Kind::Object:
        return statement_error(DbError::Kind::Invalid,
                               "parameter $" + std::to_string(i + 1) + " is " + param.kind_name() +
                                   ": only null, bool, int, float and string can be bound",
                               sql);
    }
  }

  DbResult<const Prepared*> statement = prepared(sql);
  if (!statement.ok()) return std::move(statement).error();
  if ((*statement)->params != params.size()) {
    return statement_error(DbError::Kind::Invalid,
                           "the statement takes " + std::to_string((*statement)->params) + " parameters, " +
                               std::to_string(params.size()) + " given",
                           sql);
  }
  PgResult result;
  if (pending_begin_.empty()) {
    result.reset(PQexecPrepared(conn_, (*statement)->name.c_str(), static_cast<int>(params.size()), values.data(),
                                nullptr, nullptr, 0));
  } else {
    DbResult<PgResult> piped = execute_after_begin(**statement, values, sql);
    if (!piped.ok()) return std::move(piped).error();
    result = std::move(piped).value();
  }
  const ExecStatusType status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) return error(result.get(), sql);

  Rows rows;
  const int columns = PQnfields(result.get());
  const int count = PQntuples(result.get());
  rows.columns.reserve(columns);
  for (int c = 0; c < columns; ++c) rows.columns.emplace_back(PQfname(result.get(), c));
  rows.rows.reserve(count);
  for (int r = 0; r < count; ++r) {
    std::vector<Value>& row = rows.rows.emplace_back();
    row.reserve(columns);
    for (int c = 0; c < columns; ++c) {
      if (PQgetisnull(result.get(), r, c)) {
        row.emplace_back();
      } else {
        std::string_view text(PQgetvalue(result.get(), r, c), PQgetlength(result.get(), r, c));
        row.push_back(cell(PQftype(result.get(), c), text));
      }
    }
  }
  return rows;
}

// The pending BEGIN and `statement` in one pipeline. Each query's results
// end with a null result, and the sync ends the pipeline. A BEGIN that fails
// aborts the statement; its error is the one reported.
DbResult<PgResult> PgConnection::execute_after_begin(const Prepared& statement, const std::vector<const char*>& values,
                                                     std::string_view sql) {
  const std::string begin = std::exchange(pending_begin_, std::string());
  if (PQenterPipelineMode(conn_) != 1) return error(nullptr, sql);
  const bool sent =
      PQsendQueryParams(conn_, begin.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0) == 1 &&
      PQsendQueryPrepared(conn_, statement.name.c_str(), static_cast<int>(values.size()), values.data(), nullptr,
                          nullptr, 0) == 1 &&
      PQpipelineSync(conn_) == 1;
  PgResult results[2];
  if (sent) {
    for (PgResult& result : results) {
      result.reset(PQgetResult(conn_));
      if (!result) break;  // the connection failed
      while (PgResult rest{PQgetResult(conn_)}) {
      }
    }
    PgResult sync(PQgetResult(conn_));
  }
  if (PQexitPipelineMode(conn_) != 1) broken_ = true;  // results left unread: never reuse it
  if (!sent || !results[0]) return error(nullptr, sql);
  if (PQresultStatus(results[0].get()) != PGRES_COMMAND_OK) return error(results[0].get(), begin);
  return std::move(results[1]);
}

DbStatus PgConnection::execute_script(std::string_view sql) {
  if (!pending_begin_.empty()) {
    const std::string begin = std::exchange(pending_begin_, std::string());
    PgResult begun(PQexec(conn_, begin.c_str()));
    if (!begun || PQresultStatus(begun.get()) != PGRES_COMMAND_OK) return error(begun.get(), begin);
  }
  PgResult result(PQexec(conn_, std::string(sql).c_str()));
  const ExecStatusType status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && status != PGRES_EMPTY_QUERY) {
    return error(result.get(), sql);
  }
  return Ok{};
}

// Runs work between `begin` and COMMIT, and rolls back when work or COMMIT
// fails (or work throws).
DbStatus in_transaction(PgConnection& conn, std::string_view begin, const Work& work) {
  conn.begin_with_next_statement(begin);
  struct Rollback {
    PgConnection& conn;
    bool armed = true;
    ~Rollback() {
      if (armed) conn.end_transaction("ROLLBACK");
    }
  } rollback{conn};
  DbStatus result = work(conn);
  if (!result.ok()) return result;
  // COMMIT of a failed transaction "succeeds" by rolling back: do not let
  // work that ignored an error believe its writes were kept.
  if (conn.transaction_failed()) {
    return DbError{DbError::Kind::Invalid, "a statement failed but the work went on and returned Ok; rolled back"};
  }
  if (DbStatus committed = conn.end_transaction("COMMIT"); !committed.ok()) return committed;
  rollback.armed = false;
  return Ok{};
}

// Randomized and growing, so that transactions that collided do not collide
// again in step.
void back_off(int attempt) {
  thread_local std::minstd_rand random{std::random_device{}()};
  std::uniform_int_distribution<int> delay_ms(1, 10 << attempt);
  std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(random)));
}

void ignore_notice(void*, const char*) {}

// Makes the tenant schema this connection's only search path, creating it
// the first time when `create` allows.
DbStatus use_schema(PgConnection& conn, const std::string& schema, bool create) {
  // Valid schema names need no escaping inside double quotes.
  const std::string quoted = '"' + schema + '"';
  // Checked first: CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege
  // even when the schema exists.
  DbResult<Rows> found = conn.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", {Value(schema)});
  if (!found.ok()) return std::move(found).error();
  if (found->empty() && !create) return DbError{DbError::Kind::Invalid, "the database has no such schema"};
  if (found->empty()) {
    DbStatus created = conn.execute_script("CREATE SCHEMA IF NOT EXISTS " + quoted);
    // Another connection creating it at the same moment wins with a unique
    // violation on the catalog for this one: the schema exists either way.
    if (!created.ok() && created.error().kind != DbError::Kind::Unique) return created;
  }
  return conn.execute_script("SET search_path TO " + quoted);
}

// TCP keepalives that find a dead server within about 20 s.
constexpr std::pair<const char*, const char*> kListenerKeepalives[] = {
    {"keepalives", "1"}, {"keepalives_idle", "10"}, {"keepalives_interval", "3"}, {"keepalives_count", "3"}};

DbResult<std::unique_ptr<PgConnection>> connect(const std::string& url, const std::string& schema, bool create,
                                                std::span<const std::pair<const char*, const char*>> extra = {}) {
  // Keywords are applied in order and the URL comes last, so its own
  // connect_timeout wins over the default.
  std::vector<const char*> keywords = {"connect_timeout"};
  std::vector<const char*> values = {kConnectTimeoutSeconds};
  for (const auto& [keyword, value] : extra) {
    keywords.push_back(keyword);
    values.push_back(value);
  }
  keywords.push_back("dbname");
  values.push_back(url.c_str());
  keywords.push_back(nullptr);
  values.push_back(nullptr);
  PGconn* raw = PQconnectdbParams(keywords.data(), values.data(), /*expand_dbname=*/1);
  if (!raw) return DbError{DbError::Kind::Unavailable, "cannot connect to PostgreSQL: out of memory"};
  auto conn = std::make_unique<PgConnection>(raw);
  if (PQstatus(raw) != CONNECTION_OK) {
    return DbError{DbError::Kind::Unavailable, "cannot connect to PostgreSQL: " + one_line(PQerrorMessage(raw))};
  }
  // NOTICEs ("schema already exists, skipping") would go to stderr.
  PQsetNoticeProcessor(raw, ignore_notice, nullptr);
  if (PQsetClientEncoding(raw, "UTF8") != 0) {
    return DbError{DbError::Kind::Unavailable,
                   "cannot set the PostgreSQL client encoding to UTF8: " + one_line(PQerrorMessage(raw))};
  }
  if (!schema.empty()) {
    if (DbStatus used = use_schema(*conn, schema, create); !used.ok()) {
      DbError error = std::move(used).error();
      error.message = "cannot use tenant schema '" + schema + "': " + error.message;
      return error;
    }
  }
  return conn;
}

// A tenant schema's brokers hear only each other: the channel carries the
// schema's name, or where that would pass the 63 bytes of an identifier, a
// digest of it.
std::string channel_of(std::string_view topic, const std::string& schema) {
  std::string channel(topic);
  if (schema.empty()) return channel;
  channel += "_";
  return channel.size() + schema.size() <= 63 ? channel + schema : channel + sha256_hex(schema).substr(0, 32);
}

class PgListener final : public Listener {
 public:
  explicit PgListener(std::unique_ptr<PgConnection> conn) : conn_(std::move(conn)) {}

  DbResult<std::vector<std::string>> wait(std::chrono::milliseconds timeout) override {
    std::vector<std::string> payloads = take();
    if (!payloads.empty()) return payloads;
    pollfd ready{PQsocket(conn_->raw()), POLLIN, 0};
    if (ready.fd < 0) return lost();
    const int polled = ::poll(&ready, 1, static_cast<int>(timeout.count()));
    if (polled < 0 && errno != EINTR) return lost();
    if (polled > 0 && PQconsumeInput(conn_->raw()) == 0) return lost();
    if (PQstatus(conn_->raw()) != CONNECTION_OK) return lost();
    return take();
  }

 private:
  std::vector<std::string> take() {
    std::vector<std::string> payloads;
    while (PGnotify* notice = PQnotifies(conn_->raw())) {
      payloads.emplace_back(notice->extra);
      PQfreemem(notice);
    }
    return payloads;
  }
  DbError lost() const {
    return DbError{DbError::Kind::Unavailable,
                   "the listening connection to PostgreSQL was lost: " + one_line(PQerrorMessage(conn_->raw()))};
  }

  std::unique_ptr<PgConnection> conn_;
};

class PgDatabase final : public Database {
 public:
  PgDatabase(const std::string& url, const OpenOptions& options)
      : url_(url),
        schema_(options.tenant_schema),
        pool_(std::max<size_t>(options.pool_size, 1), options.busy_timeout,
              [url, schema = options.tenant_schema, create = options.create_if_missing] {
                return connect(url, schema, create);
              }) {}

  Dialect dialect() const override { return Dialect::Postgres; }

  DbStatus read(const Work& work) override {
    DbResult<Pool<PgConnection>::Lease> lease = pool_.acquire();
    if (!lease.ok()) return std::move(lease).error();
    return in_transaction(**lease, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", work);
  }

  DbResult<Rows> query_alone(std::string_view sql, std::span<const Value> params) override {
    DbResult<Pool<PgConnection>::Lease> lease = pool_.acquire();
    if (!lease.ok()) return std::move(lease).error();
    return (*lease)->query(sql, params);
  }

  DbStatus write(const Work& work) override {
    ++writes_;
    for (int attempt = 1;; ++attempt) {
      DbStatus result = attempt_write(work);
      if (result.ok() || result.error().kind != DbError::Kind::Busy) return result;
      if (attempt == kWriteAttempts) {
        DbError error = std::move(result).error();
        error.message += " (gave up after " + std::to_string(kWriteAttempts) + " attempts)";
        return error;
      }
      back_off(attempt);
    }
  }

  PoolStats pool_stats() const override {
    PoolStats stats = pool_.stats();
    stats.writes = writes_;
    stats.write_transactions = write_transactions_;
    return stats;
  }

  bool carries_notices() const override { return true; }

  DbResult<std::unique_ptr<Listener>> listen(std::string_view topic) override {
    // A connection that only waits must probe the server itself, or a
    // server gone without a word (failover, a partition) goes unnoticed.
    DbResult<std::unique_ptr<PgConnection>> conn = connect(url_, {}, false, kListenerKeepalives);
    if (!conn.ok()) return std::move(conn).error();
    // An identifier in double quotes: the channel holds only a topic and a
    // valid schema name.
    if (DbStatus listening = (*conn)->execute_script("LISTEN \"" + channel_of(topic, schema_) + "\"");
        !listening.ok()) {
      return std::move(listening).error();
    }
    return std::unique_ptr<Listener>(std::make_unique<PgListener>(std::move(conn).value()));
  }

  DbStatus notify(std::string_view topic, std::string_view payload) override {
    const Value params[] = {Value(channel_of(topic, schema_)), Value(payload)};
    DbResult<Rows> sent = query_alone("SELECT pg_notify($1, $2)", params);
    if (!sent.ok()) return std::move(sent).error();
    return Ok{};
  }

  DbStatus notify_in(Connection& connection, std::string_view topic, std::string_view payload) override {
    DbResult<Rows> sent =
        connection.query("SELECT pg_notify($1, $2)", {Value(channel_of(topic, schema_)), Value(payload)});
    if (!sent.ok()) return std::move(sent).error();
    return Ok{};
  }

 private:
  // One run of work; the connection goes back to the pool before any back-off.
  DbStatus attempt_write(const Work& work) {
    DbResult<Pool<PgConnection>::Lease> lease = pool_.acquire();
    if (!lease.ok()) return std::move(lease).error();
    ++write_transactions_;
    return in_transaction(**lease, "BEGIN", work);
  }

  const std::string url_;
  const std::string schema_;
  Pool<PgConnection> pool_;
  std::atomic<uint64_t> writes_{0};
  std::atomic<uint64_t> write_transactions_{0};
};

}  // namespace

DbResult<std::unique_ptr<Database>> open_postgres(const std::string& url, const OpenOptions& options) {
  char* parse_error = nullptr;
  PQconninfoOption* parsed = PQconninfoParse(url.c_str(), &parse_error);
  if (!parsed) {
    std::string message = parse_error ? one_line(parse_error) : "out of memory";
    PQfreemem(parse_error);
    return DbError{DbError::Kind::Invalid, "invalid PostgreSQL URL: " + message};
  }
  PQconninfoFree(parsed);
  auto db = std::make_unique<PgDatabase>(url, options);
  if (DbStatus connected = db->read([](Connection&) -> DbStatus { return Ok{}; }); !connected.ok()) {
    return std::move(connected).error();
  }
  return std::unique_ptr<Database>(std::move(db));
}

}  // namespace sindri::store
