// /agents/{id}/targets: which stacks an agent deploys. The matching engine
// keeps label-matched targets current; these routes add and remove targets by
// hand. A generator targets only agents registered with it: registering is
// how an agent (or an admin for it) agrees to take a generator's stacks.

#include "broker/access.hpp"
#include "broker/api/request_body.hpp"
#include "broker/api/routes.hpp"
#include "broker/db/agent_targets.hpp"
#include "broker/db/agents.hpp"
#include "broker/db/rows.hpp"
#include "broker/db/stacks.hpp"
#include "broker/notices.hpp"
#include "broker/pushes.hpp"

namespace sindri::broker {
namespace {

ApiResult<http::Response> list_targets(Call& call) {
  SINDRI_TRY(id, call.id_param());
  if (!call.caller.is_admin() && !call.caller.is_agent(id)) {
    return forbidden("agent_pak_mismatch", "only an admin or the agent itself may list its targets");
  }
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(agent, db::load_agent(connection, id));
    SINDRI_TRY(targets, db::list_agent_targets(connection, id));
    return json_response(200, targets);
  });
}

ApiResult<http::Response> add_target(Call& call) {
  SINDRI_TRY(id, call.id_param());
  SINDRI_TRY(body, BodyObject::parse(call.request, "NewAgentTarget"));
  SINDRI_TRY(stack_id, body.required_string("stack_id", kUuidRule));
  SINDRI_TRY(agent_id, body.optional_string("agent_id", kUuidRule));
  SINDRI_CHECK(body.finish());
  if (agent_id && *agent_id != id) {
    return field_error("agent_id_mismatch", "/agent_id does not match the agent id in the path", "/agent_id");
  }
  StagedNotices notices(*call.services.notices);
  SINDRI_TRY(target, in_write<Value>(call.db(), [&](store::Connection& connection) -> ApiResult<Value> {
    SINDRI_TRY(agent, db::load_agent(connection, id));
    SINDRI_TRY(stack, db::load_stack(connection, stack_id));
    if (call.caller.kind == Identity::Kind::Generator && !call.caller.is_generator(field(stack, "generator_id"))) {
      return forbidden("target_generator_mismatch", "stack " + stack_id + " belongs to another generator: a "
                                                    "generator targets only its own stacks");
    }
    SINDRI_CHECK(check_stack_access(connection, call.caller, stack, StackAccess::Manage));
    if (call.caller.kind == Identity::Kind::Generator) {
      // A deregistration waits for this to commit, and then removes this
      // target too.
      SINDRI_TRY(registered, db::lock_registration(connection, id, call.caller.id));
      if (!registered) {
        return forbidden("agent_not_registered", "agent " + id + " is not registered with generator " + call.caller.id +
                         ": a generator targets only agents registered with it");
      }
    }
    auto target = db::insert_agent_target(connection, id, stack_id);
    if (!target.ok() && db::is_unique_violation(target.error())) {
      return conflict("target_exists", "agent " + id + " already targets stack " + stack_id);
    }
    SINDRI_CHECK(target);
    SINDRI_CHECK(notices.stage(connection, target_changed_notice(*target)));
    return target;
  }));
  notices.deliver();
  return json_response(201, target);
}

ApiResult<http::Response> remove_target(Call& call) {
  SINDRI_TRY(id, call.id_param());
  SINDRI_TRY(stack_id, call.id_param("stack_id"));
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(stack, db::load_any_stack(connection, stack_id));
    SINDRI_CHECK(check_stack_access(connection, call.caller, stack, StackAccess::Manage));
    SINDRI_TRY(removed, db::delete_agent_target(connection, id, stack_id));
    if (!removed) {
      return ApiError{404, "target_not_found", "agent " + id + " does not target stack " + stack_id, Value(),
                      std::nullopt};
    }
    return empty_response(204);
  });
}

}  // namespace

void add_agent_target_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"GET", "/agents/{id}/targets", Allow::Admin | Allow::Agent, list_targets});
  routes.push_back({"POST", "/agents/{id}/targets", Allow::Admin | Allow::Generator, add_target});
  routes.push_back({"DELETE", "/agents/{id}/targets/{stack_id}", Allow::Admin | Allow::Generator, remove_target});
}

}  // namespace sindri::broker
