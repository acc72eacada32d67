// Labels and annotations of stacks, agents and templates. All work the same
// way and feed a matching engine (agents to stacks, templates to stacks), so
// one implementation serves all three.

#include "broker/access.hpp"
#include "broker/api/request_body.hpp"
#include "broker/api/routes.hpp"
#include "broker/db/agents.hpp"
#include "broker/db/rows.hpp"
#include "broker/db/stacks.hpp"
#include "broker/db/tags.hpp"
#include "broker/db/targeting.hpp"
#include "broker/db/template_targets.hpp"
#include "broker/notices.hpp"
#include "broker/pushes.hpp"

namespace sindri::broker {
namespace {

struct TagOwner {
  db::TagOwner table;
  const char* entity;    // "stack", "agent" or "template"
  const char* id_field;  // "stack_id", ...
  const char* label_schema;
  const char* annotation_schema;
  ApiResult<Ok> (*check_access)(store::Connection&, const Identity&, std::string_view id, bool change);
  // Answers the agents' targets it added or dropped.
  ApiResult<Value> (*sync)(store::Connection&, std::string_view id);
};

ApiResult<Ok> stack_access(store::Connection& connection, const Identity& caller, std::string_view id, bool change) {
  SINDRI_TRY(stack, db::load_stack(connection, id));
  return check_stack_access(connection, caller, stack, change ? StackAccess::Manage : StackAccess::Read);
}

ApiResult<Ok> agent_access(store::Connection& connection, const Identity& caller, std::string_view id, bool change) {
  if (!caller.is_admin() && !(caller.is_agent(id) && !change)) {
    if (change) return forbidden("admin_required", "only an admin may change an agent's labels and annotations");
    return forbidden("agent_pak_mismatch", "an agent may only read its own labels and annotations");
  }
  SINDRI_TRY(agent, db::load_agent(connection, id));
  return Ok{};
}

// A stack's labels decide both which agents deploy it and which templates
// may be instantiated into it.
ApiResult<Value> sync_stack(store::Connection& connection, std::string_view id) {
  SINDRI_TRY(changed, db::sync_targets_for_stack(connection, id));
  SINDRI_CHECK(db::sync_template_targets_for_stack(connection, id));
  return changed;
}

// A template's labels change no agent's targets.
ApiResult<Value> sync_template(store::Connection& connection, std::string_view id) {
  SINDRI_CHECK(db::sync_template_targets_for_template(connection, id));
  return Value(Array{});
}

// A tag write: `write` (Connection&, Value& changed targets) in a write
// transaction, with target_changed to each agent whose targets changed.
template <class Write>
ApiResult<http::Response> write_tags(Call& call, Write write) {
  StagedNotices notices(*call.services.notices);
  SINDRI_TRY(response, in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    Value changed;
    SINDRI_TRY(response, write(connection, changed));
    if (changed.is_array() && changed.size() > 0) {
      SINDRI_CHECK(notices.stage(connection, targets_changed_notice(changed.get_array())));
    }
    return response;
  }));
  notices.deliver();
  return response;
}

const TagOwner kStack{db::TagOwner::Stack, "stack", "stack_id", "NewStackLabel", "NewStackAnnotation", stack_access,
                      sync_stack};
const TagOwner kAgent{db::TagOwner::Agent, "agent", "agent_id", "NewAgentLabel", "NewAgentAnnotation", agent_access,
                      db::sync_targets_for_agent};
const TagOwner kTemplate{db::TagOwner::Template, "template", "template_id", "NewTemplateLabel",
                         "NewTemplateAnnotation", check_template_access, sync_template};

// The owner's id may be repeated in the body (Brokkr's New*Label shapes
// carry it); when it is, it must be the path's.
ApiResult<Ok> check_owner_field(BodyObject& body, const TagOwner& owner, std::string_view id) {
  SINDRI_TRY(body_id, body.optional_string(owner.id_field, kUuidRule));
  if (body_id && *body_id != id) {
    const std::string pointer = std::string("/") + owner.id_field;
    return field_error(owner.id_field + std::string("_mismatch"),
                       pointer + " does not match the " + owner.entity + " id in the path", pointer);
  }
  return Ok{};
}

// A label arrives as a JSON string ("env=prod") or as an object with a
// "label" member.
ApiResult<std::string> read_label(const http::Request& request, const TagOwner& owner, std::string_view id) {
  SINDRI_TRY(value, parse_json_body(request));
  if (value.is_string()) {
    SINDRI_CHECK(check_text(value.get_string(), kTagRule, ""));
    return std::string(value.get_string());
  }
  if (!value.is_object()) {
    return field_error("invalid_body",
                       std::string("the body must be a JSON string or a ") + owner.label_schema + " object, got " +
                           value.kind_name(),
                       "");
  }
  BodyObject body(std::move(value), owner.label_schema);
  SINDRI_TRY(label, body.required_string("label", kTagRule));
  SINDRI_CHECK(check_owner_field(body, owner, id));
  SINDRI_CHECK(body.finish());
  return label;
}

using ListTags = ApiResult<Value> (*)(store::Connection&, db::TagOwner, std::string_view);
using RemoveTag = ApiResult<bool> (*)(store::Connection&, db::TagOwner, std::string_view, std::string_view);

ApiResult<http::Response> list_tags(Call& call, const TagOwner& owner, ListTags list) {
  SINDRI_TRY(id, call.id_param());
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_CHECK(owner.check_access(connection, call.caller, id, false));
    SINDRI_TRY(tags, list(connection, owner.table, id));
    return json_response(200, tags);
  });
}

ApiResult<http::Response> add_label(Call& call, const TagOwner& owner) {
  SINDRI_TRY(id, call.id_param());
  SINDRI_TRY(label, read_label(call.request, owner, id));
  return write_tags(call, [&](store::Connection& connection, Value& changed) -> ApiResult<http::Response> {
    SINDRI_CHECK(owner.check_access(connection, call.caller, id, true));
    auto added = db::insert_label(connection, owner.table, id, label);
    if (!added.ok() && db::is_unique_violation(added.error())) {
      return conflict("label_exists", std::string(owner.entity) + " " + id + " already has label \"" + label + "\"");
    }
    SINDRI_CHECK(added);
    SINDRI_TRY(targets, owner.sync(connection, id));
    changed = std::move(targets);
    return json_response(201, std::move(added).value());
  });
}

ApiResult<http::Response> add_annotation(Call& call, const TagOwner& owner) {
  SINDRI_TRY(id, call.id_param());
  SINDRI_TRY(body, BodyObject::parse(call.request, owner.annotation_schema));
  SINDRI_TRY(key, body.required_string("key", kTagRule));
  SINDRI_TRY(value, body.required_string("value", kTagRule));
  SINDRI_CHECK(check_owner_field(body, owner, id));
  SINDRI_CHECK(body.finish());
  return write_tags(call, [&](store::Connection& connection, Value& changed) -> ApiResult<http::Response> {
    SINDRI_CHECK(owner.check_access(connection, call.caller, id, true));
    auto added = db::insert_annotation(connection, owner.table, id, key, value);
    if (!added.ok() && db::is_unique_violation(added.error())) {
      return conflict("annotation_exists",
                      std::string(owner.entity) + " " + id + " already has an annotation \"" + key + "\"");
    }
    SINDRI_CHECK(added);
    SINDRI_TRY(targets, owner.sync(connection, id));
    changed = std::move(targets);
    return json_response(201, std::move(added).value());
  });
}

ApiResult<http::Response> remove_tag(Call& call, const TagOwner& owner, RemoveTag remove, const char* param,
                                     const char* what) {
  SINDRI_TRY(id, call.id_param());
  const std::string& tag = call.params[param];
  return write_tags(call, [&](store::Connection& connection, Value& changed) -> ApiResult<http::Response> {
    SINDRI_CHECK(owner.check_access(connection, call.caller, id, true));
    SINDRI_TRY(removed, remove(connection, owner.table, id, tag));
    if (!removed) {
      return ApiError{404, std::string(what) + "_not_found",
                      std::string(owner.entity) + " " + id + " has no " + what + " \"" + tag + "\"", Value(),
                      std::nullopt};
    }
    SINDRI_TRY(targets, owner.sync(connection, id));
    changed = std::move(targets);
    return empty_response(204);
  });
}

void add_routes(std::vector<ApiRoute>& routes, const TagOwner& owner, const std::string& base, Allow readers,
                Allow managers) {
  const TagOwner* o = &owner;
  routes.push_back({"GET", base + "/labels", readers, [o](Call& call) { return list_tags(call, *o, db::list_labels); }});
  routes.push_back({"POST", base + "/labels", managers, [o](Call& call) { return add_label(call, *o); }});
  routes.push_back({"DELETE", base + "/labels/{label}", managers,
                    [o](Call& call) { return remove_tag(call, *o, db::delete_label, "label", "label"); }});
  routes.push_back(
      {"GET", base + "/annotations", readers, [o](Call& call) { return list_tags(call, *o, db::list_annotations); }});
  routes.push_back({"POST", base + "/annotations", managers, [o](Call& call) { return add_annotation(call, *o); }});
  routes.push_back({"DELETE", base + "/annotations/{key}", managers,
                    [o](Call& call) { return remove_tag(call, *o, db::delete_annotation, "key", "annotation"); }});
}

}  // namespace

void add_stack_tag_routes(std::vector<ApiRoute>& routes) {
  add_routes(routes, kStack, "/stacks/{id}", Allow::Admin | Allow::Generator | Allow::Agent,
             Allow::Admin | Allow::Generator);
}

void add_agent_tag_routes(std::vector<ApiRoute>& routes) {
  add_routes(routes, kAgent, "/agents/{id}", Allow::Admin | Allow::Agent, Allow::Admin);
}

void add_template_tag_routes(std::vector<ApiRoute>& routes) {
  add_routes(routes, kTemplate, "/templates/{id}", Allow::Admin | Allow::Generator, Allow::Admin | Allow::Generator);
}

}  // namespace sindri::broker
