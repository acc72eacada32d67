// /templates (seed 000): reusable Tera templates with a JSON Schema for their
// parameters, versioned immutably per (owner, name). An update makes a new
// version and retires the old one; nothing is ever edited in place.

#include "broker/ids.hpp"
#include "broker/records.hpp"
#include "broker/request_body.hpp"
#include "broker/routes.hpp"
#include "broker/template_rendering.hpp"
#include "broker/template_targets.hpp"
#include "value/digest.hpp"

namespace sindri::broker {
namespace {

constexpr TextRule kContentRule{0, false, true, false};

struct TemplateText {
  std::optional<std::string> description;
  std::string content;
  std::string parameters_schema;
};

// The fields create and update share.
ApiResult<TemplateText> read_template_text(BodyObject& body) {
  TemplateText text;
  BROKER_TRY(description, body.optional_string("description", kDescriptionRule));
  BROKER_TRY(content, body.required_string("template_content", kContentRule));
  BROKER_TRY(schema, body.required_string("parameters_schema", kContentRule));
  BROKER_CHECK(body.finish());
  text.description = std::move(description);
  text.content = std::move(content);
  text.parameters_schema = std::move(schema);
  return text;
}

// As seed 000 asks, the Tera syntax and the schema fail fast, before
// anything is stored.
ApiResult<Ok> check_template_text(std::string_view name, const TemplateText& text) {
  BROKER_CHECK(check_template_content(name, text.content));
  return check_parameters_schema(text.parameters_schema);
}

// Inserts the next version of (owner, name); the caller holds the name's lock.
ApiResult<Value> insert_next_version(store::Connection& connection, const Value& owner, std::string_view name,
                                     const TemplateText& text) {
  const Value owner_key = owner.is_null() ? Value("") : owner;
  BROKER_TRY(latest, connection.query("SELECT COALESCE(MAX(version), 0) FROM stack_templates "
                                      "WHERE COALESCE(generator_id, '') = $1 AND name = $2",
                                      {owner_key, Value(name)}));
  const int64_t version = latest.rows[0][0].get_int() + 1;
  const std::string now = now_timestamp();
  BROKER_TRY(rows, connection.query(
                       "INSERT INTO stack_templates (id, generator_id, name, description, version, template_content, "
                       "parameters_schema, checksum, created_at, updated_at) "
                       "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING " SINDRI_TEMPLATE_COLUMNS,
                       {Value(new_uuid()), owner, Value(name),
                        text.description ? Value(*text.description) : Value(), Value(version), Value(text.content),
                        Value(text.parameters_schema), Value(sha256_hex(text.content)), Value(now)}));
  return row_object(rows, 0);
}

ApiResult<http::Response> create_template(Call& call) {
  BROKER_TRY(body, BodyObject::parse(call.request, "CreateTemplateRequest"));
  BROKER_TRY(name, body.required_string("name", kNameRule));
  // Seed 000 names the owner in the body; a generator may only name itself,
  // an admin names a generator or none (a system template).
  BROKER_TRY(generator_id, body.optional_string("generator_id", kUuidRule));
  BROKER_TRY(text, read_template_text(body));
  if (call.caller.kind == Identity::Kind::Generator) {
    if (!generator_id && body.has("generator_id")) {
      return forbidden("only an admin may create system templates (generator_id null)");
    }
    if (generator_id && *generator_id != call.caller.id) {
      return forbidden("a generator may only create templates of its own");
    }
    generator_id = call.caller.id;
  }
  BROKER_CHECK(check_template_text(name, text));
  BROKER_TRY(created, in_write<Value>(call.db(), [&](store::Connection& connection) -> ApiResult<Value> {
    if (generator_id && call.caller.is_admin()) {
      BROKER_CHECK(check_named_generator(connection, *generator_id, "/generator_id"));
    }
    const Value owner = generator_id ? Value(*generator_id) : Value();
    BROKER_CHECK(lock_template_name(connection, owner, name));
    BROKER_TRY(tpl, insert_next_version(connection, owner, name, text));
    BROKER_CHECK(sync_template_targets_for_template(connection, field(tpl, "id")));
    return tpl;
  }));
  return json_response(201, created);
}

ApiResult<http::Response> list_templates(Call& call) {
  BROKER_TRY(generator_filter, optional_uuid_query(call.request, "generator_id"));
  const std::string* name = call.request.query_param("name");
  // Listing by name is the seed's "list versions of a template": superseded
  // and deleted versions too, unless all_versions=false; other listings show
  // the live versions unless all_versions=true.
  BROKER_TRY(asked_all_versions, optional_bool_query(call.request, "all_versions"));
  const bool all_versions =
      call.request.query_param("all_versions") != nullptr ? asked_all_versions : name != nullptr;
  std::string sql = "SELECT " SINDRI_TEMPLATE_COLUMNS " FROM stack_templates WHERE 1 = 1";
  std::vector<Value> params;
  if (!all_versions) sql += " AND deleted_at IS NULL";
  if (!generator_filter.empty()) {
    params.push_back(Value(generator_filter));
    sql += " AND generator_id = $" + std::to_string(params.size());
  }
  if (name) {
    params.push_back(Value(*name));
    sql += " AND name = $" + std::to_string(params.size());
  }
  sql += " ORDER BY name, COALESCE(generator_id, ''), version";
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_TRY(rows, connection.query(sql, params));
    return json_response(200, rows_array(rows));
  });
}

ApiResult<http::Response> get_template(Call& call) {
  BROKER_TRY(id, call.id_param());
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_TRY(tpl, load_template(connection, id));
    return json_response(200, tpl);
  });
}

// Labels and annotations go with the template to its new version: they say
// where the template belongs, which a content fix does not change.
ApiResult<Ok> copy_tags(store::Connection& connection, std::string_view from, std::string_view to) {
  const std::string now = now_timestamp();
  BROKER_TRY(labels, connection.query("SELECT label FROM template_labels WHERE template_id = $1", {Value(from)}));
  for (const auto& row : labels.rows) {
    BROKER_CHECK(connection.query(
        "INSERT INTO template_labels (id, template_id, label, created_at) VALUES ($1, $2, $3, $4)",
        {Value(new_uuid()), Value(to), row[0], Value(now)}));
  }
  BROKER_TRY(annotations, connection.query("SELECT key, value FROM template_annotations WHERE template_id = $1",
                                           {Value(from)}));
  for (const auto& row : annotations.rows) {
    BROKER_CHECK(connection.query(
        "INSERT INTO template_annotations (id, template_id, key, value, created_at) VALUES ($1, $2, $3, $4, $5)",
        {Value(new_uuid()), Value(to), row[0], row[1], Value(now)}));
  }
  return Ok{};
}

ApiResult<Ok> retire(store::Connection& connection, std::string_view id) {
  BROKER_CHECK(connection.query("UPDATE stack_templates SET deleted_at = $2, updated_at = $2 WHERE id = $1",
                                {Value(id), Value(now_timestamp())}));
  BROKER_CHECK(connection.query("DELETE FROM template_targets WHERE template_id = $1", {Value(id)}));
  return Ok{};
}

ApiResult<http::Response> update_template(Call& call) {
  BROKER_TRY(id, call.id_param());
  BROKER_TRY(body, BodyObject::parse(call.request, "UpdateTemplateRequest"));
  BROKER_TRY(text, read_template_text(body));
  // Errors name the template as the version being replaced is called.
  BROKER_TRY(current, in_read<Value>(call.db(), [&](store::Connection& connection) -> ApiResult<Value> {
    BROKER_TRY(tpl, load_template(connection, id));
    BROKER_CHECK(check_template_change(call.caller, tpl));
    return tpl;
  }));
  BROKER_CHECK(check_template_text(field(current, "name"), text));
  BROKER_TRY(created, in_write<Value>(call.db(), [&](store::Connection& connection) -> ApiResult<Value> {
    BROKER_TRY(old, load_template_for_change(connection, call.caller, id));
    TemplateText next = text;
    if (!next.description) {
      const Value* description = old.find("description");
      if (description != nullptr && description->is_string()) next.description = std::string(description->get_string());
    }
    BROKER_TRY(tpl, insert_next_version(connection, *old.find("generator_id"), field(old, "name"), next));
    BROKER_CHECK(copy_tags(connection, id, field(tpl, "id")));
    BROKER_CHECK(retire(connection, id));
    BROKER_CHECK(sync_template_targets_for_template(connection, field(tpl, "id")));
    return tpl;
  }));
  return json_response(200, created);
}

ApiResult<http::Response> delete_template(Call& call) {
  BROKER_TRY(id, call.id_param());
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_CHECK(load_template_for_change(connection, call.caller, id));
    BROKER_CHECK(retire(connection, id));
    return empty_response(204);
  });
}

}  // namespace

void add_template_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"GET", "/templates", true, true, false, list_templates});
  routes.push_back({"POST", "/templates", true, true, false, create_template});
  routes.push_back({"GET", "/templates/{id}", true, true, false, get_template});
  routes.push_back({"PUT", "/templates/{id}", true, true, false, update_template});
  routes.push_back({"DELETE", "/templates/{id}", true, true, false, delete_template});
}

}  // namespace sindri::broker
