#include "broker/db/health.hpp"

#include "broker/db/rows.hpp"
#include "broker/ids.hpp"

namespace sindri::broker::db {

ApiResult<std::optional<ObjectPlacement>> place_object_for_agent(store::Connection& connection,
                                                                 std::string_view object_id,
                                                                 std::string_view agent_id) {
  SINDRI_TRY(rows, connection.query("SELECT d.stack_id, EXISTS (SELECT 1 FROM agent_targets t WHERE t.agent_id = $2 "
                                    "AND t.stack_id = d.stack_id), EXISTS (SELECT 1 FROM agent_target_history h "
                                    "WHERE h.agent_id = $2 AND h.stack_id = d.stack_id) FROM deployment_objects d "
                                    "WHERE d.id = $1 AND " SINDRI_LIVE_IN("d"),
                                    {Value(object_id), Value(agent_id)}));
  if (rows.empty()) return std::optional<ObjectPlacement>();
  return std::optional<ObjectPlacement>(ObjectPlacement{std::string(rows.rows[0][0].get_string()),
                                                        is_true(rows.rows[0][1]), is_true(rows.rows[0][2])});
}

ApiResult<std::optional<std::string>> upsert_health(store::Connection& connection, std::string_view agent_id,
                                                    const HealthReport& report) {
  // In an upsert's SET, deployment_health.status is the row's value before
  // the update, in SQLite and PostgreSQL alike.
  SINDRI_TRY(rows, connection.query(
                       "INSERT INTO deployment_health (id, agent_id, deployment_object_id, status, previous_status, "
                       "summary, checked_at, created_at, updated_at) VALUES ($1, $2, $3, $4, NULL, $5, $6, $7, $7) "
                       "ON CONFLICT (agent_id, deployment_object_id) DO UPDATE SET "
                       "previous_status = deployment_health.status, status = excluded.status, "
                       "summary = excluded.summary, checked_at = excluded.checked_at, updated_at = excluded.updated_at "
                       "RETURNING previous_status",
                       {Value(new_uuid()), Value(agent_id), Value(report.deployment_object_id), Value(report.status),
                        report.summary_json ? Value(*report.summary_json) : Value(), Value(report.checked_at),
                        Value(now_timestamp())}));
  const Value& previous = rows.rows[0][0];
  if (!previous.is_string()) return std::optional<std::string>();
  return std::optional<std::string>(std::string(previous.get_string()));
}

ApiResult<Value> list_object_health(store::Connection& connection, std::string_view object_id) {
  SINDRI_TRY(rows, connection.query("SELECT h.id, h.agent_id, h.deployment_object_id, h.status, h.summary, "
                                    "h.checked_at, h.created_at, h.updated_at FROM deployment_health h "
                                    "JOIN agents a ON a.id = h.agent_id AND " SINDRI_LIVE_IN("a") " "
                                    "WHERE h.deployment_object_id = $1 ORDER BY h.checked_at DESC, h.agent_id",
                                    {Value(object_id)}));
  return rows_array(rows);
}

ApiResult<std::vector<ObjectHealthCounts>> count_stack_health(store::Connection& connection,
                                                              std::string_view stack_id) {
  SINDRI_TRY(rows, connection.query(
                       "SELECT d.id, "
                       "SUM(CASE WHEN h.status = 'healthy' THEN 1 ELSE 0 END), "
                       "SUM(CASE WHEN h.status = 'degraded' THEN 1 ELSE 0 END), "
                       "SUM(CASE WHEN h.status = 'failing' THEN 1 ELSE 0 END) "
                       "FROM deployment_objects d JOIN deployment_health h ON h.deployment_object_id = d.id "
                       "JOIN agents a ON a.id = h.agent_id AND " SINDRI_LIVE_IN("a") " "
                       "WHERE d.stack_id = $1 AND " SINDRI_LIVE_IN("d") " GROUP BY d.id, d.sequence_id "
                       "ORDER BY d.sequence_id",
                       {Value(stack_id)}));
  std::vector<ObjectHealthCounts> counts;
  counts.reserve(rows.size());
  for (auto& row : rows.rows) {
    counts.push_back(ObjectHealthCounts{std::move(row[0]), row[1].get_int(), row[2].get_int(), row[3].get_int()});
  }
  return counts;
}

}  // namespace sindri::broker::db
