// /stacks: named groups of deployment objects, owned by a generator.

#include "broker/access.hpp"
#include "broker/api/request_body.hpp"
#include "broker/api/routes.hpp"
#include "broker/db/counters.hpp"
#include "broker/db/generators.hpp"
#include "broker/db/stacks.hpp"
#include "broker/ids.hpp"
#include "broker/notices.hpp"
#include "broker/pushes.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker {
namespace {

ApiResult<http::Response> list_stacks(Call& call) {
  SINDRI_TRY(generator_filter, optional_uuid_query(call.request, "pak_id"));
  if (call.caller.kind == Identity::Kind::Generator) {
    if (!generator_filter.empty() && generator_filter != call.caller.id) {
      return forbidden("stacks_list_denied", "a generator may only list its own stacks");
    }
    generator_filter = call.caller.id;
  }
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(stacks, db::list_stacks(connection, generator_filter));
    return json_response(200, stacks);
  });
}

ApiResult<http::Response> create_stack(Call& call) {
  SINDRI_TRY(body, BodyObject::parse(call.request, "NewStack"));
  SINDRI_TRY(name, body.required_string("name", kNameRule));
  SINDRI_TRY(description, body.optional_string("description", kDescriptionRule));
  // A generator may leave out its own id; an admin must say whose stack it is.
  SINDRI_TRY(generator_id, body.optional_string("generator_id", kUuidRule, false));
  SINDRI_CHECK(body.finish());
  if (call.caller.kind == Identity::Kind::Generator) {
    if (generator_id && *generator_id != call.caller.id) {
      return forbidden("stack_generator_mismatch", "a generator may only create stacks for itself");
    }
    generator_id = call.caller.id;
  } else if (!generator_id) {
    return field_error("missing_field", "/generator_id is required by NewStack", "/generator_id");
  }
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_CHECK(db::check_named_generator(connection, *generator_id, "/generator_id"));
    SINDRI_TRY(stack, db::insert_stack(connection, name, description, *generator_id));
    SINDRI_CHECK(audit(call, connection, "stack.created", "stack", std::string(field(stack, "id")),
                       make_object({{"name", Value(name)}, {"generator_id", Value(*generator_id)}})));
    return json_response(201, stack);
  });
}

ApiResult<http::Response> get_stack(Call& call) {
  SINDRI_TRY(id, call.id_param());
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(stack, db::load_stack(connection, id));
    SINDRI_CHECK(check_stack_access(connection, call.caller, stack, StackAccess::Manage));
    return json_response(200, stack);
  });
}

// The body is a whole Stack, as GET answers it: name, description and (by an
// admin) generator_id may change; the id and timestamps must be as stored.
ApiResult<http::Response> update_stack(Call& call) {
  SINDRI_TRY(id, call.id_param());
  SINDRI_TRY(body, BodyObject::parse(call.request, "Stack"));
  SINDRI_CHECK(body.require({"id", "created_at", "updated_at", "name", "generator_id"}));
  SINDRI_TRY(body_id, body.required_string("id", kUuidRule));
  SINDRI_CHECK(body.read_only("created_at", ReadOnlyKind::Timestamp, true));
  SINDRI_CHECK(body.read_only("updated_at", ReadOnlyKind::Timestamp, true));
  SINDRI_CHECK(body.read_only("deleted_at", ReadOnlyKind::Timestamp));
  SINDRI_TRY(name, body.required_string("name", kNameRule));
  SINDRI_TRY(description, body.optional_string("description", kDescriptionRule));
  SINDRI_TRY(generator_id, body.required_string("generator_id", kUuidRule));
  SINDRI_CHECK(body.finish());
  if (body_id != id) return field_error("stack_id_mismatch", "/id does not match the path's id", "/id");
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(stack, db::load_stack(connection, id));
    SINDRI_CHECK(check_stack_access(connection, call.caller, stack, StackAccess::Manage));
    SINDRI_CHECK(body.check_unchanged(stack));
    if (generator_id != field(stack, "generator_id")) {
      if (!call.caller.is_admin()) return forbidden("admin_required", "only an admin may give a stack to another generator");
      SINDRI_CHECK(db::check_named_generator(connection, generator_id, "/generator_id"));
    }
    SINDRI_TRY(updated, db::update_stack(connection, id, Value(name),
                                         description ? Value(*description) : *stack.find("description"),
                                         Value(generator_id)));
    SINDRI_CHECK(audit(call, connection, "stack.updated", "stack", id));
    return json_response(200, updated);
  });
}

// Deleting a stack leaves a deletion marker behind: agents that targeted it
// see the marker in their target state and remove what they applied.
ApiResult<http::Response> delete_stack(Call& call) {
  SINDRI_TRY(id, call.id_param());
  StagedNotices notices(*call.services.notices);
  SINDRI_TRY(answer, in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(stack, db::load_stack(connection, id));
    SINDRI_CHECK(check_stack_access(connection, call.caller, stack, StackAccess::Manage));
    SINDRI_CHECK(db::delete_stack(connection, id, now_timestamp()));
    SINDRI_CHECK(db::touch_target_state(connection));
    SINDRI_CHECK(audit(call, connection, "stack.deleted", "stack", id));
    // Its deletion marker: the agents remove what they applied.
    SINDRI_CHECK(notices.stage(connection, stack_changed_notice(id)));
    return empty_response(204);
  }));
  notices.deliver();
  return answer;
}

}  // namespace

void add_stack_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"GET", "/stacks", Allow::Admin | Allow::Generator, list_stacks});
  routes.push_back({"POST", "/stacks", Allow::Admin | Allow::Generator, create_stack});
  routes.push_back({"GET", "/stacks/{id}", Allow::Admin | Allow::Generator, get_stack});
  routes.push_back({"PUT", "/stacks/{id}", Allow::Admin | Allow::Generator, update_stack});
  routes.push_back({"DELETE", "/stacks/{id}", Allow::Admin | Allow::Generator, delete_stack});
}

}  // namespace sindri::broker
