#include "broker/db/generators.hpp"

#include "broker/db/rows.hpp"
#include "broker/db/stacks.hpp"
#include "broker/ids.hpp"

namespace sindri::broker::db {

ApiResult<Value> load_generator(store::Connection& connection, std::string_view id) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_GENERATOR_COLUMNS " FROM generators WHERE id = $1 AND " SINDRI_LIVE,
                                    {Value(id)}));
  if (rows.empty()) return not_found("generator", id);
  return generator_object(rows, 0);
}

ApiResult<Ok> check_named_generator(store::Connection& connection, std::string_view id, std::string_view pointer) {
  auto generator = load_generator(connection, id);
  if (generator.ok()) return Ok{};
  if (generator.error().status != 404) return std::move(generator).error();
  return field_error("invalid_field", std::string(pointer) + ": generator " + std::string(id) + " does not exist",
                     pointer);
}

ApiResult<Value> list_generators(store::Connection& connection) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_GENERATOR_COLUMNS " FROM generators WHERE " SINDRI_LIVE
                                    " ORDER BY created_at, id"));
  return rows_array(rows, {"is_active", "is_system"});
}

ApiResult<Value> list_pak_owners(store::Connection& connection) {
  SINDRI_TRY(rows, connection.query("SELECT id, name FROM generators WHERE " SINDRI_LIVE " AND NOT is_system "
                                    "ORDER BY name, id"));
  return rows_array(rows);
}

ApiResult<std::vector<std::string>> system_generator_ids(store::Connection& connection) {
  SINDRI_TRY(rows, connection.query("SELECT id FROM generators WHERE is_system AND " SINDRI_LIVE));
  std::vector<std::string> ids;
  for (const auto& row : rows.rows) ids.emplace_back(row[0].get_string());
  return ids;
}

ApiResult<Value> insert_generator(store::Connection& connection, std::string_view name,
                                  const std::optional<std::string>& description, std::string_view pak_hash) {
  SINDRI_TRY(rows, connection.query(
                       "INSERT INTO generators (id, name, description, pak_hash, is_active, is_system, created_at, "
                       "updated_at) VALUES ($1, $2, $3, $4, TRUE, FALSE, $5, $5) RETURNING " SINDRI_GENERATOR_COLUMNS,
                       {Value(new_uuid()), Value(name), description ? Value(*description) : Value(), Value(pak_hash),
                        Value(now_timestamp())}));
  return generator_object(rows, 0);
}

ApiResult<Value> update_generator(store::Connection& connection, std::string_view id, std::string_view name,
                                  const Value& description, bool is_active) {
  SINDRI_TRY(rows, connection.query("UPDATE generators SET name = $2, description = $3, is_active = $4, updated_at = $5 "
                                    "WHERE id = $1 AND " SINDRI_LIVE " RETURNING " SINDRI_GENERATOR_COLUMNS,
                                    {Value(id), Value(name), description, Value(is_active), Value(now_timestamp())}));
  if (rows.empty()) return not_found("generator", id);
  return generator_object(rows, 0);
}

ApiResult<Value> set_generator_pak(store::Connection& connection, std::string_view id, std::string_view pak_hash) {
  SINDRI_TRY(rows, connection.query("UPDATE generators SET pak_hash = $2, updated_at = $3 "
                                    "WHERE id = $1 AND " SINDRI_LIVE " RETURNING " SINDRI_GENERATOR_COLUMNS,
                                    {Value(id), Value(pak_hash), Value(now_timestamp())}));
  if (rows.empty()) return not_found("generator", id);
  return generator_object(rows, 0);
}

ApiResult<std::vector<std::string>> delete_generator(store::Connection& connection, std::string_view id,
                                                     const std::string& now) {
  SINDRI_CHECK(connection.query("UPDATE generators SET deleted_at = $2, updated_at = $2 WHERE id = $1",
                                {Value(id), Value(now)}));
  SINDRI_CHECK(connection.query("UPDATE stack_templates SET deleted_at = $2, updated_at = $2 "
                                "WHERE generator_id = $1 AND " SINDRI_LIVE,
                                {Value(id), Value(now)}));
  SINDRI_CHECK(connection.query("DELETE FROM template_targets WHERE template_id IN "
                                "(SELECT id FROM stack_templates WHERE generator_id = $1)",
                                {Value(id)}));
  SINDRI_TRY(stacks, connection.query("SELECT id FROM stacks WHERE generator_id = $1 AND " SINDRI_LIVE, {Value(id)}));
  std::vector<std::string> deleted;
  for (const auto& row : stacks.rows) {
    SINDRI_CHECK(delete_stack(connection, row[0].get_string(), now));
    deleted.emplace_back(row[0].get_string());
  }
  return deleted;
}

}  // namespace sindri::broker::db
