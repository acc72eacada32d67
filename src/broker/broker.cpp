#include "broker/broker.hpp"

#include <chrono>

#include "broker/agent_channel.hpp"
#include "broker/api/routes.hpp"
#include "broker/auth.hpp"
#include "broker/console.hpp"
#include "broker/cors.hpp"
#include "broker/access.hpp"
#include "broker/db/counters.hpp"
#include "broker/db/live_view_tickets.hpp"
#include "broker/db/stacks.hpp"
#include "broker/db/tables.hpp"
#include "broker/ids.hpp"
#include "broker/openapi.hpp"
#include "broker/passes.hpp"
#include "broker/pushes.hpp"
#include "broker/render_pool.hpp"
#include "broker/webhook_crypto.hpp"
#include "store/migrations.hpp"
#include "value/digest.hpp"
#include "value/uuid.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker {
namespace {

constexpr std::string_view kApiPrefix = "/api/v1";

// Brokkr's code for a route closed to the caller's kind of identity.
std::string refusal_code(Allow allowed) {
  if (allowed == Allow::Admin) return "admin_required";
  if (allowed == Allow::Agent) return "agent_pak_required";
  if (allowed == Allow::Generator) return "generator_required";
  return "forbidden";
}

// Every 429 and 503 tells the client when to try again; an answer that
// knows better (the render pool's) has set its own.
constexpr std::string_view kRetryAfterSeconds = "1";

void add_retry_after(http::Response& response) {
  if (response.status != 429 && response.status != 503) return;
  if (!http::find_header(response.headers, "Retry-After").empty()) return;
  response.headers.push_back({"Retry-After", std::string(kRetryAfterSeconds)});
}

std::vector<ApiRoute> all_routes() {
  std::vector<ApiRoute> routes;
  add_auth_routes(routes);
  add_generator_routes(routes);
  add_stack_routes(routes);
  add_stack_tag_routes(routes);
  add_deployment_object_routes(routes);
  add_agent_routes(routes);
  add_agent_tag_routes(routes);
  add_agent_target_routes(routes);
  add_agent_event_routes(routes);
  add_registration_routes(routes);
  add_template_routes(routes);
  add_template_tag_routes(routes);
  add_template_target_routes(routes);
  add_instantiation_routes(routes);
  add_work_order_routes(routes);
  add_diagnostic_routes(routes);
  add_webhook_routes(routes);
  add_health_routes(routes);
  add_fleet_routes(routes);
  add_telemetry_routes(routes);
  add_live_view_ticket_routes(routes);
  add_admin_routes(routes);
  add_admin_config_routes(routes);
  return routes;
}

}  // namespace

Broker::Broker(store::Database& db, Logger& log, LiveConfig& config)
    : db_(db),
      log_(log),
      config_(config),
      broker_id_(new_uuid()),
      counters_(std::chrono::milliseconds(config.current()->peer_change_delay_ms)),
      agent_channels_([this](const std::string& authorization) { return pak_still_valid(authorization); }),
      notices_([this](const Value& notice) { deliver_notice(services_, notice); }),
      services_{db, log, target_states_, config, webhook_key_} {
  for (ApiRoute& route : all_routes()) {
    const std::string pattern = std::string(kApiPrefix) + route.pattern;
    const std::string method = route.method;
    router_.add(method, pattern, [this, route = std::move(route)](http::Request& request,
                                                                         const http::PathParams& params) {
      // Only GET routes read target states (and every write changes them).
      auto counters = counters_.current(db_, route.method == "GET");
      if (!counters.ok()) return error_response(counters.error());
      auto caller = authenticate(db_, request, credentials_, counters->credentials);
      if (!caller.ok()) return refuse_unauthenticated(request, caller.error());
      http::Response response = respond_to(request, route, params, caller.value(), *counters);
      // A valid PAK: whatever the answer, no connection cap closes this one.
      response.authenticated = true;
      response.identity = caller->key();
      return response;
    });
  }
  render_pool_ = std::make_unique<RenderPool>(config_);
  services_.render_pool = render_pool_.get();
  services_.agent_channels = &agent_channels_;
  services_.live_views = &live_views_;
  services_.notices = &notices_;
  services_.broker_id = broker_id_;
  services_.note_write = [this] { counters_.wrote(false); };
}

http::Response Broker::respond_to(http::Request& request, const ApiRoute& route, const http::PathParams& params,
                                  const Identity& caller, const db::Generations& counters) {
  if (!allows(route.allowed, caller.kind)) {
    return error_response(forbidden(refusal_code(route.allowed), std::string(caller.kind_name()) +
                                                                 " PAKs may not call " + route.method + " " +
                                                                 std::string(kApiPrefix) + route.pattern));
  }
  const bool reads_target_state = route.method == "GET";
  Call call{request, params, caller, services_, std::nullopt};
  if (reads_target_state) call.target_state_generation = counters.target_state;
  http::Response response = answer_of(route.handler(call), log_, request.method, request.path);
  if (reads_target_state) return response;
  if (!response.later) {
    counters_.wrote(call.touched_credentials);
    return response;
  }
  // The work that writes runs later: its write is counted when it answers.
  return http::on_final_answer(std::move(response), [this, identity = caller.key()](http::Response& deferred) {
    counters_.wrote(false);
    deferred.authenticated = true;
    deferred.identity = identity;
  });
}

Broker::~Broker() { flush_auth_failures(AuthFailureLog::Due::everything); }

void Broker::flush_auth_failures(AuthFailureLog::Due due) {
  if (auto flushed = auth_failures_.flush(db_, std::chrono::system_clock::now(), due); !flushed.ok()) {
    log_.warn("cannot write refused authentications to the audit log", {{"cause", Value(flushed.error().message)}});
  }
}

Status Broker::initialize(const std::string& admin_pak_file) {
  auto applied = store::migrate(db_, broker_migrations());
  if (!applied.ok()) return make_error("database migration failed: " + applied.error().message);
  if (*applied > 0) log_.info("database migrated", {{"migrations_applied", Value(static_cast<int64_t>(*applied))}});
  auto bootstrap = bootstrap_admin(db_, admin_pak_file);
  if (!bootstrap.ok()) {
    const ApiError& error = bootstrap.error();
    return make_error("first-start bootstrap failed: " + (error.cause ? error.cause->message : error.message));
  }
  if (bootstrap->first_start) {
    log_.info("first start: admin PAK written", {{"admin_pak_file", Value(bootstrap->admin_pak_file)}});
  }
  auto webhook_key = establish_webhook_key(db_, *config_.current(), admin_pak_file, log_);
  if (!webhook_key.ok()) return make_error("webhooks: " + webhook_key.error().message);
  webhook_key_ = *webhook_key;
  return Ok{};
}

http::Response Broker::refuse_unauthenticated(const http::Request& request, const ApiError& error) {
  const bool batch_full = auth_failures_.record(request.remote, request.path,
                                                http::find_header(request.headers, "User-Agent"), error.code,
                                                std::chrono::system_clock::now());
  if (batch_full) flush_auth_failures(AuthFailureLog::Due::by_time);
  return error_response(error);
}

void Broker::start_background_jobs() {
  jobs_ = std::make_unique<JobRunner>(db_, log_, config_, broker_id_,
                                      periodic_passes(db_, log_, config_, webhook_key_, auth_failures_, broker_id_));
  if (!db_.carries_notices()) return;
  // At once: the pass waits its first interval, and until then other
  // brokers would count this one's sockets as closed.
  if (auto present = record_broker_presence(db_, broker_id_); !present.ok()) {
    log_.warn("cannot record this broker's presence", {{"cause", Value(present.error().message)}});
  }
  bus_ = std::make_unique<NoticeBus>(
      db_, log_, config_, broker_id_, [this](const Value& notice) { deliver_notice(services_, notice); },
      [this] { catch_up_after_missed_notices(services_); });
  notices_.carry_with([this](const Value& notice) { bus_->send(notice); },
                      [this](store::Connection& connection, const Value& notice) {
                        return bus_->stage(connection, notice);
                      },
                      [this] { return bus_->others_present(); });
}

void Broker::enable_reload(ConfigReloader::Reread reread, const std::optional<std::string>& watched_file) {
  reloader_ = std::make_unique<ConfigReloader>(config_, log_, db_, broker_id_, std::move(reread), [this] {
    if (jobs_) jobs_->reschedule();
  });
  services_.reloader = reloader_.get();
  if (watched_file) reloader_->watch(*watched_file);
}

void Broker::add_gauge_source(std::function<void(std::vector<http::Metrics::Gauge>&)> source) {
  gauge_sources_.push_back(std::move(source));
}

http::Response Broker::render_error(int status, std::string_view code, std::string_view message) {
  http::Response response =
      error_response(ApiError{status, std::string(code), std::string(message), Value(), std::nullopt});
  add_retry_after(response);
  return response;
}

namespace {

// A metric label from the client's method: any token is a method to HTTP,
// and each would be a series of its own.
std::string_view method_label(std::string_view method) {
  for (std::string_view known : {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}) {
    if (method == known) return known;
  }
  return method.empty() ? "unknown" : "other";
}

// Answered by the broker itself, before the API's routes, to GET and HEAD.
bool is_own_path(std::string_view path) {
  return path == "/healthz" || path == "/readyz" || path == "/metrics" || path == "/api/v1/openapi.json" ||
         is_console_path(path);
}

// The refusals of a WebSocket path (`what`: "the agent channel", "a live
// view") to another method than GET, and to a GET that asks no upgrade.
http::Response websocket_method_not_allowed(const http::Request& request, const std::string& what) {
  http::Response response = Broker::render_error(
      405, "method_not_allowed", request.method + " " + request.path + " is not allowed: " + what + " opens with GET");
  response.headers.push_back({"Allow", "GET"});
  return response;
}

http::Response upgrade_required(const std::string& what) {
  http::Response response =
      Broker::render_error(426, "upgrade_required", what + " is a WebSocket: ask with Upgrade: websocket");
  response.headers.push_back({"Upgrade", "websocket"});
  return response;
}

// What observe() reads of a request whose answer comes later: all but the
// body.
http::Request request_head(const http::Request& request) {
  return http::Request{request.method, request.target, request.path, request.raw_path, request.query,
                       request.headers, "", request.remote};
}

// 405 for a method other than GET and HEAD on a path the broker answers
// itself.
http::Response own_path_method_not_allowed(const http::Request& request) {
  http::Response response =
      Broker::render_error(405, "method_not_allowed", request.method + " is not allowed on " + request.raw_path);
  response.headers.push_back({"Allow", "GET, HEAD"});
  return response;
}

http::Response unmatched(const http::Router::Match& match, const http::Request& request) {
  if (match.status == 405) {
    http::Response response =
        Broker::render_error(405, "method_not_allowed", request.method + " is not allowed on " + request.raw_path);
    response.headers.push_back({"Allow", match.allow});
    return response;
  }
  return Broker::render_error(404, "not_found", "no such path: " + request.raw_path);
}

}  // namespace

void Broker::observe_refused(std::string_view method, int status, std::chrono::nanoseconds elapsed) {
  metrics_.observe("rejected", method_label(method), status, elapsed);
}

std::optional<http::Response> Broker::refuse_before_body(const http::Request& head) {
  auto refusal = refusal_before_body(head);
  if (refusal) cors::add_headers(head, config_, *refusal);
  return refusal;
}

std::optional<http::Response> Broker::refusal_before_body(const http::Request& head) {
  // Called only for a request with a body: none of these takes one, and an
  // anonymous client must not hold a connection sending it.
  if (is_own_path(head.path)) {
    const bool read = head.method == "GET" || head.method == "HEAD";
    if (!read) return own_path_method_not_allowed(head);
    return render_error(400, "body_not_allowed", head.method + " " + head.raw_path + " takes no request body");
  }
  if (head.path == kAgentChannelPath) {
    if (head.method != "GET") return websocket_method_not_allowed(head, "the agent channel");
    return render_error(400, "body_not_allowed", "the agent channel's upgrade takes no request body");
  }
  if (live_view_path(head.path)) {
    if (head.method != "GET") return websocket_method_not_allowed(head, "a live view");
    return render_error(400, "body_not_allowed", "a live view's upgrade takes no request body");
  }
  // A path nothing answers is refused as it would be once read.
  auto match = router_.match(head.method, head.raw_path);
  if (match.handler == nullptr) return unmatched(match, head);
  auto counters = counters_.current(db_, false);
  if (!counters.ok()) return std::nullopt;
  auto caller = authenticate(db_, head, credentials_, counters->credentials);
  if (caller.ok()) return std::nullopt;
  return refuse_unauthenticated(head, caller.error());
}

http::Response Broker::handle(http::Request& request) {
  const auto started = std::chrono::steady_clock::now();
  std::string route;
  http::Response response = dispatch(request, route);
  if (!response.later) {
    observe(request, route, response, started);
    return response;
  }
  // Headers, metrics and the log line apply when the deferred answer is
  // sent; the request is gone by then, so its head goes with it.
  return http::on_final_answer(std::move(response),
                               [this, head = request_head(request), route = std::move(route),
                                started](http::Response& deferred) { observe(head, route, deferred, started); });
}

void Broker::observe(const http::Request& request, const std::string& route, http::Response& response,
                     std::chrono::steady_clock::time_point started) {
  cors::add_headers(request, config_, response);
  add_retry_after(response);
  const auto elapsed = std::chrono::steady_clock::now() - started;
  metrics_.observe(route, method_label(request.method), response.status, elapsed);
  if (log_.enabled(LogLevel::Debug)) {
    log_.debug("request", {{"method", Value(request.method)},
                           {"path", Value(request.path)},
                           {"status", Value(response.status)},
                           {"duration_us", Value(static_cast<int64_t>(
                                               std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count()))},
                           {"remote", Value(request.remote)}});
  }
}

http::Response Broker::dispatch(http::Request& request, std::string& route) {
  if (cors::is_preflight(request) && request.path.starts_with(kApiPrefix)) {
    route = "preflight";
    const bool own = request.path == "/api/v1/openapi.json";
    return cors::answer_preflight(request, config_, router_.match(request.method, request.raw_path),
                                  own ? "GET, HEAD" : "");
  }
  const bool read = request.method == "GET" || request.method == "HEAD";
  if (!read && is_own_path(request.path)) {
    route = "unmatched";
    return own_path_method_not_allowed(request);
  }
  if (read && request.path == "/healthz") {
    route = "/healthz";
    return json_response(200, make_object({{"status", Value("ok")}}));
  }
  if (read && request.path == "/readyz") {
    route = "/readyz";
    return readiness();
  }
  if (read && request.path == "/metrics") {
    route = "/metrics";
    return metrics_text();
  }
  if (read && request.path == "/api/v1/openapi.json") {
    route = "/api/v1/openapi.json";
    static const auto document = http::SharedBody::make(openapi_document());
    http::Response response;
    response.shared_body = document;
    return response;
  }
  if (read && is_console_path(request.path)) {
    route = "/ui/";
    return serve_console(request, config_.current()->ui_directory);
  }
  if (request.path == kAgentChannelPath) {
    route = kAgentChannelPath;
    return open_agent_channel(request);
  }
  if (auto view = live_view_path(request.path)) {
    route = view->fleet ? "/api/v1/fleet/live" : "/api/v1/stacks/{id}/live";
    return open_live_view(request, std::move(*view));
  }
  auto match = router_.match(request.method, request.raw_path);
  if (match.handler == nullptr) {
    route = "unmatched";
    return unmatched(match, request);
  }
  route = match.pattern;
  return (*match.handler)(request, match.params);
}

bool Broker::pak_still_valid(const std::string& authorization) {
  auto counters = counters_.current(db_, false);
  // The database unreachable says nothing of the PAK.
  if (!counters.ok()) return true;
  http::Request probe;
  probe.headers = {{"Authorization", authorization}};
  return authenticate(db_, probe, credentials_, counters->credentials).ok();
}

http::Response Broker::open_agent_channel(http::Request& request) {
  if (request.method != "GET") return websocket_method_not_allowed(request, "the agent channel");
  auto counters = counters_.current(db_, false);
  if (!counters.ok()) return error_response(counters.error());
  auto caller = authenticate(db_, request, credentials_, counters->credentials);
  if (!caller.ok()) return refuse_unauthenticated(request, caller.error());
  if (caller->kind != Identity::Kind::Agent) {
    const bool admin = caller->kind == Identity::Kind::Admin;
    return error_response(forbidden("agent_pak_required", std::string("the agent channel takes an agent PAK; this one "
                                                                      "belongs to ") +
                                                              (admin ? "the admin" : "a generator")));
  }
  if (!request.wants_websocket()) return upgrade_required("the agent channel");
  http::Response response;
  response.websocket = agent_channel_handler(
      AgentChannelContext{services_, [this](http::Request& internal) { return handle(internal); }},
      caller->id, request);
  response.authenticated = true;
  response.identity = caller->key();
  return response;
}

ApiResult<Identity> Broker::live_viewer(const http::Request& request) {
  if (const std::string* ticket = request.query_param("ticket")) {
    auto holder = in_write<std::optional<db::TicketHolder>>(db_, [&](store::Connection& connection) {
      return db::take_ticket(connection, sha256_hex(*ticket), now_timestamp());
    });
    if (!holder.ok()) return holder.error();
    if (!*holder) return unauthorized("the ticket is unknown, used or lapsed; ask POST /api/v1/ws/tickets for another");
    Identity viewer;
    viewer.kind = (*holder)->kind == "admin" ? Identity::Kind::Admin : Identity::Kind::Generator;
    viewer.id = std::move((*holder)->id);
    return viewer;
  }
  SINDRI_TRY(counters, counters_.current(db_, false));
  if (!request.header("Authorization").empty()) return authenticate(db_, request, credentials_, counters.credentials);
  const std::optional<std::string> pak = pak_in_subprotocols(request);
  if (!pak) {
    return unauthorized("a live view needs a PAK: the Authorization header, the subprotocol brokkr.pak.<PAK>, or "
                        "?ticket= from POST /api/v1/ws/tickets");
  }
  http::Request probe;
  probe.headers = {{"Authorization", *pak}};
  auto viewer = authenticate(db_, probe, credentials_, counters.credentials);
  if (!viewer.ok() && viewer.error().status == 401) {
    return unauthorized("the subprotocol brokkr.pak.<PAK> does not hold a known PAK: " + viewer.error().message);
  }
  return viewer;
}

http::Response Broker::open_live_view(http::Request& request, LiveViewPath view) {
  if (request.method != "GET") return websocket_method_not_allowed(request, "a live view");
  // Before a ticket is taken: a request that is no upgrade must not use it up.
  if (!request.wants_websocket()) return upgrade_required("a live view");
  auto viewer = live_viewer(request);
  if (!viewer.ok()) {
    if (viewer.error().status == 401) return refuse_unauthenticated(request, viewer.error());
    return error_response(viewer.error());
  }
  // As GET /stacks/{id}/events and /logs: admins and generators.
  if (viewer->kind == Identity::Kind::Agent) {
    return error_response(forbidden("agent_pak_not_allowed", "agent PAKs open no live view; the agent channel is "
                                                             "/internal/ws/agent"));
  }
  if (view.fleet && !viewer->is_admin()) {
    return error_response(forbidden("admin_required", "the fleet's live view is the admin's"));
  }
  if (!view.fleet) {
    if (!is_uuid(view.stack_id)) {
      return render_error(400, "invalid_path_parameter",
                          "path parameter {id} must be a UUID, got \"" + view.stack_id + "\"");
    }
    view.stack_id = stored_uuid(view.stack_id);
    auto readable = in_read<Ok>(db_, [&](store::Connection& connection) -> ApiResult<Ok> {
      SINDRI_TRY(stack, db::load_stack(connection, view.stack_id));
      return check_stack_access(connection, *viewer, stack, StackAccess::Read);
    });
    if (!readable.ok()) return error_response(readable.error());
  }
  http::Response response;
  response.websocket = live_view_handler(live_views_, log_, std::move(view), viewer->key(), request);
  response.authenticated = true;
  response.identity = viewer->key();
  return response;
}

http::Response Broker::readiness() {
  auto status = db::check_readable(db_);
  if (!status.ok()) return render_error(503, "not_ready", "the database is not reachable: " + status.error().message);
  return json_response(200, make_object({{"status", Value("ready")}}));
}

void Broker::cancel_renders() { render_pool_->cancel_running(); }

size_t Broker::renders_in_flight() const {
  const RenderPoolStats renders = render_pool_->stats();
  return renders.running + renders.waiting;
}

http::Response Broker::metrics_text() {
  std::vector<http::Metrics::Gauge> gauges;
  const auto pool = db_.pool_stats();
  gauges.push_back({"sindri_db_pool_in_use", "Database connections in use", static_cast<double>(pool.in_use)});
  gauges.push_back({"sindri_db_pool_size", "Database connections open", static_cast<double>(pool.size)});
  gauges.push_back({"sindri_db_pool_limit", "Database connections the pool may open", static_cast<double>(pool.limit)});
  gauges.push_back({"sindri_db_writes_queued", "Database writes waiting for the SQLite writer",
                    static_cast<double>(pool.queued_writes)});
  gauges.push_back({"sindri_db_writes_total", "Database writes run", static_cast<double>(pool.writes), true});
  gauges.push_back({"sindri_db_write_transactions_total", "Database transactions the writes took",
                    static_cast<double>(pool.write_transactions), true});
  gauges.push_back({"sindri_db_counter_reads_total", "Reads of the counters cached answers are checked against",
                    static_cast<double>(counters_.reads()), true});
  gauges.push_back({"sindri_db_wal_checkpoints_total", "SQLite WAL checkpoints run in the background",
                    static_cast<double>(pool.wal_checkpoints), true});
  gauges.push_back({"sindri_answer_files", "Large cached answers kept in memfds for sendfile, a descriptor each",
                    static_cast<double>(http::SharedBody::files_in_use())});
  gauges.push_back({"sindri_target_state_cached_answers", "Target-state answers cached at the newest generation",
                    static_cast<double>(target_states_.size())});
  const RenderPoolStats renders = render_pool_->stats();
  gauges.push_back({"sindri_renders_running", "Template renders running on the render pool",
                    static_cast<double>(renders.running)});
  gauges.push_back({"sindri_renders_waiting", "Template renders waiting for the render pool",
                    static_cast<double>(renders.waiting)});
  gauges.push_back({"sindri_renders_refused_total", "Template renders refused with 429 or 503 by the render pool",
                    static_cast<double>(renders.refused), true});
  gauges.push_back({"sindri_ws_agents_connected", "Agents whose channel is open to this broker",
                    static_cast<double>(agent_channels_.count())});
  gauges.push_back({"sindri_ws_stack_viewers", "Stack live views open to this broker",
                    static_cast<double>(live_views_.stack_viewers())});
  gauges.push_back({"sindri_ws_fleet_viewers", "Fleet live views open to this broker",
                    static_cast<double>(live_views_.fleet_viewers())});
  if (bus_) {
    gauges.push_back({"sindri_notices_listening", "Whether this broker listens for other brokers' notices",
                      bus_->listening() ? 1.0 : 0.0});
    gauges.push_back({"sindri_notices_listener_losses_total",
                      "Times the connection listening for other brokers' notices was lost",
                      static_cast<double>(bus_->losses()), true});
    gauges.push_back({"sindri_notices_other_brokers", "Whether another broker shares the database, as last read",
                      bus_->others_present() ? 1.0 : 0.0});
    gauges.push_back({"sindri_notices_dropped_total",
                      "Notices not sent to other brokers because too many were queued",
                      static_cast<double>(bus_->dropped()), true});
  }
  for (const auto& source : gauge_sources_) source(gauges);
  http::Response response;
  response.content_type = "text/plain; version=0.0.4";
  response.body = metrics_.render(gauges);
  return response;
}

}  // namespace sindri::broker
