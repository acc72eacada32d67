#include "broker/db/agent_events.hpp"

#include "broker/db/counters.hpp"
#include "broker/db/events.hpp"
#include "broker/db/rows.hpp"
#include "broker/ids.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker::db {

ApiResult<Value> insert_agent_event(store::Connection& connection, const NewAgentEvent& event) {
  SINDRI_TRY(rows, connection.query("INSERT INTO agent_events (id, agent_id, deployment_object_id, event_type, "
                                    "status, message, created_at, updated_at) "
                                    "VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING " SINDRI_AGENT_EVENT_COLUMNS,
                                    {Value(new_uuid()), Value(event.agent_id), Value(event.deployment_object_id),
                                     Value(event.event_type), Value(event.status),
                                     event.message ? Value(*event.message) : Value(), Value(now_timestamp())}));
  SINDRI_CHECK(touch_target_state(connection));
  Value recorded = row_object(rows, 0);
  SINDRI_TRY(stack, connection.query("SELECT stack_id FROM deployment_objects WHERE id = $1",
                                     {Value(event.deployment_object_id)}));
  // As Brokkr: a SUCCESS report is an applied deployment, anything else a failed one.
  SINDRI_CHECK(emit_event(connection, event.status == "SUCCESS" ? "deployment.applied" : "deployment.failed",
                          make_object({{"agent_event_id", *recorded.find("id")},
                                       {"agent_id", Value(event.agent_id)},
                                       {"deployment_object_id", Value(event.deployment_object_id)},
                                       {"stack_id", stack.empty() ? Value() : stack.rows[0][0]},
                                       {"event_type", Value(event.event_type)},
                                       {"status", Value(event.status)},
                                       {"message", *recorded.find("message")},
                                       {"created_at", *recorded.find("created_at")}})));
  return recorded;
}

ApiResult<Value> list_agent_events(store::Connection& connection, std::string_view agent_id) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_AGENT_EVENT_COLUMNS " FROM agent_events WHERE agent_id = $1 AND "
                                    SINDRI_LIVE " ORDER BY created_at, id",
                                    {Value(agent_id)}));
  return rows_array(rows);
}

ApiResult<Value> list_all_agent_events(store::Connection& connection, std::string_view generator_id) {
  SINDRI_TRY(rows, generator_id.empty()
                       ? connection.query("SELECT " SINDRI_AGENT_EVENT_COLUMNS " FROM agent_events WHERE " SINDRI_LIVE
                                          " ORDER BY created_at, id")
                       : connection.query("SELECT " SINDRI_AGENT_EVENT_COLUMNS " FROM agent_events e WHERE " SINDRI_LIVE
                                          " AND EXISTS (SELECT 1 FROM deployment_objects d JOIN stacks s "
                                          "ON s.id = d.stack_id WHERE d.id = e.deployment_object_id "
                                          "AND s.generator_id = $1) ORDER BY created_at, id",
                                          {Value(generator_id)}));
  return rows_array(rows);
}

ApiResult<Value> load_agent_event(store::Connection& connection, std::string_view id) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_AGENT_EVENT_COLUMNS " FROM agent_events WHERE id = $1 AND "
                                    SINDRI_LIVE,
                                    {Value(id)}));
  if (rows.empty()) return not_found("agent_event", id);
  return row_object(rows, 0);
}

ApiResult<int64_t> delete_agent_events_before(store::Connection& connection, std::string_view cutoff, int64_t limit) {
  SINDRI_TRY(rows, connection.query("DELETE FROM agent_events WHERE id IN (SELECT id FROM agent_events "
                                    "WHERE created_at < $1 LIMIT $2) RETURNING 1",
                                    {Value(cutoff), Value(limit)}));
  return static_cast<int64_t>(rows.size());
}

}  // namespace sindri::broker::db
