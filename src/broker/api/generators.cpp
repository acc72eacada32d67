// /generators: the identities CI pipelines and people create stacks with.

#include "broker/access.hpp"
#include "broker/api/request_body.hpp"
#include "broker/api/routes.hpp"
#include "broker/db/counters.hpp"
#include "broker/db/generators.hpp"
#include "broker/db/live_view_tickets.hpp"
#include "broker/db/rows.hpp"
#include "broker/ids.hpp"
#include "broker/notices.hpp"
#include "broker/pak.hpp"
#include "broker/pushes.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker {
namespace {

ApiResult<Ok> check_generator_itself_or_admin(const Call& call, std::string_view generator_id) {
  if (call.caller.is_admin() || call.caller.is_generator(generator_id)) return Ok{};
  return forbidden("generator_not_owned", "a generator may only act on itself");
}

Value generator_with_pak(Value generator, std::string pak) {
  return make_object({{"generator", std::move(generator)}, {"pak", Value(pak)}});
}

ApiResult<http::Response> list_generators(Call& call) {
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(generators, db::list_generators(connection));
    return json_response(200, generators);
  });
}

// The admin console's tenant selector: every live generator that has a PAK
// (all but the system generator, the admin's) as its id and name, by name.
ApiResult<http::Response> list_paks(Call& call) {
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(owners, db::list_pak_owners(connection));
    return json_response(200, owners);
  });
}

ApiResult<http::Response> create_generator(Call& call) {
  SINDRI_TRY(body, BodyObject::parse(call.request, "NewGenerator"));
  SINDRI_TRY(name, body.required_string("name", kNameRule));
  SINDRI_TRY(description, body.optional_string("description", kDescriptionRule));
  SINDRI_CHECK(body.finish());
  const IssuedPak pak = issue_pak();
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    auto generator = db::insert_generator(connection, name, description, pak.hash);
    if (!generator.ok() && db::is_unique_violation(generator.error())) {
      return conflict("generator_exists", "a generator named \"" + name + "\" already exists");
    }
    SINDRI_CHECK(generator);
    const std::string id(field(*generator, "id"));
    SINDRI_CHECK(audit(call, connection, "generator.created", "generator", id, make_object({{"name", Value(name)}})));
    SINDRI_CHECK(audit(call, connection, "pak.created", "generator", id));
    return json_response(201, generator_with_pak(std::move(generator).value(), pak.pak));
  });
}

ApiResult<http::Response> get_generator(Call& call) {
  SINDRI_TRY(id, call.id_param());
  SINDRI_CHECK(check_generator_itself_or_admin(call, id));
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(generator, db::load_generator(connection, id));
    return json_response(200, generator);
  });
}

// The body is a whole Generator, as GET answers it: name and description may
// change, is_active by an admin; the id, timestamps and is_system must be as
// stored.
ApiResult<http::Response> update_generator(Call& call) {
  SINDRI_TRY(id, call.id_param());
  SINDRI_CHECK(check_generator_itself_or_admin(call, id));
  SINDRI_TRY(body, BodyObject::parse(call.request, "Generator"));
  SINDRI_CHECK(body.require({"id", "created_at", "updated_at", "name", "is_active", "is_system"}));
  SINDRI_TRY(body_id, body.required_string("id", kUuidRule));
  SINDRI_CHECK(body.read_only("created_at", ReadOnlyKind::Timestamp, true));
  SINDRI_CHECK(body.read_only("updated_at", ReadOnlyKind::Timestamp, true));
  SINDRI_CHECK(body.read_only("deleted_at", ReadOnlyKind::Timestamp));
  SINDRI_CHECK(body.read_only("last_active_at", ReadOnlyKind::Timestamp));
  SINDRI_CHECK(body.read_only("is_system", ReadOnlyKind::Boolean, true));
  SINDRI_TRY(name, body.required_string("name", kNameRule));
  SINDRI_TRY(description, body.optional_string("description", kDescriptionRule));
  SINDRI_TRY(is_active, body.optional_bool("is_active"));
  SINDRI_CHECK(body.finish());
  if (body_id != id) return field_error("generator_id_mismatch", "/id does not match the path's id", "/id");
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(current, db::load_generator(connection, id));
    SINDRI_CHECK(body.check_unchanged(current));
    const bool activation_changes = *is_active != current.find("is_active")->get_bool();
    if (activation_changes && !call.caller.is_admin()) {
      return forbidden("admin_required", "only an admin may activate or deactivate a generator");
    }
    const Value* current_description = current.find("description");
    auto updated = db::update_generator(connection, id, name, description ? Value(*description) : *current_description,
                                        *is_active);
    if (!updated.ok() && db::is_unique_violation(updated.error())) {
      return conflict("generator_exists", "a generator named \"" + name + "\" already exists");
    }
    SINDRI_CHECK(updated);
    if (activation_changes) SINDRI_CHECK(touch_credentials(call, connection));
    SINDRI_CHECK(audit(call, connection, "generator.updated", "generator", id));
    return json_response(200, std::move(updated).value());
  });
}

ApiResult<http::Response> delete_generator(Call& call) {
  SINDRI_TRY(id, call.id_param());
  SINDRI_CHECK(check_generator_itself_or_admin(call, id));
  StagedNotices notices(*call.services.notices);
  SINDRI_TRY(answer, in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(generator, db::load_generator(connection, id));
    if (generator.find("is_system")->get_bool()) return forbidden("cannot_delete_system_generator", "the system generator cannot be deleted");
    // Its templates and stacks go with it, soft as always; agents remove
    // what they applied from its stacks.
    SINDRI_TRY(stacks_deleted, db::delete_generator(connection, id, now_timestamp()));
    if (!stacks_deleted.empty()) SINDRI_CHECK(db::touch_target_state(connection));
    SINDRI_CHECK(touch_credentials(call, connection));
    SINDRI_CHECK(audit(call, connection, "generator.deleted", "generator", id));
    for (const std::string& stack_id : stacks_deleted) {
      SINDRI_CHECK(notices.stage(connection, stack_changed_notice(stack_id)));
    }
    SINDRI_CHECK(db::delete_tickets_of(connection, {"generator", id}));
    SINDRI_CHECK(notices.stage(connection, viewers_closed_notice("generator:" + id, "the generator was deleted")));
    return empty_response(204);
  }));
  notices.deliver();
  return answer;
}

ApiResult<http::Response> rotate_generator_pak(Call& call) {
  SINDRI_TRY(id, call.id_param());
  SINDRI_CHECK(check_generator_itself_or_admin(call, id));
  const IssuedPak pak = issue_pak();
  StagedNotices notices(*call.services.notices);
  SINDRI_TRY(answer, in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(generator, db::set_generator_pak(connection, id, pak.hash));
    SINDRI_CHECK(touch_credentials(call, connection));
    SINDRI_CHECK(audit(call, connection, "pak.rotated", "generator", id));
    // Views opened with the old PAK go with it, and tickets it took.
    SINDRI_CHECK(db::delete_tickets_of(connection, {"generator", id}));
    SINDRI_CHECK(notices.stage(connection, viewers_closed_notice("generator:" + id, "the generator's PAK was rotated")));
    return json_response(201, generator_with_pak(std::move(generator), pak.pak));
  }));
  notices.deliver();
  return answer;
}

}  // namespace

void add_generator_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"GET", "/generators", Allow::Admin, list_generators});
  routes.push_back({"GET", "/paks", Allow::Admin, list_paks});
  routes.push_back({"POST", "/generators", Allow::Admin, create_generator});
  routes.push_back({"GET", "/generators/{id}", Allow::Admin | Allow::Generator, get_generator});
  routes.push_back({"PUT", "/generators/{id}", Allow::Admin | Allow::Generator, update_generator});
  routes.push_back({"DELETE", "/generators/{id}", Allow::Admin | Allow::Generator, delete_generator});
  routes.push_back({"POST", "/generators/{id}/rotate-pak", Allow::Admin | Allow::Generator, rotate_generator_pak});
}

}  // namespace sindri::broker
