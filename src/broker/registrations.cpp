// Registrations of agents with generators (AgentGeneratorRegistration): an
// agent registers itself, or an admin registers any agent, with a generator;
// a generator lists the agents registered with it (GET /agents answers it
// the same set).

#include "broker/ids.hpp"
#include "broker/records.hpp"
#include "broker/request_body.hpp"
#include "broker/routes.hpp"

namespace sindri::broker {
namespace {

#define SINDRI_REGISTRATION_COLUMNS "id, agent_id, generator_id, created_at AS registered_at"

// The agent a register or deregister call is about: an agent caller is the
// agent (a body naming another is refused); an admin names it in the body.
ApiResult<std::string> registering_agent(const Call& call) {
  std::optional<std::string> named;
  if (!call.request.body.empty()) {
    BROKER_TRY(body, BodyObject::parse(call.request, "AgentRegistrationBody"));
    BROKER_TRY(agent_id, body.optional_string("agent_id", kUuidRule));
    BROKER_CHECK(body.finish());
    named = std::move(agent_id);
  }
  if (call.caller.kind == Identity::Kind::Agent) {
    if (named && *named != call.caller.id) return forbidden("an agent may register only itself");
    return call.caller.id;
  }
  if (!named) return field_error("missing_field", "AgentRegistrationBody: /agent_id is required for an admin", "/agent_id");
  return *named;
}

ApiResult<http::Response> register_agent(Call& call) {
  BROKER_TRY(generator_id, call.id_param());
  BROKER_TRY(agent_id, registering_agent(call));
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_TRY(generator, load_generator(connection, generator_id));
    BROKER_TRY(agent, load_agent(connection, agent_id));
    auto rows = connection.query("INSERT INTO agent_generators (id, agent_id, generator_id, created_at) "
                                 "VALUES ($1, $2, $3, $4) RETURNING " SINDRI_REGISTRATION_COLUMNS,
                                 {Value(new_uuid()), Value(agent_id), Value(generator_id), Value(now_timestamp())});
    if (!rows.ok() && rows.error().kind == store::DbError::Kind::Unique) {
      return conflict("registration_exists", "agent " + agent_id + " is already registered with generator " + generator_id);
    }
    BROKER_CHECK(rows);
    return json_response(201, row_object(rows.value(), 0));
  });
}

ApiResult<http::Response> deregister_agent(Call& call) {
  BROKER_TRY(generator_id, call.id_param());
  BROKER_TRY(agent_id, registering_agent(call));
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_TRY(generator, load_generator(connection, generator_id));
    BROKER_TRY(rows, connection.query("DELETE FROM agent_generators WHERE agent_id = $1 AND generator_id = $2 "
                                      "RETURNING id",
                                      {Value(agent_id), Value(generator_id)}));
    if (rows.empty()) {
      return ApiError{404, "registration_not_found",
                      "agent " + agent_id + " is not registered with generator " + generator_id, Value(), std::nullopt};
    }
    // Targets set by hand to the generator's stacks go with the registration;
    // targets the labels match stay, as labels alone decide those.
    BROKER_TRY(untargeted, connection.query("DELETE FROM agent_targets WHERE agent_id = $1 AND NOT matched_by_labels "
                                            "AND stack_id IN (SELECT id FROM stacks WHERE generator_id = $2) "
                                            "RETURNING id",
                                            {Value(agent_id), Value(generator_id)}));
    if (!untargeted.empty()) BROKER_CHECK(touch_target_state(connection));
    return empty_response(204);
  });
}

ApiResult<http::Response> registered_agents(Call& call) {
  BROKER_TRY(generator_id, call.id_param());
  if (!call.caller.is_admin() && !call.caller.is_generator(generator_id)) {
    return forbidden("only an admin or the generator itself may list its registered agents");
  }
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_TRY(generator, load_generator(connection, generator_id));
    BROKER_TRY(rows, connection.query("SELECT " SINDRI_REGISTRATION_COLUMNS " FROM agent_generators r "
                                      "WHERE generator_id = $1 AND EXISTS (SELECT 1 FROM agents a "
                                      "WHERE a.id = r.agent_id AND a.deleted_at IS NULL) ORDER BY created_at, id",
                                      {Value(generator_id)}));
    return json_response(200, rows_array(rows));
  });
}

ApiResult<http::Response> agent_registrations(Call& call) {
  BROKER_TRY(agent_id, call.id_param());
  if (!call.caller.is_admin() && !call.caller.is_agent(agent_id)) {
    return forbidden("only an admin or the agent itself may list its registrations");
  }
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_TRY(agent, load_agent(connection, agent_id));
    BROKER_TRY(rows, connection.query("SELECT " SINDRI_REGISTRATION_COLUMNS " FROM agent_generators r "
                                      "WHERE agent_id = $1 AND EXISTS (SELECT 1 FROM generators g "
                                      "WHERE g.id = r.generator_id AND g.deleted_at IS NULL) ORDER BY created_at, id",
                                      {Value(agent_id)}));
    return json_response(200, rows_array(rows));
  });
}

}  // namespace

void add_registration_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"POST", "/generators/{id}/register", true, false, true, register_agent});
  routes.push_back({"DELETE", "/generators/{id}/register", true, false, true, deregister_agent});
  routes.push_back({"GET", "/generators/{id}/registered-agents", true, true, false, registered_agents});
  routes.push_back({"GET", "/agents/{id}/registrations", true, false, true, agent_registrations});
}

}  // namespace sindri::broker
