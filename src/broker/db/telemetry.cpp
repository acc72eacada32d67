#include "broker/db/telemetry.hpp"

#include "broker/db/rows.hpp"
#include "broker/ids.hpp"
#include "value/json.hpp"

namespace sindri::broker::db {
namespace {

#define SINDRI_K8S_EVENT_COLUMNS \
  "id, agent_id, stack_id, observed_at, reason, message, event_type, source, involved_object, created_at"
#define SINDRI_POD_LOG_COLUMNS "id, agent_id, stack_id, namespace, pod, container, ts, line, created_at"

// Table names are chosen here, never taken from a request.
const char* table_name(TelemetryTable table) {
  return table == TelemetryTable::K8sEvents ? "agent_k8s_events" : "agent_pod_logs";
}

// involved_object is stored as JSON text and answered as the object.
Value k8s_event_object(const store::Rows& rows, size_t index) {
  Value event = row_object(rows, index);
  if (const Value* stored = event.find("involved_object"); stored != nullptr && stored->is_string()) {
    auto parsed = parse_json(stored->get_string());
    if (parsed.ok()) event.set("involved_object", std::move(parsed).value());
  }
  return event;
}

}  // namespace

ApiResult<Ok> check_reporting_stack(store::Connection& connection, std::string_view agent_id,
                                    std::string_view stack_id) {
  SINDRI_TRY(rows, connection.query("SELECT EXISTS (SELECT 1 FROM agent_target_history WHERE agent_id = $1 "
                                    "AND stack_id = s.id) FROM stacks s WHERE s.id = $2 AND " SINDRI_LIVE_IN("s"),
                                    {Value(agent_id), Value(stack_id)}));
  if (rows.empty()) return not_found("stack", stack_id);
  if (!is_true(rows.rows[0][0])) {
    return forbidden("stack_not_targeted", "agent " + std::string(agent_id) + " has never targeted stack " +
                                               std::string(stack_id));
  }
  return Ok{};
}

ApiResult<Value> insert_k8s_event(store::Connection& connection, const NewK8sEvent& event) {
  SINDRI_CHECK(check_reporting_stack(connection, event.agent_id, event.stack_id));
  SINDRI_TRY(rows, connection.query("INSERT INTO agent_k8s_events (" SINDRI_K8S_EVENT_COLUMNS ") "
                                    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING " SINDRI_K8S_EVENT_COLUMNS,
                                    {Value(new_uuid()), Value(event.agent_id), Value(event.stack_id),
                                     Value(event.observed_at), Value(event.reason), Value(event.message),
                                     Value(event.event_type), nullable_text(event.source),
                                     Value(to_json(event.involved_object)), Value(now_timestamp())}));
  return k8s_event_object(rows, 0);
}

ApiResult<Value> insert_pod_log_line(store::Connection& connection, const NewPodLogLine& line) {
  SINDRI_CHECK(check_reporting_stack(connection, line.agent_id, line.stack_id));
  SINDRI_TRY(rows, connection.query("INSERT INTO agent_pod_logs (" SINDRI_POD_LOG_COLUMNS ") "
                                    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING " SINDRI_POD_LOG_COLUMNS,
                                    {Value(new_uuid()), Value(line.agent_id), Value(line.stack_id),
                                     Value(line.pod_namespace), Value(line.pod), Value(line.container), Value(line.ts),
                                     Value(line.line), Value(now_timestamp())}));
  return row_object(rows, 0);
}

ApiResult<Value> list_telemetry(store::Connection& connection, TelemetryTable table, std::string_view stack_id,
                                std::string_view since, int64_t limit) {
  const bool events = table == TelemetryTable::K8sEvents;
  const std::string statement = std::string("SELECT ") +
                                (events ? SINDRI_K8S_EVENT_COLUMNS : SINDRI_POD_LOG_COLUMNS) + " FROM " +
                                table_name(table) +
                                " WHERE stack_id = $1 AND created_at >= $2 ORDER BY created_at DESC, id DESC LIMIT $3";
  SINDRI_TRY(rows, connection.query(statement, {Value(stack_id), Value(since), Value(limit)}));
  if (!events) return rows_array(rows);
  Array list;
  for (size_t i = 0; i < rows.size(); ++i) list.push_back(k8s_event_object(rows, i));
  return Value(std::move(list));
}

ApiResult<Value> oldest_telemetry(store::Connection& connection, TelemetryTable table, std::string_view stack_id,
                                 std::string_view window_start) {
  SINDRI_TRY(rows, connection.query(std::string("SELECT MIN(created_at) FROM ") + table_name(table) +
                                        " WHERE stack_id = $1 AND created_at >= $2",
                                    {Value(stack_id), Value(window_start)}));
  return rows.empty() ? Value() : rows.rows[0][0];
}

ApiResult<int64_t> delete_telemetry_before(store::Connection& connection, TelemetryTable table,
                                           std::string_view cutoff, int64_t limit) {
  const std::string name = table_name(table);
  SINDRI_TRY(rows, connection.query("DELETE FROM " + name + " WHERE id IN (SELECT id FROM " + name +
                                        " WHERE created_at < $1 LIMIT $2) RETURNING 1",
                                    {Value(cutoff), Value(limit)}));
  return static_cast<int64_t>(rows.size());
}

}  // namespace sindri::broker::db
