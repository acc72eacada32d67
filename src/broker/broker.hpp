#pragma once
// The broker as a request handler: health and readiness, Prometheus metrics,
// the OpenAPI document, and the /api/v1 resources behind PAK authentication
// and per-route authorisation. It knows nothing of sockets; `sindri serve`
// puts it behind an http::Server.

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "broker/agent_channels.hpp"
#include "broker/auth.hpp"
#include "broker/auth_failures.hpp"
#include "broker/config_reload.hpp"
#include "broker/context.hpp"
#include "broker/counters.hpp"
#include "broker/jobs.hpp"
#include "broker/live_view.hpp"
#include "broker/live_views.hpp"
#include "broker/notice_bus.hpp"
#include "broker/notices.hpp"
#include "broker/render_pool.hpp"
#include "http/metrics.hpp"
#include "http/router.hpp"

namespace sindri::broker {

class Broker {
 public:
  // Reads peer_change_delay_ms (see CountersReader) and body_limit
  // (Services::object_limit) once; the passes read their settings at each
  // round.
  Broker(store::Database& db, Logger& log, LiveConfig& config);
  // Writes the refused authentications counted but not written yet.
  ~Broker();

  // Migrations, then the first-start bootstrap. Errors name what failed.
  Status initialize(const std::string& admin_pak_file);
  // The periodic passes (jobs.hpp), and on PostgreSQL the notice bus
  // (notice_bus.hpp); they stop with the broker.
  void start_background_jobs();
  // POST /admin/config/reload, and the watch of `watched_file` when there is
  // one; `reread` reads the settings as the start did. After
  // start_background_jobs, before the first request.
  void enable_reload(ConfigReloader::Reread reread, const std::optional<std::string>& watched_file);

  http::Response handle(http::Request& request);
  // For http::ServerOptions::refuse_before_body: an API request whose PAK
  // is missing or unknown is answered 401 before its body is read.
  std::optional<http::Response> refuse_before_body(const http::Request& head);
  // Server errors (body too large, malformed request) in the API's shape.
  static http::Response render_error(int status, std::string_view code, std::string_view message);
  // Counts a request the server refused before routing it (see
  // http::ServerOptions::on_refused) in /metrics, under the route "rejected".
  void observe_refused(std::string_view method, int status, std::chrono::nanoseconds elapsed);

  // Stops the renders running now, each answered as failed, so that a stop
  // whose grace is over never waits on a render without bound.
  void cancel_renders();
  // Renders running or waiting.
  size_t renders_in_flight() const;

  // Gauges read at each scrape of /metrics (the server's connections, ...).
  void add_gauge_source(std::function<void(std::vector<http::Metrics::Gauge>&)> source);

 private:
  http::Response dispatch(http::Request& request, std::string& route);
  // An authenticated caller's request to `route`: access, then the handler.
  http::Response respond_to(http::Request& request, const ApiRoute& route, const http::PathParams& params,
                            const Identity& caller, const db::Generations& counters);
  // CORS headers, metrics and the debug log line of an answer.
  void observe(const http::Request& request, const std::string& route, http::Response& response,
               std::chrono::steady_clock::time_point started);
  http::Response metrics_text();
  http::Response readiness();
  // refuse_before_body's answer before the CORS headers.
  std::optional<http::Response> refusal_before_body(const http::Request& head);
  // A 401 for `error`, counted for the audit log.
  http::Response refuse_unauthenticated(const http::Request& request, const ApiError& error);
  // Writes the refused authentications `due` now; a failure is logged.
  void flush_auth_failures(AuthFailureLog::Due due);
  // GET /internal/ws/agent (agent_channel.hpp).
  http::Response open_agent_channel(http::Request& request);
  // GET /api/v1/stacks/{id}/live and /api/v1/fleet/live (live_view.hpp).
  http::Response open_live_view(http::Request& request, LiveViewPath view);
  // Who opens a live view: by ticket, Authorization or subprotocol.
  ApiResult<Identity> live_viewer(const http::Request& request);
  // Whether an open socket's Authorization still authenticates.
  bool pak_still_valid(const std::string& authorization);

  store::Database& db_;
  Logger& log_;
  LiveConfig& config_;
  std::optional<WebhookKey> webhook_key_;  // set by initialize()
  const std::string broker_id_;  // this process among brokers sharing the database
  CountersReader counters_;
  TargetStateCache target_states_;
  CredentialCache credentials_;
  AuthFailureLog auth_failures_;
  AgentChannels agent_channels_;
  LiveViews live_views_;
  Notices notices_;
  Services services_;
  http::Router router_;
  http::Metrics metrics_;
  std::vector<std::function<void(std::vector<http::Metrics::Gauge>&)>> gauge_sources_;
  std::unique_ptr<JobRunner> jobs_;
  // On PostgreSQL, carries notices to and from the other brokers; stopped
  // before what its deliveries use goes.
  std::unique_ptr<NoticeBus> bus_;
  // After jobs_: stopped (its watch) before them, as it reschedules them.
  std::unique_ptr<ConfigReloader> reloader_;
  // Last: stopped first, its running renders finishing while all they use
  // is still there.
  std::unique_ptr<RenderPool> render_pool_;
};

}  // namespace sindri::broker
