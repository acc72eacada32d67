// Registrations of agents with generators (AgentGeneratorRegistration): an
// agent registers itself, or an admin registers any agent, with a generator;
// a generator lists the agents registered with it (GET /agents answers it
// the same set).

#include "broker/api/request_body.hpp"
#include "broker/api/routes.hpp"
#include "broker/db/agents.hpp"
#include "broker/db/generators.hpp"
#include "broker/db/rows.hpp"
#include "broker/notices.hpp"
#include "broker/pushes.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker {
namespace {

// The agent a register or deregister call is about: an agent caller is the
// agent (a body naming another is refused); an admin names it in the body.
ApiResult<std::string> registering_agent(const Call& call) {
  std::optional<std::string> named;
  if (!call.request.body.empty()) {
    SINDRI_TRY(body, BodyObject::parse(call.request, "AgentRegistrationBody"));
    SINDRI_TRY(agent_id, body.optional_string("agent_id", kUuidRule));
    SINDRI_CHECK(body.finish());
    named = std::move(agent_id);
  }
  if (call.caller.kind == Identity::Kind::Agent) {
    if (named && *named != call.caller.id) return forbidden("agent_pak_mismatch", "an agent may register only itself");
    return call.caller.id;
  }
  if (!named) return field_error("missing_field", "AgentRegistrationBody: /agent_id is required for an admin", "/agent_id");
  return *named;
}

ApiResult<http::Response> register_agent(Call& call) {
  SINDRI_TRY(generator_id, call.id_param());
  SINDRI_TRY(agent_id, registering_agent(call));
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(generator, db::load_generator(connection, generator_id));
    SINDRI_TRY(agent, db::load_agent(connection, agent_id));
    auto registration = db::insert_registration(connection, agent_id, generator_id);
    if (!registration.ok() && db::is_unique_violation(registration.error())) {
      return conflict("already_registered", "agent " + agent_id + " is already registered with generator " + generator_id);
    }
    SINDRI_CHECK(registration);
    SINDRI_CHECK(audit(call, connection, "agent.registered", "agent", agent_id,
                       make_object({{"generator_id", Value(generator_id)}})));
    return json_response(201, std::move(registration).value());
  });
}

ApiResult<http::Response> deregister_agent(Call& call) {
  SINDRI_TRY(generator_id, call.id_param());
  SINDRI_TRY(agent_id, registering_agent(call));
  StagedNotices notices(*call.services.notices);
  SINDRI_CHECK(in_write<Ok>(call.db(), [&](store::Connection& connection) -> ApiResult<Ok> {
    SINDRI_TRY(generator, db::load_generator(connection, generator_id));
    SINDRI_TRY(removed, db::delete_registration(connection, agent_id, generator_id));
    if (!removed) {
      return ApiError{404, "registration_not_found",
                      "agent " + agent_id + " is not registered with generator " + generator_id, Value(), std::nullopt};
    }
    SINDRI_CHECK(audit(call, connection, "agent.deregistered", "agent", agent_id,
                       make_object({{"generator_id", Value(generator_id)}})));
    // As Brokkr's broker: the agent polls what it may now deploy.
    return notices.stage(connection, agent_retargeted_notice(agent_id));
  }));
  notices.deliver();
  return empty_response(204);
}

ApiResult<http::Response> registered_agents(Call& call) {
  SINDRI_TRY(generator_id, call.id_param());
  if (!call.caller.is_admin() && !call.caller.is_generator(generator_id)) {
    return forbidden("not_authorized", "only an admin or the generator itself may list its registered agents");
  }
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(generator, db::load_generator(connection, generator_id));
    SINDRI_TRY(registrations, db::list_generator_registrations(connection, generator_id));
    return json_response(200, registrations);
  });
}

ApiResult<http::Response> agent_registrations(Call& call) {
  SINDRI_TRY(agent_id, call.id_param());
  if (!call.caller.is_admin() && !call.caller.is_agent(agent_id)) {
    return forbidden("agent_pak_mismatch", "only an admin or the agent itself may list its registrations");
  }
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(agent, db::load_agent(connection, agent_id));
    SINDRI_TRY(registrations, db::list_agent_registrations(connection, agent_id));
    return json_response(200, registrations);
  });
}

}  // namespace

void add_registration_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"POST", "/generators/{id}/register", Allow::Admin | Allow::Agent, register_agent});
  routes.push_back({"DELETE", "/generators/{id}/register", Allow::Admin | Allow::Agent, deregister_agent});
  routes.push_back({"GET", "/generators/{id}/registered-agents", Allow::Admin | Allow::Generator, registered_agents});
  routes.push_back({"GET", "/agents/{id}/registrations", Allow::Admin | Allow::Agent, agent_registrations});
}

}  // namespace sindri::broker
