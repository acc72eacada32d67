// The fleet: per agent, measured values only (Brokkr's FleetAgentRecord),
// for an operator's overview and an agent's detail view.

#include "broker/agent_channels.hpp"
#include "broker/api/request_body.hpp"
#include "broker/api/routes.hpp"
#include "broker/db/fleet.hpp"
#include "broker/fleet_record.hpp"
#include "broker/ids.hpp"

namespace sindri::broker {
namespace {

constexpr int64_t kRecentEvents = 20;

ApiResult<http::Response> list_fleet(Call& call) {
  SINDRI_TRY(generator_filter, optional_uuid_query(call.request, "pak_id"));
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(stored, db::list_fleet_records(connection, {}, generator_filter,
                                              presence_cutoff(*call.services.config.current()),
                                              call.services.broker_id));
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
    SINDRI_TRY(record, load_fleet_record(connection, agent_id, *call.services.agent_channels,
                                         *call.services.config.current(), call.services.broker_id));
    if (record.is_null()) return not_found("agent", agent_id);
    SINDRI_TRY(events, db::recent_agent_events(connection, agent_id, kRecentEvents));
    return json_response(200, Value(Object{{Value("record"), std::move(record)},
                                           {Value("recent_events"), std::move(events)}}));
  });
}

}  // namespace

void add_fleet_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"GET", "/fleet", Allow::Admin, list_fleet});
  routes.push_back({"GET", "/agents/{id}/fleet-status", Allow::Admin, get_agent_fleet_status});
}

}  // namespace sindri::broker
