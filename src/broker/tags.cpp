// Labels and annotations of stacks, agents and templates. All work the same
// way and feed a matching engine (agents to stacks, templates to stacks), so
// one implementation serves all three.

#include "broker/ids.hpp"
#include "broker/records.hpp"
#include "broker/request_body.hpp"
#include "broker/routes.hpp"
#include "broker/targeting.hpp"
#include "broker/template_targets.hpp"

namespace sindri::broker {
namespace {

struct TagOwner {
  const char* entity;     // "stack", "agent" or "template"
  const char* id_field;   // "stack_id", ...
  bool timestamped;       // the insert statements take created_at as their last parameter
  const char* label_schema;
  const char* annotation_schema;
  const char* list_labels;
  const char* insert_label;
  const char* delete_label;
  const char* list_annotations;
  const char* insert_annotation;
  const char* delete_annotation;
  ApiResult<Ok> (*check_access)(store::Connection&, const Identity&, std::string_view id, bool change);
  ApiResult<Ok> (*sync)(store::Connection&, std::string_view id);
};

ApiResult<Ok> stack_access(store::Connection& connection, const Identity& caller, std::string_view id, bool change) {
  BROKER_TRY(stack, load_stack(connection, id));
  return check_stack_access(connection, caller, stack, change ? StackAccess::Manage : StackAccess::Read);
}

ApiResult<Ok> agent_access(store::Connection& connection, const Identity& caller, std::string_view id, bool change) {
  if (!caller.is_admin() && !(caller.is_agent(id) && !change)) {
    return forbidden(change ? "only an admin may change an agent's labels and annotations"
                            : "an agent may only read its own labels and annotations");
  }
  BROKER_TRY(agent, load_agent(connection, id));
  return Ok{};
}

// A stack's labels decide both which agents deploy it and which templates
// may be instantiated into it.
ApiResult<Ok> sync_stack(store::Connection& connection, std::string_view id) {
  BROKER_CHECK(sync_targets_for_stack(connection, id));
  return sync_template_targets_for_stack(connection, id);
}

const TagOwner kStack{
    "stack", "stack_id", false, "NewStackLabel", "NewStackAnnotation",
    "SELECT id, stack_id, label FROM stack_labels WHERE stack_id = $1 ORDER BY label",
    "INSERT INTO stack_labels (id, stack_id, label) VALUES ($1, $2, $3) RETURNING id, stack_id, label",
    "DELETE FROM stack_labels WHERE stack_id = $1 AND label = $2 RETURNING id",
    "SELECT id, stack_id, key, value FROM stack_annotations WHERE stack_id = $1 ORDER BY key",
    "INSERT INTO stack_annotations (id, stack_id, key, value) VALUES ($1, $2, $3, $4) "
    "RETURNING id, stack_id, key, value",
    "DELETE FROM stack_annotations WHERE stack_id = $1 AND key = $2 RETURNING id",
    stack_access, sync_stack};

const TagOwner kAgent{
    "agent", "agent_id", false, "NewAgentLabel", "NewAgentAnnotation",
    "SELECT id, agent_id, label FROM agent_labels WHERE agent_id = $1 ORDER BY label",
    "INSERT INTO agent_labels (id, agent_id, label) VALUES ($1, $2, $3) RETURNING id, agent_id, label",
    "DELETE FROM agent_labels WHERE agent_id = $1 AND label = $2 RETURNING id",
    "SELECT id, agent_id, key, value FROM agent_annotations WHERE agent_id = $1 ORDER BY key",
    "INSERT INTO agent_annotations (id, agent_id, key, value) VALUES ($1, $2, $3, $4) "
    "RETURNING id, agent_id, key, value",
    "DELETE FROM agent_annotations WHERE agent_id = $1 AND key = $2 RETURNING id",
    agent_access, sync_targets_for_agent};

const TagOwner kTemplate{
    "template", "template_id", true, "NewTemplateLabel", "NewTemplateAnnotation",
    "SELECT id, template_id, label, created_at FROM template_labels WHERE template_id = $1 ORDER BY label",
    "INSERT INTO template_labels (id, template_id, label, created_at) VALUES ($1, $2, $3, $4) "
    "RETURNING id, template_id, label, created_at",
    "DELETE FROM template_labels WHERE template_id = $1 AND label = $2 RETURNING id",
    "SELECT id, template_id, key, value, created_at FROM template_annotations WHERE template_id = $1 ORDER BY key",
    "INSERT INTO template_annotations (id, template_id, key, value, created_at) VALUES ($1, $2, $3, $4, $5) "
    "RETURNING id, template_id, key, value, created_at",
    "DELETE FROM template_annotations WHERE template_id = $1 AND key = $2 RETURNING id",
    check_template_access, sync_template_targets_for_template};

// The insert's parameters, created_at last for owners that record it.
std::vector<Value> insert_params(const TagOwner& owner, std::vector<Value> params) {
  if (owner.timestamped) params.push_back(Value(now_timestamp()));
  return params;
}

// The owner's id may be repeated in the body (Brokkr's New*Label shapes
// carry it); when it is, it must be the path's.
ApiResult<Ok> check_owner_field(BodyObject& body, const TagOwner& owner, std::string_view id) {
  BROKER_TRY(body_id, body.optional_string(owner.id_field, kUuidRule));
  if (body_id && *body_id != id) {
    const std::string pointer = std::string("/") + owner.id_field;
    return field_error("invalid_field", pointer + " does not match the " + owner.entity + " id in the path", pointer);
  }
  return Ok{};
}

// A label arrives as a JSON string ("env=prod") or as an object with a
// "label" member.
ApiResult<std::string> read_label(const http::Request& request, const TagOwner& owner, std::string_view id) {
  BROKER_TRY(value, parse_json_body(request));
  if (value.is_string()) {
    BROKER_CHECK(check_text(value.get_string(), kTagRule, ""));
    return std::string(value.get_string());
  }
  if (!value.is_object()) {
    return field_error("invalid_body",
                       std::string("the body must be a JSON string or a ") + owner.label_schema + " object, got " +
                           value.kind_name(),
                       "");
  }
  BodyObject body(std::move(value), owner.label_schema);
  BROKER_TRY(label, body.required_string("label", kTagRule));
  BROKER_CHECK(check_owner_field(body, owner, id));
  BROKER_CHECK(body.finish());
  return label;
}

ApiResult<http::Response> list_tags(Call& call, const TagOwner& owner, const char* sql) {
  BROKER_TRY(id, call.id_param());
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_CHECK(owner.check_access(connection, call.caller, id, false));
    BROKER_TRY(rows, connection.query(sql, {Value(id)}));
    return json_response(200, rows_array(rows));
  });
}

ApiResult<http::Response> add_label(Call& call, const TagOwner& owner) {
  BROKER_TRY(id, call.id_param());
  BROKER_TRY(label, read_label(call.request, owner, id));
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_CHECK(owner.check_access(connection, call.caller, id, true));
    auto rows = connection.query(owner.insert_label, insert_params(owner, {Value(new_uuid()), Value(id), Value(label)}));
    if (!rows.ok() && rows.error().kind == store::DbError::Kind::Unique) {
      return conflict("label_exists", std::string(owner.entity) + " " + id + " already has label \"" + label + "\"");
    }
    BROKER_CHECK(rows);
    BROKER_CHECK(owner.sync(connection, id));
    return json_response(201, row_object(rows.value(), 0));
  });
}

ApiResult<http::Response> add_annotation(Call& call, const TagOwner& owner) {
  BROKER_TRY(id, call.id_param());
  BROKER_TRY(body, BodyObject::parse(call.request, owner.annotation_schema));
  BROKER_TRY(key, body.required_string("key", kTagRule));
  BROKER_TRY(value, body.required_string("value", kTagRule));
  BROKER_CHECK(check_owner_field(body, owner, id));
  BROKER_CHECK(body.finish());
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_CHECK(owner.check_access(connection, call.caller, id, true));
    auto rows = connection.query(owner.insert_annotation,
                                 insert_params(owner, {Value(new_uuid()), Value(id), Value(key), Value(value)}));
    if (!rows.ok() && rows.error().kind == store::DbError::Kind::Unique) {
      return conflict("annotation_exists",
                      std::string(owner.entity) + " " + id + " already has an annotation \"" + key + "\"");
    }
    BROKER_CHECK(rows);
    BROKER_CHECK(owner.sync(connection, id));
    return json_response(201, row_object(rows.value(), 0));
  });
}

ApiResult<http::Response> remove_tag(Call& call, const TagOwner& owner, const char* sql, const char* param,
                                     const char* what) {
  BROKER_TRY(id, call.id_param());
  const std::string& tag = call.params[param];
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_CHECK(owner.check_access(connection, call.caller, id, true));
    BROKER_TRY(rows, connection.query(sql, {Value(id), Value(tag)}));
    if (rows.empty()) {
      return ApiError{404, std::string(what) + "_not_found",
                      std::string(owner.entity) + " " + id + " has no " + what + " \"" + tag + "\"", Value(),
                      std::nullopt};
    }
    BROKER_CHECK(owner.sync(connection, id));
    return empty_response(204);
  });
}

void add_routes(std::vector<ApiRoute>& routes, const TagOwner& owner, const std::string& base, bool agents_read,
                bool generators_manage) {
  const TagOwner* o = &owner;
  routes.push_back({"GET", base + "/labels", true, generators_manage, agents_read,
                    [o](Call& call) { return list_tags(call, *o, o->list_labels); }});
  routes.push_back({"POST", base + "/labels", true, generators_manage, false,
                    [o](Call& call) { return add_label(call, *o); }});
  routes.push_back({"DELETE", base + "/labels/{label}", true, generators_manage, false,
                    [o](Call& call) { return remove_tag(call, *o, o->delete_label, "label", "label"); }});
  routes.push_back({"GET", base + "/annotations", true, generators_manage, agents_read,
                    [o](Call& call) { return list_tags(call, *o, o->list_annotations); }});
  routes.push_back({"POST", base + "/annotations", true, generators_manage, false,
                    [o](Call& call) { return add_annotation(call, *o); }});
  routes.push_back({"DELETE", base + "/annotations/{key}", true, generators_manage, false,
                    [o](Call& call) { return remove_tag(call, *o, o->delete_annotation, "key", "annotation"); }});
}

}  // namespace

void add_stack_tag_routes(std::vector<ApiRoute>& routes) { add_routes(routes, kStack, "/stacks/{id}", true, true); }

void add_agent_tag_routes(std::vector<ApiRoute>& routes) { add_routes(routes, kAgent, "/agents/{id}", true, false); }

void add_template_tag_routes(std::vector<ApiRoute>& routes) {
  add_routes(routes, kTemplate, "/templates/{id}", false, true);
}

}  // namespace sindri::broker
