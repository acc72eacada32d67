#include "broker/records.hpp"

namespace sindri::broker {

Value generator_object(const store::Rows& rows, size_t index) {
  return row_object(rows, index, {"is_active", "is_system"});
}

Value deployment_object_object(const store::Rows& rows, size_t index) {
  return row_object(rows, index, {"is_deletion_marker"});
}

Value agent_object(const store::Rows& rows, size_t index) { return row_object(rows, index, {"k8s_reachable"}); }

ApiResult<Value> load_generator(store::Connection& connection, std::string_view id) {
  BROKER_TRY(rows, connection.query("SELECT " SINDRI_GENERATOR_COLUMNS
                                    " FROM generators WHERE id = $1 AND deleted_at IS NULL",
                                    {Value(id)}));
  if (rows.empty()) return not_found("generator", id);
  return generator_object(rows, 0);
}

ApiResult<Value> load_stack(store::Connection& connection, std::string_view id) {
  BROKER_TRY(rows, connection.query("SELECT " SINDRI_STACK_COLUMNS " FROM stacks WHERE id = $1 AND deleted_at IS NULL",
                                    {Value(id)}));
  if (rows.empty()) return not_found("stack", id);
  return row_object(rows, 0);
}

ApiResult<Value> load_agent(store::Connection& connection, std::string_view id) {
  BROKER_TRY(rows, connection.query("SELECT " SINDRI_AGENT_COLUMNS " FROM agents WHERE id = $1 AND deleted_at IS NULL",
                                    {Value(id)}));
  if (rows.empty()) return not_found("agent", id);
  return agent_object(rows, 0);
}

ApiResult<bool> agent_targets_stack(store::Connection& connection, std::string_view agent_id,
                                    std::string_view stack_id) {
  BROKER_TRY(rows, connection.query("SELECT 1 FROM agent_targets WHERE agent_id = $1 AND stack_id = $2",
                                    {Value(agent_id), Value(stack_id)}));
  return !rows.empty();
}

ApiResult<Ok> check_stack_access(store::Connection& connection, const Identity& caller, const Value& stack,
                                 StackAccess access) {
  if (caller.is_admin()) return Ok{};
  const std::string_view stack_id = field(stack, "id");
  if (caller.kind == Identity::Kind::Generator) {
    if (caller.is_generator(field(stack, "generator_id"))) return Ok{};
    return forbidden("stack " + std::string(stack_id) + " belongs to another generator");
  }
  if (access == StackAccess::Read) {
    BROKER_TRY(targeted, agent_targets_stack(connection, caller.id, stack_id));
    if (targeted) return Ok{};
    return forbidden("agent " + caller.id + " does not target stack " + std::string(stack_id));
  }
  return forbidden("agents cannot change stacks");
}

std::string_view field(const Value& record, std::string_view name) {
  const Value* value = record.find(name);
  return value != nullptr && value->is_string() ? value->get_string() : std::string_view();
}

}  // namespace sindri::broker
