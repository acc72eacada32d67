#pragma once
// What every API handler gets: the request, its path parameters, who is
// calling, and the broker's shared services. Plus transactions whose errors
// are API errors.

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/api_error.hpp"
#include "broker/config.hpp"
#include "broker/db/audit.hpp"
#include "broker/log.hpp"
#include "broker/target_state_cache.hpp"
#include "broker/webhook_crypto.hpp"
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
  // "generator:<id>": whom the render pool and the connection caps count.
  std::string key() const { return std::string(kind_name()) + ":" + id; }
};

class ConfigReloader;
class RenderPool;
class AgentChannels;
class LiveViews;
class Notices;

struct Services {
  store::Database& db;
  Logger& log;
  TargetStateCache& target_states;
  const LiveConfig& config;
  // The key webhook URLs and auth headers are encrypted with; set once the
  // broker has established it (Broker::initialize).
  const std::optional<WebhookKey>& webhook_key;
  // POST /admin/config/reload's: null where the broker was not given a way
  // to read its settings again (config_reload.hpp).
  ConfigReloader* reloader = nullptr;
  // Where template renders run (render_pool.hpp); set by the broker.
  RenderPool* render_pool = nullptr;
  // The agents connected over the WebSocket channel; set by the broker.
  AgentChannels* agent_channels = nullptr;
  // The sockets watching live views here, and the notices that reach them
  // and the agents' sockets on every broker (pushes.hpp); set by the broker.
  LiveViews* live_views = nullptr;
  Notices* notices = nullptr;
  // This broker among those sharing the database; set by the broker.
  std::string broker_id = {};
  // Makes this broker read the database's counters afresh for the next
  // request: before a push, whose agent polls at once. Set by the broker.
  std::function<void()> note_write = [] {};
};

// A handler's work for the render pool. It runs after the handler has
// returned, so it owns what it reads: the Call and its request are gone.
using RenderWork = std::function<ApiResult<http::Response>()>;

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
  // A response answered later with `work`'s result, run on the render pool
  // within the caller's limit of renders in flight; or 429/503 with
  // Retry-After when the pool refuses it.
  http::Response on_render_pool(RenderWork work) const;
};

// A handler's result as the response: an error in the API's shape, logged
// with the request's method and path when it is the broker's fault (5xx).
http::Response answer_of(ApiResult<http::Response> result, Logger& log, std::string_view method,
                         std::string_view path);

// For a render-pool task to return: a response deferred again, whose answer
// is `work`'s result computed on a request thread. The part of a task that
// waits on the database (an instantiation's write) goes there, so that the
// pool's few threads only render.
http::Response on_request_thread(Logger& log, std::string method, std::string path, RenderWork work);

using ApiHandler = std::function<ApiResult<http::Response>(Call&)>;

// The identity kinds a route lets call it, e.g. Allow::Admin | Allow::Agent.
enum class Allow : uint8_t { Admin = 1, Generator = 2, Agent = 4 };
constexpr Allow operator|(Allow a, Allow b) { return Allow(uint8_t(a) | uint8_t(b)); }
bool allows(Allow allowed, Identity::Kind kind);

// A handler and the callers brokkr-v1.json lets call it; others get 403
// before the handler runs.
struct ApiRoute {
  std::string method;
  std::string pattern;  // under /api/v1
  Allow allowed;
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

// An audit entry for a change `call` made: the caller as actor, its address
// and user agent.
db::AuditEntry audit_entry(const Call& call, std::string action, std::string resource_type, std::string resource_id,
                           Value details = Value());

// Writes audit_entry(call, ...) in the change's transaction.
ApiResult<Ok> audit(const Call& call, store::Connection& connection, std::string action, std::string resource_type,
                    std::string resource_id, Value details = Value());

// Bumps the credentials generation (db/counters.hpp) and tells `call`, so
// that this broker's next requests read the counter again.
ApiResult<Ok> touch_credentials(Call& call, store::Connection& connection);

}  // namespace sindri::broker
