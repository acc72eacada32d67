// Agent events: what agents report about applying deployment objects.

#include "broker/api/request_body.hpp"
#include "broker/api/routes.hpp"
#include "broker/db/agent_events.hpp"
#include "broker/db/agent_targets.hpp"
#include "broker/db/agents.hpp"
#include "broker/db/health.hpp"
#include "broker/pushes.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker {
namespace {

// The statuses of brokkr-v1.json's AgentEvent (and brokkr-models'
// agent_events.rs).
bool is_event_status(std::string_view status) {
  return status == "SUCCESS" || status == "FAILURE" || status == "IN_PROGRESS" || status == "PENDING";
}

// One answer whether the object exists or not, so that an agent learns
// nothing of other tenants' ids.
ApiError not_in_target_state(std::string_view agent_id, std::string_view object_id) {
  return ApiError{403, "deployment_object_not_targeted",
                  "agent " + std::string(agent_id) + " may not report on deployment object " + std::string(object_id) +
                      ": it is not, and never was, in the agent's target state",
                  make_object({{"pointer", Value("/deployment_object_id")}}), std::nullopt};
}

ApiResult<http::Response> report_event(Call& call) {
  SINDRI_TRY(id, call.id_param());
  if (!call.caller.is_admin() && !call.caller.is_agent(id)) {
    return forbidden("agent_pak_mismatch", "an agent may only report its own events");
  }
  SINDRI_TRY(body, BodyObject::parse(call.request, "NewAgentEvent"));
  SINDRI_TRY(agent_id, body.optional_string("agent_id", kUuidRule));
  SINDRI_TRY(object_id, body.required_string("deployment_object_id", kUuidRule));
  SINDRI_TRY(event_type, body.required_string("event_type", TextRule{64, false, true, false, true}));
  SINDRI_TRY(status, body.required_string("status", TextRule{64, false, false, false}));
  SINDRI_TRY(message, body.optional_string("message", TextRule{65536, true, true, false}));
  SINDRI_CHECK(body.finish());
  if (agent_id && *agent_id != id) {
    return field_error("agent_id_mismatch", "/agent_id does not match the agent id in the path", "/agent_id");
  }
  if (!is_event_status(status)) {
    return field_error("invalid_field",
                       "/status must be SUCCESS, FAILURE, IN_PROGRESS or PENDING, got \"" + status + "\"", "/status");
  }
  std::string stack_id;
  SINDRI_TRY(event, in_write<Value>(call.db(), [&](store::Connection& connection) -> ApiResult<Value> {
    SINDRI_TRY(agent, db::load_agent(connection, id));
    SINDRI_TRY(placement, db::place_object_for_agent(connection, object_id, id));
    if (!placement || !placement->reported_on_by_agent) return not_in_target_state(id, object_id);
    stack_id = placement->stack_id;
    return db::insert_agent_event(connection, {id, object_id, event_type, status, message});
  }));
  show_on_stack(call.services, stack_id, "agent_event", event);
  show_fleet_agent(call.services, id);
  return json_response(201, event);
}

ApiResult<http::Response> list_agent_events(Call& call) {
  SINDRI_TRY(id, call.id_param());
  if (!call.caller.is_admin() && !call.caller.is_agent(id)) {
    return forbidden("agent_pak_mismatch", "an agent may only read its own events");
  }
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(agent, db::load_agent(connection, id));
    SINDRI_TRY(events, db::list_agent_events(connection, id));
    return json_response(200, events);
  });
}

ApiResult<http::Response> list_all_events(Call& call) {
  SINDRI_TRY(generator_filter, optional_uuid_query(call.request, "pak_id"));
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(events, db::list_all_agent_events(connection, generator_filter));
    return json_response(200, events);
  });
}

ApiResult<http::Response> get_event(Call& call) {
  SINDRI_TRY(id, call.id_param());
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(event, db::load_agent_event(connection, id));
    return json_response(200, event);
  });
}

}  // namespace

void add_agent_event_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"POST", "/agents/{id}/events", Allow::Admin | Allow::Agent, report_event});
  routes.push_back({"GET", "/agents/{id}/events", Allow::Admin | Allow::Agent, list_agent_events});
  routes.push_back({"GET", "/agent-events", Allow::Admin, list_all_events});
  routes.push_back({"GET", "/agent-events/{id}", Allow::Admin, get_event});
}

}  // namespace sindri::broker
