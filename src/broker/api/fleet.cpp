// The fleet: per agent, measured values only (Brokkr's FleetAgentRecord),
// for an operator's overview and an agent's detail view.

#include "broker/agent_channels.hpp"
#include "broker/api/request_body.hpp"
#include "broker/api/routes.hpp"
#include "broker/db/fleet.hpp"
#include "broker/ids.hpp"
#include "value/rfc3339.hpp"

namespace sindri::broker {
namespace {

constexpr int64_t kRecentEvents = 20;

Value age_since(const Value& moment, std::string_view now) {
  if (!moment.is_string()) return Value();
  const std::optional<int64_t> seconds = rfc3339::age_seconds(moment.get_string(), now);
  return seconds ? Value(*seconds) : Value();
}

// The stored members and what is computed on read: the ages, and whether
// the agent's WebSocket is open to this broker.
Value fleet_record(Value stored, std::string_view now, const AgentChannels& channels) {
  Value heartbeat_age = age_since(*stored.find("last_heartbeat"), now);
  Value event_age = age_since(*stored.find("last_event_at"), now);
  stored.set("heartbeat_age_seconds", std::move(heartbeat_age));
  stored.set("seconds_since_last_event", std::move(event_age));
  const Value* agent_id = stored.find("agent_id");
  const std::optional<std::string> since =
      agent_id != nullptr && agent_id->is_string() ? channels.connected_since(agent_id->get_string()) : std::nullopt;
  stored.set("ws_connected", Value(since.has_value()));
  stored.set("connected_since", since ? Value(*since) : Value());
  return stored;
}

ApiResult<http::Response> list_fleet(Call& call) {
  SINDRI_TRY(generator_filter, optional_uuid_query(call.request, "pak_id"));
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(stored, db::list_fleet_records(connection, {}, generator_filter));
    const std::string now = now_timestamp();
    Array records;
    records.reserve(stored.size());
    for (const Value& record : stored.get_array()) {
      records.push_back(fleet_record(record, now, *call.services.agent_channels));
    }
    return json_response(200, Value(std::move(records)));
  });
}

ApiResult<http::Response> get_agent_fleet_status(Call& call) {
  SINDRI_TRY(agent_id, call.id_param());
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(stored, db::list_fleet_records(connection, agent_id, {}));
    if (stored.size() == 0) return not_found("agent", agent_id);
    SINDRI_TRY(events, db::recent_agent_events(connection, agent_id, kRecentEvents));
    return json_response(200, Value(Object{{Value("record"), fleet_record(*stored.at(0), now_timestamp(), *call.services.agent_channels)},
                                           {Value("recent_events"), std::move(events)}}));
  });
}

}  // namespace

void add_fleet_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"GET", "/fleet", Allow::Admin, list_fleet});
  routes.push_back({"GET", "/agents/{id}/fleet-status", Allow::Admin, get_agent_fleet_status});
}

}  // namespace sindri::broker
