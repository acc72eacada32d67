#pragma once
// What every API handler gets: the request, its path parameters, who is
// calling, and the broker's shared services. Plus the helpers each resource
// file uses: transactions whose errors are API errors, and rows as objects.

#include <atomic>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/api_error.hpp"
#include "broker/log.hpp"
#include "broker/target_state_cache.hpp"
#include "http/router.hpp"
#include "http/server.hpp"
#include "store/database.hpp"

namespace sindri::broker {

struct Identity {
  enum class Kind { Admin, Generator, Agent };
  Kind kind = Kind::Admin;
  std::string id;

  bool is_admin() const { return kind == Kind::Admin; }
  bool is_generator(std::string_view generator_id) const { return kind == Kind::Generator && id == generator_id; }
  bool is_agent(std::string_view agent_id) const { return kind == Kind::Agent && id == agent_id; }
  const char* kind_name() const;
};

struct Services {
  store::Database& db;
  Logger& log;
  TargetStateCache& target_states;
  // The most YAML a rendered template may give a deployment object: what a
  // direct creation could send at most (the request body limit).
  size_t object_limit;
};

struct Call {
  http::Request& request;
  const http::PathParams& params;
  const Identity& caller;
  Services& services;
  // Read when the request arrived; GET routes only (writes skip it).
  std::optional<int64_t> target_state_generation;
  bool touched_credentials = false;  // set by touch_credentials

  store::Database& db() const { return services.db; }
  // The path parameter, checked to be a UUID (400 naming it otherwise).
  ApiResult<std::string> id_param(std::string_view name = "id") const;
};

using ApiHandler = std::function<ApiResult<http::Response>(Call&)>;

// A handler and the identity kinds brokkr-v1.json lets call it; others get
// 403 before the handler runs.
struct ApiRoute {
  std::string method;
  std::string pattern;  // under /api/v1
  bool admin = false, generator = false, agent = false;
  ApiHandler handler;
};

// Runs `work` (Connection& -> ApiResult<T>) inside `transaction`, the
// database's read() or write(). An error rolls the transaction back; a
// database error inside keeps its cause, so that the store can retry a
// serialization conflict.
template <class T, class Transaction, class Work>
ApiResult<T> run_transaction(Transaction&& transaction, Work&& work) {
  std::optional<ApiResult<T>> outcome;
  auto status = transaction([&](store::Connection& connection) -> store::DbStatus {
    outcome.emplace(work(connection));
    if (outcome->ok()) return Ok{};
    const ApiError& error = outcome->error();
    if (error.cause) return *error.cause;
    return store::DbError{store::DbError::Kind::Invalid, "rolled back: " + error.message};
  });
  if (outcome && !outcome->ok()) return std::move(*outcome).error();
  if (!status.ok()) return database_error(std::move(status).error());
  return std::move(*outcome);
}

template <class T, class Work>
ApiResult<T> in_write(store::Database& db, Work&& work) {
  return run_transaction<T>([&db](const auto& body) { return db.write(body); }, std::forward<Work>(work));
}

template <class T, class Work>
ApiResult<T> in_read(store::Database& db, Work&& work) {
  return run_transaction<T>([&db](const auto& body) { return db.read(body); }, std::forward<Work>(work));
}

// Row `index` as a JSON object keyed by column name. SQLite has no boolean
// type: the columns named in `booleans` turn from 0/1 into false/true.
Value row_object(const store::Rows& rows, size_t index, std::initializer_list<std::string_view> booleans = {});
Value rows_array(const store::Rows& rows, std::initializer_list<std::string_view> booleans = {});

// Bumps the counter that cached target states are checked against; call it
// in every write that can change what an agent's target state holds.
ApiResult<Ok> touch_target_state(store::Connection& connection);
// The row of the target-state counter that this thread's writes bump.
int64_t target_state_shard();
// Bumps the counter that cached PAK lookups are checked against; call it in
// every write that revokes a PAK or the identity behind it. `call` learns of
// it, so that this broker's next requests read the counter again.
ApiResult<Ok> touch_credentials(Call& call, store::Connection& connection);
// The same for a write made outside any request (an operator's tool).
ApiResult<Ok> touch_credentials(store::Connection& connection);

}  // namespace sindri::broker
