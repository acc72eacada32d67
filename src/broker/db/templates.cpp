#include "broker/db/templates.hpp"

#include "broker/db/rows.hpp"
#include "broker/db/template_targets.hpp"
#include "broker/ids.hpp"
#include "value/digest.hpp"

namespace sindri::broker::db {

ApiResult<Value> load_template(store::Connection& connection, std::string_view id) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_TEMPLATE_COLUMNS " FROM stack_templates WHERE id = $1 AND "
                                    SINDRI_LIVE,
                                    {Value(id)}));
  if (rows.empty()) return not_found("template", id);
  return row_object(rows, 0);
}

ApiResult<Value> load_any_template(store::Connection& connection, std::string_view id) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_TEMPLATE_COLUMNS " FROM stack_templates WHERE id = $1",
                                    {Value(id)}));
  if (rows.empty()) return not_found("template", id);
  return row_object(rows, 0);
}

ApiResult<std::optional<TemplateSource>> load_template_source(store::Connection& connection, std::string_view id) {
  SINDRI_TRY(rows, connection.query("SELECT name, version, template_content, parameters_schema "
                                    "FROM stack_templates WHERE id = $1",
                                    {Value(id)}));
  if (rows.empty()) return std::optional<TemplateSource>();
  const auto& row = rows.rows[0];
  return std::optional<TemplateSource>(TemplateSource{std::string(row[0].get_string()), row[1].get_int(),
                                                      std::string(row[2].get_string()),
                                                      std::string(row[3].get_string())});
}

ApiResult<Value> list_templates(store::Connection& connection, const TemplateFilter& filter) {
  std::string sql = "SELECT " SINDRI_TEMPLATE_COLUMNS " FROM stack_templates WHERE 1 = 1";
  std::vector<Value> params;
  if (!filter.all_versions) sql += " AND " SINDRI_LIVE;
  if (!filter.generator_id.empty()) {
    params.push_back(Value(filter.generator_id));
    sql += " AND generator_id = $" + std::to_string(params.size());
  }
  if (filter.name) {
    params.push_back(Value(*filter.name));
    sql += " AND name = $" + std::to_string(params.size());
  }
  sql += " ORDER BY name, COALESCE(generator_id, ''), version";
  SINDRI_TRY(rows, connection.query(sql, params));
  return rows_array(rows);
}

ApiResult<std::vector<std::string>> live_template_ids(store::Connection& connection) {
  SINDRI_TRY(rows, connection.query("SELECT id FROM stack_templates WHERE " SINDRI_LIVE " ORDER BY id"));
  std::vector<std::string> ids;
  ids.reserve(rows.size());
  for (const auto& row : rows.rows) ids.emplace_back(row[0].get_string());
  return ids;
}

ApiResult<Ok> lock_template_name(store::Connection& connection, const Value& owner, std::string_view name) {
  if (connection.dialect() != store::Dialect::Postgres) return Ok{};
  std::string key = "stack_templates\n";
  key += owner.is_string() ? owner.get_string() : std::string_view();
  key += '\n';
  key += name;
  SINDRI_CHECK(connection.query("SELECT 1 FROM pg_advisory_xact_lock(hashtextextended($1, 0))", {Value(key)}));
  return Ok{};
}

ApiResult<Value> insert_template_version(store::Connection& connection, const Value& owner, std::string_view name,
                                         const TemplateText& text) {
  const Value owner_key = owner.is_null() ? Value("") : owner;
  SINDRI_TRY(latest, connection.query("SELECT COALESCE(MAX(version), 0) FROM stack_templates "
                                      "WHERE COALESCE(generator_id, '') = $1 AND name = $2",
                                      {owner_key, Value(name)}));
  const int64_t version = latest.rows[0][0].get_int() + 1;
  SINDRI_TRY(rows, connection.query(
                       "INSERT INTO stack_templates (id, generator_id, name, description, version, template_content, "
                       "parameters_schema, checksum, created_at, updated_at) "
                       "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING " SINDRI_TEMPLATE_COLUMNS,
                       {Value(new_uuid()), owner, Value(name),
                        text.description ? Value(*text.description) : Value(), Value(version), Value(text.content),
                        Value(text.parameters_schema), Value(sha256_hex(text.content)), Value(now_timestamp())}));
  return row_object(rows, 0);
}

ApiResult<Ok> copy_template_tags(store::Connection& connection, std::string_view from, std::string_view to) {
  const std::string now = now_timestamp();
  SINDRI_TRY(labels, connection.query("SELECT label FROM template_labels WHERE template_id = $1", {Value(from)}));
  for (const auto& row : labels.rows) {
    SINDRI_CHECK(connection.query(
        "INSERT INTO template_labels (id, template_id, label, created_at) VALUES ($1, $2, $3, $4)",
        {Value(new_uuid()), Value(to), row[0], Value(now)}));
  }
  SINDRI_TRY(annotations, connection.query("SELECT key, value FROM template_annotations WHERE template_id = $1",
                                           {Value(from)}));
  for (const auto& row : annotations.rows) {
    SINDRI_CHECK(connection.query(
        "INSERT INTO template_annotations (id, template_id, key, value, created_at) VALUES ($1, $2, $3, $4, $5)",
        {Value(new_uuid()), Value(to), row[0], row[1], Value(now)}));
  }
  return Ok{};
}

ApiResult<Ok> retire_template(store::Connection& connection, std::string_view id) {
  SINDRI_CHECK(connection.query("UPDATE stack_templates SET deleted_at = $2, updated_at = $2 WHERE id = $1",
                                {Value(id), Value(now_timestamp())}));
  SINDRI_CHECK(connection.query("DELETE FROM template_targets WHERE template_id = $1", {Value(id)}));
  return Ok{};
}

ApiResult<std::optional<InstantiationTarget>> load_instantiation_target(store::Connection& connection,
                                                                        std::string_view template_id,
                                                                        std::string_view stack_id) {
  SINDRI_TRY(rows, connection.query("SELECT s.generator_id, t.id IS NOT NULL AND " SINDRI_LIVE_IN("t") ", "
                                    SINDRI_STACK_MATCHES_TEMPLATE
                                    " FROM stacks s LEFT JOIN stack_templates t ON t.id = $2 "
                                    "WHERE s.id = $1 AND " SINDRI_LIVE_IN("s"),
                                    {Value(stack_id), Value(template_id)}));
  if (rows.empty()) return std::optional<InstantiationTarget>();
  const auto& row = rows.rows[0];
  return std::optional<InstantiationTarget>(InstantiationTarget{row[0], is_true(row[1]), is_true(row[2])});
}

}  // namespace sindri::broker::db
