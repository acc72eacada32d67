// Admin operations on the broker itself: reloading its settings, and the
// WebSocket connections it holds.

#include "broker/agent_channels.hpp"
#include "broker/api/routes.hpp"
#include "broker/live_views.hpp"
#include "broker/config_reload.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker {
namespace {

// A file that no longer reads is answered 200 with success false and the
// reason (file, place, problem): the request was right, and the operator
// reads what to fix in the answer the schema already has for it.
ApiResult<http::Response> reload_config(Call& call) {
  ConfigReloader* reloader = call.services.reloader;
  if (reloader == nullptr) {
    return ApiError{503, "config_reload_disabled", "configuration hot-reload is not enabled on this broker", Value(),
                    std::nullopt};
  }
  const ConfigReloader::Record record = [&call](const ReloadOutcome& outcome) {
    const Value details = reload_outcome_json(outcome);
    return in_write<Ok>(call.db(), [&](store::Connection& connection) {
      return audit(call, connection, "config.reloaded", "config", "",
                   make_object({{"changes", *details.find("changes")},
                                {"restart_required", *details.find("restart_required")},
                                {"broker_id", Value(outcome.broker_id)},
                                {"trigger", Value("request")}}));
    });
  };
  SINDRI_TRY(outcome, reloader->reload(record));
  return json_response(200, reload_outcome_json(outcome));
}

// The agents' sockets open to this broker, and how many stack live views it
// serves (as Brokkr counts them; /metrics has the fleet's viewers too).
ApiResult<http::Response> list_ws_connections(Call& call) {
  Value snapshot = call.services.agent_channels->snapshot();
  snapshot.set("live_subscribers", Value(static_cast<int64_t>(call.services.live_views->stack_viewers())));
  return json_response(200, snapshot);
}

}  // namespace

void add_admin_config_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"POST", "/admin/config/reload", Allow::Admin, reload_config});
  routes.push_back({"GET", "/admin/ws/connections", Allow::Admin, list_ws_connections});
}

}  // namespace sindri::broker
