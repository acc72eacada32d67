// /templates (seed 000): reusable Tera templates with a JSON Schema for their
// parameters, versioned immutably per (owner, name). An update makes a new
// version and retires the old one; nothing is ever edited in place.

#include "broker/access.hpp"
#include "broker/api/request_body.hpp"
#include "broker/api/routes.hpp"
#include "broker/db/generators.hpp"
#include "broker/db/template_targets.hpp"
#include "broker/db/templates.hpp"
#include "broker/template_rendering.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker {
namespace {

constexpr TextRule kContentRule{0, false, true, false};

using db::TemplateText;

// The fields create and update share.
ApiResult<TemplateText> read_template_text(BodyObject& body) {
  TemplateText text;
  SINDRI_TRY(description, body.optional_string("description", kDescriptionRule));
  SINDRI_TRY(content, body.required_string("template_content", kContentRule));
  SINDRI_TRY(schema, body.required_string("parameters_schema", kContentRule));
  SINDRI_CHECK(body.finish());
  text.description = std::move(description);
  text.content = std::move(content);
  text.parameters_schema = std::move(schema);
  return text;
}

// As seed 000 asks, the Tera syntax and the schema fail fast, before
// anything is stored.
ApiResult<Ok> check_template_text(std::string_view name, const TemplateText& text) {
  SINDRI_CHECK(check_template_content(name, text.content));
  return check_parameters_schema(text.parameters_schema);
}

ApiResult<http::Response> create_template(Call& call) {
  SINDRI_TRY(body, BodyObject::parse(call.request, "CreateTemplateRequest"));
  SINDRI_TRY(name, body.required_string("name", kNameRule));
  // Seed 000 names the owner in the body; a generator may only name itself,
  // an admin names a generator or none (a system template).
  SINDRI_TRY(generator_id, body.optional_string("generator_id", kUuidRule));
  SINDRI_TRY(text, read_template_text(body));
  if (call.caller.kind == Identity::Kind::Generator) {
    if (!generator_id && body.has("generator_id")) {
      return forbidden("admin_required", "only an admin may create system templates (generator_id null)");
    }
    if (generator_id && *generator_id != call.caller.id) {
      return forbidden("template_not_owned", "a generator may only create templates of its own");
    }
    generator_id = call.caller.id;
  }
  SINDRI_CHECK(check_template_text(name, text));
  SINDRI_TRY(created, in_write<Value>(call.db(), [&](store::Connection& connection) -> ApiResult<Value> {
    if (generator_id && call.caller.is_admin()) {
      SINDRI_CHECK(db::check_named_generator(connection, *generator_id, "/generator_id"));
    }
    const Value owner = generator_id ? Value(*generator_id) : Value();
    SINDRI_CHECK(db::lock_template_name(connection, owner, name));
    SINDRI_TRY(tpl, db::insert_template_version(connection, owner, name, text));
    SINDRI_CHECK(db::sync_template_targets_for_template(connection, field(tpl, "id")));
    SINDRI_CHECK(audit(call, connection, "template.created", "template", std::string(field(tpl, "id")),
                       make_object({{"name", Value(name)}, {"version", *tpl.find("version")}})));
    return tpl;
  }));
  return json_response(201, created);
}

ApiResult<http::Response> list_templates(Call& call) {
  SINDRI_TRY(generator_filter, optional_uuid_query(call.request, "generator_id"));
  const std::string* name = call.request.query_param("name");
  // Listing by name is the seed's "list versions of a template": superseded
  // and deleted versions too, unless all_versions=false; other listings show
  // the live versions unless all_versions=true.
  SINDRI_TRY(asked_all_versions, optional_bool_query(call.request, "all_versions"));
  const bool all_versions =
      call.request.query_param("all_versions") != nullptr ? asked_all_versions : name != nullptr;
  const db::TemplateFilter filter{generator_filter, name, all_versions};
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(templates, db::list_templates(connection, filter));
    return json_response(200, templates);
  });
}

ApiResult<http::Response> get_template(Call& call) {
  SINDRI_TRY(id, call.id_param());
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(tpl, db::load_template(connection, id));
    return json_response(200, tpl);
  });
}

ApiResult<http::Response> update_template(Call& call) {
  SINDRI_TRY(id, call.id_param());
  SINDRI_TRY(body, BodyObject::parse(call.request, "UpdateTemplateRequest"));
  SINDRI_TRY(text, read_template_text(body));
  // Errors name the template as the version being replaced is called.
  SINDRI_TRY(current, in_read<Value>(call.db(), [&](store::Connection& connection) -> ApiResult<Value> {
    SINDRI_TRY(tpl, db::load_template(connection, id));
    SINDRI_CHECK(check_template_change(call.caller, tpl));
    return tpl;
  }));
  SINDRI_CHECK(check_template_text(field(current, "name"), text));
  SINDRI_TRY(created, in_write<Value>(call.db(), [&](store::Connection& connection) -> ApiResult<Value> {
    SINDRI_TRY(old, load_template_for_change(connection, call.caller, id));
    TemplateText next = text;
    if (!next.description) {
      const Value* description = old.find("description");
      if (description != nullptr && description->is_string()) next.description = std::string(description->get_string());
    }
    SINDRI_TRY(tpl, db::insert_template_version(connection, *old.find("generator_id"), field(old, "name"), next));
    // Labels and annotations go with the template to its new version: they
    // say where the template belongs, which a content fix does not change.
    SINDRI_CHECK(db::copy_template_tags(connection, id, field(tpl, "id")));
    SINDRI_CHECK(db::retire_template(connection, id));
    SINDRI_CHECK(db::sync_template_targets_for_template(connection, field(tpl, "id")));
    SINDRI_CHECK(audit(call, connection, "template.updated", "template", std::string(field(tpl, "id")),
                       make_object({{"replaces", Value(id)}, {"version", *tpl.find("version")}})));
    return tpl;
  }));
  return json_response(200, created);
}

// Creation refuses an empty text with a 400; an editor being cleared is
// answered with a problem instead, so that the other text is still checked.
Value empty_text_problem(std::string_view field) {
  return make_object({{"field", Value(field)},
                      {"code", Value("empty")},
                      {"message", Value(std::string(field) + " is empty: a template needs one")}});
}

// Beyond Brokkr: what create and update would refuse in a template's text
// and its parameter schema, every problem with its place, nothing stored;
// the console's editor asks as its author types. The template's name (for
// messages) is optional, as is either text, but not both.
ApiResult<http::Response> check_template(Call& call) {
  constexpr TextRule kCheckedText{0, true, true, false};
  SINDRI_TRY(body, BodyObject::parse(call.request, "TemplateCheckRequest"));
  SINDRI_TRY(name, body.optional_string("name", kNameRule));
  SINDRI_TRY(content, body.optional_string("template_content", kCheckedText));
  SINDRI_TRY(schema, body.optional_string("parameters_schema", kCheckedText));
  SINDRI_CHECK(body.finish());
  if (!content && !schema) {
    return field_error("missing_field", "send template_content, parameters_schema or both", "");
  }
  Array problems;
  if (content && content->empty()) problems.push_back(empty_text_problem("template_content"));
  if (content && !content->empty()) problems = template_content_problems(name ? *name : "template", *content);
  if (schema && schema->empty()) problems.push_back(empty_text_problem("parameters_schema"));
  if (schema && !schema->empty()) {
    for (Value& found : parameters_schema_problems(*schema)) problems.push_back(std::move(found));
  }
  const bool valid = problems.empty();
  return json_response(200, make_object({{"valid", Value(valid)}, {"problems", Value(std::move(problems))}}));
}

ApiResult<http::Response> delete_template(Call& call) {
  SINDRI_TRY(id, call.id_param());
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_CHECK(load_template_for_change(connection, call.caller, id));
    SINDRI_CHECK(db::retire_template(connection, id));
    SINDRI_CHECK(audit(call, connection, "template.deleted", "template", id));
    return empty_response(204);
  });
}

}  // namespace

void add_template_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"GET", "/templates", Allow::Admin | Allow::Generator, list_templates});
  routes.push_back({"POST", "/templates", Allow::Admin | Allow::Generator, create_template});
  routes.push_back({"POST", "/templates/check", Allow::Admin | Allow::Generator, check_template});
  routes.push_back({"GET", "/templates/{id}", Allow::Admin | Allow::Generator, get_template});
  routes.push_back({"PUT", "/templates/{id}", Allow::Admin | Allow::Generator, update_template});
  routes.push_back({"DELETE", "/templates/{id}", Allow::Admin | Allow::Generator, delete_template});
}

}  // namespace sindri::broker
