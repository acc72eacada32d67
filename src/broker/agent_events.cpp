// Agent events: what agents report about applying deployment objects.

#include "broker/ids.hpp"
#include "broker/records.hpp"
#include "broker/request_body.hpp"
#include "broker/routes.hpp"

namespace sindri::broker {
namespace {

ApiResult<http::Response> report_event(Call& call) {
  BROKER_TRY(id, call.id_param());
  if (!call.caller.is_admin() && !call.caller.is_agent(id)) {
    return forbidden("an agent may only report its own events");
  }
  BROKER_TRY(body, BodyObject::parse(call.request, "NewAgentEvent"));
  BROKER_TRY(agent_id, body.optional_string("agent_id", kUuidRule));
  BROKER_TRY(object_id, body.required_string("deployment_object_id", kUuidRule));
  BROKER_TRY(event_type, body.required_string("event_type", TextRule{64, false, true, false, true}));
  BROKER_TRY(status, body.required_string("status", TextRule{64, false, false, false}));
  BROKER_TRY(message, body.optional_string("message", TextRule{65536, true, true, false}));
  BROKER_CHECK(body.finish());
  if (agent_id && *agent_id != id) {
    return field_error("invalid_field", "/agent_id does not match the agent id in the path", "/agent_id");
  }
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_TRY(agent, load_agent(connection, id));
    BROKER_TRY(objects, connection.query("SELECT stack_id FROM deployment_objects WHERE id = $1 AND deleted_at IS NULL",
                                         {Value(object_id)}));
    if (objects.empty()) {
      return field_error("invalid_field", "/deployment_object_id: deployment object " + object_id + " does not exist",
                         "/deployment_object_id");
    }
    const std::string now = now_timestamp();
    BROKER_TRY(rows, connection.query("INSERT INTO agent_events (id, agent_id, deployment_object_id, event_type, "
                                      "status, message, created_at, updated_at) "
                                      "VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING " SINDRI_AGENT_EVENT_COLUMNS,
                                      {Value(new_uuid()), Value(id), Value(object_id), Value(event_type), Value(status),
                                       message ? Value(*message) : Value(), Value(now)}));
    // A success report takes the object out of the agent's incremental target state.
    BROKER_CHECK(touch_target_state(connection));
    return json_response(201, row_object(rows, 0));
  });
}

ApiResult<http::Response> list_agent_events(Call& call) {
  BROKER_TRY(id, call.id_param());
  if (!call.caller.is_admin() && !call.caller.is_agent(id)) {
    return forbidden("an agent may only read its own events");
  }
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_TRY(agent, load_agent(connection, id));
    BROKER_TRY(rows, connection.query("SELECT " SINDRI_AGENT_EVENT_COLUMNS
                                      " FROM agent_events WHERE agent_id = $1 AND deleted_at IS NULL "
                                      "ORDER BY created_at, id",
                                      {Value(id)}));
    return json_response(200, rows_array(rows));
  });
}

ApiResult<http::Response> list_all_events(Call& call) {
  BROKER_TRY(generator_filter, optional_uuid_query(call.request, "pak_id"));
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_TRY(rows, generator_filter.empty()
                         ? connection.query("SELECT " SINDRI_AGENT_EVENT_COLUMNS
                                            " FROM agent_events WHERE deleted_at IS NULL ORDER BY created_at, id")
                         : connection.query("SELECT " SINDRI_AGENT_EVENT_COLUMNS
                                            " FROM agent_events e WHERE deleted_at IS NULL AND EXISTS "
                                            "(SELECT 1 FROM deployment_objects d JOIN stacks s ON s.id = d.stack_id "
                                            "WHERE d.id = e.deployment_object_id AND s.generator_id = $1) "
                                            "ORDER BY created_at, id",
                                            {Value(generator_filter)}));
    return json_response(200, rows_array(rows));
  });
}

ApiResult<http::Response> get_event(Call& call) {
  BROKER_TRY(id, call.id_param());
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_TRY(rows, connection.query("SELECT " SINDRI_AGENT_EVENT_COLUMNS
                                      " FROM agent_events WHERE id = $1 AND deleted_at IS NULL",
                                      {Value(id)}));
    if (rows.empty()) return not_found("agent_event", id);
    return json_response(200, row_object(rows, 0));
  });
}

}  // namespace

void add_agent_event_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"POST", "/agents/{id}/events", true, false, true, report_event});
  routes.push_back({"GET", "/agents/{id}/events", true, false, true, list_agent_events});
  routes.push_back({"GET", "/agent-events", true, false, false, list_all_events});
  routes.push_back({"GET", "/agent-events/{id}", true, false, false, get_event});
}

}  // namespace sindri::broker
