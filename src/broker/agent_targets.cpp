// /agents/{id}/targets: which stacks an agent deploys. The matching engine
// keeps label-matched targets current; these routes add and remove targets by
// hand. A generator targets only agents registered with it: registering is
// how an agent (or an admin for it) agrees to take a generator's stacks.

#include "broker/ids.hpp"
#include "broker/records.hpp"
#include "broker/request_body.hpp"
#include "broker/routes.hpp"

namespace sindri::broker {
namespace {

ApiResult<http::Response> list_targets(Call& call) {
  BROKER_TRY(id, call.id_param());
  if (!call.caller.is_admin() && !call.caller.is_agent(id)) {
    return forbidden("only an admin or the agent itself may list its targets");
  }
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_TRY(agent, load_agent(connection, id));
    BROKER_TRY(rows, connection.query("SELECT id, agent_id, stack_id FROM agent_targets WHERE agent_id = $1 "
                                      "ORDER BY stack_id",
                                      {Value(id)}));
    return json_response(200, rows_array(rows));
  });
}

ApiResult<http::Response> add_target(Call& call) {
  BROKER_TRY(id, call.id_param());
  BROKER_TRY(body, BodyObject::parse(call.request, "NewAgentTarget"));
  BROKER_TRY(stack_id, body.required_string("stack_id", kUuidRule));
  BROKER_TRY(agent_id, body.optional_string("agent_id", kUuidRule));
  BROKER_CHECK(body.finish());
  if (agent_id && *agent_id != id) {
    return field_error("invalid_field", "/agent_id does not match the agent id in the path", "/agent_id");
  }
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_TRY(agent, load_agent(connection, id));
    BROKER_TRY(stack, load_stack(connection, stack_id));
    BROKER_CHECK(check_stack_access(connection, call.caller, stack, StackAccess::Manage));
    if (call.caller.kind == Identity::Kind::Generator) {
      // On PostgreSQL the registration stays locked until this commits, so a
      // deregistration waits and then removes this target too (SQLite runs
      // one write transaction at a time).
      std::string registration = "SELECT 1 FROM agent_generators WHERE agent_id = $1 AND generator_id = $2";
      if (connection.dialect() == store::Dialect::Postgres) registration += " FOR SHARE";
      BROKER_TRY(registered, connection.query(registration, {Value(id), Value(call.caller.id)}));
      if (registered.empty()) {
        return forbidden("agent " + id + " is not registered with generator " + call.caller.id +
                         ": a generator targets only agents registered with it");
      }
    }
    auto rows = connection.query("INSERT INTO agent_targets (id, agent_id, stack_id, matched_by_labels) "
                                 "VALUES ($1, $2, $3, FALSE) RETURNING id, agent_id, stack_id",
                                 {Value(new_uuid()), Value(id), Value(stack_id)});
    if (!rows.ok() && rows.error().kind == store::DbError::Kind::Unique) {
      return conflict("target_exists", "agent " + id + " already targets stack " + stack_id);
    }
    BROKER_CHECK(rows);
    BROKER_CHECK(touch_target_state(connection));
    return json_response(201, row_object(rows.value(), 0));
  });
}

ApiResult<http::Response> remove_target(Call& call) {
  BROKER_TRY(id, call.id_param());
  BROKER_TRY(stack_id, call.id_param("stack_id"));
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_TRY(stacks, connection.query("SELECT " SINDRI_STACK_COLUMNS " FROM stacks WHERE id = $1", {Value(stack_id)}));
    if (stacks.empty()) return not_found("stack", stack_id);
    BROKER_CHECK(check_stack_access(connection, call.caller, row_object(stacks, 0), StackAccess::Manage));
    BROKER_TRY(rows, connection.query("DELETE FROM agent_targets WHERE agent_id = $1 AND stack_id = $2 RETURNING id",
                                      {Value(id), Value(stack_id)}));
    if (rows.empty()) {
      return ApiError{404, "target_not_found", "agent " + id + " does not target stack " + stack_id, Value(),
                      std::nullopt};
    }
    BROKER_CHECK(touch_target_state(connection));
    return empty_response(204);
  });
}

}  // namespace

void add_agent_target_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"GET", "/agents/{id}/targets", true, false, true, list_targets});
  routes.push_back({"POST", "/agents/{id}/targets", true, true, false, add_target});
  routes.push_back({"DELETE", "/agents/{id}/targets/{stack_id}", true, true, false, remove_target});
}

}  // namespace sindri::broker
