// /generators: the identities CI pipelines and people create stacks with.

#include "broker/ids.hpp"
#include "broker/pak.hpp"
#include "broker/records.hpp"
#include "broker/request_body.hpp"
#include "broker/routes.hpp"

namespace sindri::broker {
namespace {

ApiResult<Ok> check_self_or_admin(const Call& call, std::string_view generator_id) {
  if (call.caller.is_admin() || call.caller.is_generator(generator_id)) return Ok{};
  return forbidden("a generator may only act on itself");
}

Value generator_with_pak(Value generator, std::string pak) {
  Object body;
  body.push_back({Value("generator"), std::move(generator)});
  body.push_back({Value("pak"), Value(pak)});
  return Value(std::move(body));
}

ApiResult<http::Response> list_generators(Call& call) {
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_TRY(rows, connection.query("SELECT " SINDRI_GENERATOR_COLUMNS
                                      " FROM generators WHERE deleted_at IS NULL ORDER BY created_at, id"));
    Array items;
    for (size_t i = 0; i < rows.size(); ++i) items.push_back(generator_object(rows, i));
    return json_response(200, Value(std::move(items)));
  });
}

// The admin console's tenant selector: every live generator that has a PAK
// (all but the system generator, the admin's) as its id and name, by name.
ApiResult<http::Response> list_paks(Call& call) {
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_TRY(rows, connection.query("SELECT id, name FROM generators WHERE deleted_at IS NULL AND NOT is_system "
                                      "ORDER BY name, id"));
    Array items;
    items.reserve(rows.size());
    for (auto& row : rows.rows) {
      Object summary;
      summary.push_back({Value("id"), std::move(row[0])});
      summary.push_back({Value("name"), std::move(row[1])});
      items.push_back(Value(std::move(summary)));
    }
    return json_response(200, Value(std::move(items)));
  });
}

ApiResult<http::Response> create_generator(Call& call) {
  BROKER_TRY(body, BodyObject::parse(call.request, "NewGenerator"));
  BROKER_TRY(name, body.required_string("name", kNameRule));
  BROKER_TRY(description, body.optional_string("description", kDescriptionRule));
  BROKER_CHECK(body.finish());
  const IssuedPak pak = issue_pak();
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    const std::string now = now_timestamp();
    auto rows = connection.query(
        "INSERT INTO generators (id, name, description, pak_hash, is_active, is_system, created_at, updated_at) "
        "VALUES ($1, $2, $3, $4, TRUE, FALSE, $5, $5) RETURNING " SINDRI_GENERATOR_COLUMNS,
        {Value(new_uuid()), Value(name), description ? Value(*description) : Value(), Value(pak.hash), Value(now)});
    if (!rows.ok() && rows.error().kind == store::DbError::Kind::Unique) {
      return conflict("generator_exists", "a generator named \"" + name + "\" already exists");
    }
    BROKER_CHECK(rows);
    return json_response(201, generator_with_pak(generator_object(rows.value(), 0), pak.pak));
  });
}

ApiResult<http::Response> get_generator(Call& call) {
  BROKER_TRY(id, call.id_param());
  BROKER_CHECK(check_self_or_admin(call, id));
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_TRY(generator, load_generator(connection, id));
    return json_response(200, generator);
  });
}

ApiResult<http::Response> update_generator(Call& call) {
  BROKER_TRY(id, call.id_param());
  BROKER_CHECK(check_self_or_admin(call, id));
  BROKER_TRY(body, BodyObject::parse(call.request, "Generator"));
  BROKER_TRY(body_id, body.optional_string("id", kUuidRule));
  BROKER_TRY(name, body.optional_string("name", kNameRule, false));
  BROKER_TRY(description, body.optional_string("description", kDescriptionRule));
  BROKER_TRY(is_active, body.optional_bool("is_active"));
  for (const char* read_only : {"created_at", "updated_at", "deleted_at", "last_active_at", "is_system"}) {
    body.ignore(read_only);
  }
  BROKER_CHECK(body.finish());
  if (body_id && *body_id != id) return field_error("invalid_field", "/id does not match the path's id", "/id");
  if (is_active && !call.caller.is_admin()) return forbidden("only an admin may activate or deactivate a generator");
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_TRY(current, load_generator(connection, id));
    const Value* current_description = current.find("description");
    auto rows = connection.query(
        "UPDATE generators SET name = $2, description = $3, is_active = $4, updated_at = $5 "
        "WHERE id = $1 AND deleted_at IS NULL RETURNING " SINDRI_GENERATOR_COLUMNS,
        {Value(id), Value(name ? *name : std::string(field(current, "name"))),
         description ? Value(*description) : *current_description,
         Value(is_active ? *is_active : current.find("is_active")->get_bool()), Value(now_timestamp())});
    if (!rows.ok() && rows.error().kind == store::DbError::Kind::Unique) {
      return conflict("generator_exists", "a generator named \"" + *name + "\" already exists");
    }
    BROKER_CHECK(rows);
    if (is_active) BROKER_CHECK(touch_credentials(call, connection));
    return json_response(200, generator_object(rows.value(), 0));
  });
}

ApiResult<http::Response> delete_generator(Call& call) {
  BROKER_TRY(id, call.id_param());
  BROKER_CHECK(check_self_or_admin(call, id));
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_TRY(generator, load_generator(connection, id));
    if (generator.find("is_system")->get_bool()) return forbidden("the system generator cannot be deleted");
    const std::string now = now_timestamp();
    BROKER_CHECK(connection.query("UPDATE generators SET deleted_at = $2, updated_at = $2 WHERE id = $1",
                                  {Value(id), Value(now)}));
    // Its templates go with it (seed 000: ON DELETE CASCADE), soft as always.
    BROKER_CHECK(connection.query("UPDATE stack_templates SET deleted_at = $2, updated_at = $2 "
                                  "WHERE generator_id = $1 AND deleted_at IS NULL",
                                  {Value(id), Value(now)}));
    BROKER_CHECK(connection.query("DELETE FROM template_targets WHERE template_id IN "
                                  "(SELECT id FROM stack_templates WHERE generator_id = $1)",
                                  {Value(id)}));
    // And its stacks, each as a deletion of the stack would (Brokkr's
    // cascade), so that agents remove what they applied from them.
    BROKER_TRY(stacks, connection.query("SELECT id FROM stacks WHERE generator_id = $1 AND deleted_at IS NULL",
                                        {Value(id)}));
    for (const auto& row : stacks.rows) BROKER_CHECK(retire_stack(connection, row[0].get_string(), now));
    if (!stacks.empty()) BROKER_CHECK(touch_target_state(connection));
    BROKER_CHECK(touch_credentials(call, connection));
    return empty_response(204);
  });
}

ApiResult<http::Response> rotate_generator_pak(Call& call) {
  BROKER_TRY(id, call.id_param());
  BROKER_CHECK(check_self_or_admin(call, id));
  const IssuedPak pak = issue_pak();
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_TRY(rows, connection.query("UPDATE generators SET pak_hash = $2, updated_at = $3 "
                                      "WHERE id = $1 AND deleted_at IS NULL RETURNING " SINDRI_GENERATOR_COLUMNS,
                                      {Value(id), Value(pak.hash), Value(now_timestamp())}));
    if (rows.empty()) return not_found("generator", id);
    BROKER_CHECK(touch_credentials(call, connection));
    return json_response(201, generator_with_pak(generator_object(rows, 0), pak.pak));
  });
}

}  // namespace

void add_generator_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"GET", "/generators", true, false, false, list_generators});
  routes.push_back({"GET", "/paks", true, false, false, list_paks});
  routes.push_back({"POST", "/generators", true, false, false, create_generator});
  routes.push_back({"GET", "/generators/{id}", true, true, false, get_generator});
  routes.push_back({"PUT", "/generators/{id}", true, true, false, update_generator});
  routes.push_back({"DELETE", "/generators/{id}", true, true, false, delete_generator});
  routes.push_back({"POST", "/generators/{id}/rotate-pak", true, true, false, rotate_generator_pak});
}

}  // namespace sindri::broker
