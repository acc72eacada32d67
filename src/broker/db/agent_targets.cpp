#include "broker/db/agent_targets.hpp"

#include "broker/db/counters.hpp"
#include "broker/db/rows.hpp"
#include "broker/ids.hpp"

namespace sindri::broker::db {

ApiResult<bool> agent_targets_stack(store::Connection& connection, std::string_view agent_id,
                                    std::string_view stack_id) {
  SINDRI_TRY(rows, connection.query("SELECT 1 FROM agent_targets WHERE agent_id = $1 AND stack_id = $2",
                                    {Value(agent_id), Value(stack_id)}));
  return !rows.empty();
}

ApiResult<Value> list_agent_targets(store::Connection& connection, std::string_view agent_id) {
  SINDRI_TRY(rows, connection.query("SELECT id, agent_id, stack_id FROM agent_targets WHERE agent_id = $1 "
                                    "ORDER BY stack_id",
                                    {Value(agent_id)}));
  return rows_array(rows);
}

ApiResult<std::vector<std::string>> agents_targeting(store::Connection& connection, std::string_view stack_id) {
  SINDRI_TRY(rows, connection.query("SELECT agent_id FROM agent_targets WHERE stack_id = $1", {Value(stack_id)}));
  std::vector<std::string> agents;
  agents.reserve(rows.size());
  for (const auto& row : rows.rows) agents.emplace_back(row[0].get_string());
  return agents;
}

ApiResult<Value> insert_agent_target(store::Connection& connection, std::string_view agent_id,
                                     std::string_view stack_id) {
  SINDRI_TRY(rows, connection.query("INSERT INTO agent_targets (id, agent_id, stack_id, matched_by_labels) "
                                    "VALUES ($1, $2, $3, FALSE) RETURNING id, agent_id, stack_id",
                                    {Value(new_uuid()), Value(agent_id), Value(stack_id)}));
  SINDRI_CHECK(remember_target(connection, Value(agent_id), Value(stack_id)));
  SINDRI_CHECK(touch_target_state(connection));
  return row_object(rows, 0);
}

ApiResult<Ok> remember_target(store::Connection& connection, const Value& agent_id, const Value& stack_id) {
  SINDRI_CHECK(connection.query("INSERT INTO agent_target_history (agent_id, stack_id) VALUES ($1, $2) "
                                "ON CONFLICT DO NOTHING",
                                {agent_id, stack_id}));
  return Ok{};
}

ApiResult<bool> delete_agent_target(store::Connection& connection, std::string_view agent_id,
                                    std::string_view stack_id) {
  SINDRI_TRY(rows, connection.query("DELETE FROM agent_targets WHERE agent_id = $1 AND stack_id = $2 RETURNING id",
                                    {Value(agent_id), Value(stack_id)}));
  if (rows.empty()) return false;
  SINDRI_CHECK(touch_target_state(connection));
  return true;
}

}  // namespace sindri::broker::db
