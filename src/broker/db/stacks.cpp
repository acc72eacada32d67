#include "broker/db/stacks.hpp"

#include "broker/db/events.hpp"
#include "broker/db/rows.hpp"
#include "broker/db/template_targets.hpp"
#include "broker/ids.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker::db {

ApiResult<Value> load_stack(store::Connection& connection, std::string_view id) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_STACK_COLUMNS " FROM stacks WHERE id = $1 AND " SINDRI_LIVE,
                                    {Value(id)}));
  if (rows.empty()) return not_found("stack", id);
  return row_object(rows, 0);
}

ApiResult<Value> load_any_stack(store::Connection& connection, std::string_view id) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_STACK_COLUMNS " FROM stacks WHERE id = $1", {Value(id)}));
  if (rows.empty()) return not_found("stack", id);
  return row_object(rows, 0);
}

ApiResult<Value> list_stacks(store::Connection& connection, std::string_view generator_id) {
  SINDRI_TRY(rows, generator_id.empty()
                       ? connection.query("SELECT " SINDRI_STACK_COLUMNS " FROM stacks WHERE " SINDRI_LIVE
                                          " ORDER BY created_at, id")
                       : connection.query("SELECT " SINDRI_STACK_COLUMNS " FROM stacks WHERE " SINDRI_LIVE
                                          " AND generator_id = $1 ORDER BY created_at, id",
                                          {Value(generator_id)}));
  return rows_array(rows);
}

ApiResult<Value> list_targeted_stacks(store::Connection& connection, std::string_view agent_id) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_STACK_COLUMNS " FROM stacks WHERE " SINDRI_LIVE " AND id IN "
                                    "(SELECT stack_id FROM agent_targets WHERE agent_id = $1) ORDER BY created_at, id",
                                    {Value(agent_id)}));
  return rows_array(rows);
}

ApiResult<Value> insert_stack(store::Connection& connection, std::string_view name,
                              const std::optional<std::string>& description, std::string_view generator_id) {
  SINDRI_TRY(rows, connection.query("INSERT INTO stacks (id, name, description, generator_id, created_at, updated_at) "
                                    "VALUES ($1, $2, $3, $4, $5, $5) RETURNING " SINDRI_STACK_COLUMNS,
                                    {Value(new_uuid()), Value(name), description ? Value(*description) : Value(),
                                     Value(generator_id), Value(now_timestamp())}));
  Value stack = row_object(rows, 0);
  SINDRI_CHECK(sync_template_targets_for_stack(connection, stack.find("id")->get_string()));
  SINDRI_CHECK(emit_event(connection, "stack.created",
                          make_object({{"stack_id", *stack.find("id")},
                                       {"name", *stack.find("name")},
                                       {"description", *stack.find("description")},
                                       {"created_at", *stack.find("created_at")}})));
  return stack;
}

ApiResult<Value> update_stack(store::Connection& connection, std::string_view id, const Value& name,
                              const Value& description, const Value& generator_id) {
  SINDRI_TRY(rows, connection.query("UPDATE stacks SET name = $2, description = $3, generator_id = $4, updated_at = $5 "
                                    "WHERE id = $1 RETURNING " SINDRI_STACK_COLUMNS,
                                    {Value(id), name, description, generator_id, Value(now_timestamp())}));
  if (rows.empty()) return not_found("stack", id);
  return row_object(rows, 0);
}

ApiResult<Ok> delete_stack(store::Connection& connection, std::string_view stack_id, const std::string& now) {
  SINDRI_TRY(latest, connection.query("SELECT yaml_content, yaml_checksum FROM deployment_objects "
                                      "WHERE stack_id = $1 AND " SINDRI_LIVE " ORDER BY sequence_id DESC LIMIT 1",
                                      {Value(stack_id)}));
  if (!latest.empty()) {
    const std::string marker_id = new_uuid();
    SINDRI_CHECK(connection.query(
        "INSERT INTO deployment_objects (id, stack_id, yaml_content, yaml_checksum, is_deletion_marker, "
        "submitted_at, created_at, updated_at) VALUES ($1, $2, $3, $4, TRUE, $5, $5, $5)",
        {Value(marker_id), Value(stack_id), latest.rows[0][0], latest.rows[0][1], Value(now)}));
    // The marker tells agents to remove what the stack's objects applied.
    SINDRI_CHECK(emit_event(connection, "deployment.deleted",
                            make_object({{"deployment_object_id", Value(marker_id)},
                                         {"stack_id", Value(stack_id)},
                                         {"deleted_at", Value(now)}})));
  }
  SINDRI_CHECK(connection.query("UPDATE stacks SET deleted_at = $2, updated_at = $2 WHERE id = $1",
                                {Value(stack_id), Value(now)}));
  SINDRI_CHECK(emit_event(connection, "stack.deleted",
                          make_object({{"stack_id", Value(stack_id)}, {"deleted_at", Value(now)}})));
  return sync_template_targets_for_stack(connection, stack_id);
}

}  // namespace sindri::broker::db
