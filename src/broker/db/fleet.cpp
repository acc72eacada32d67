#include "broker/db/fleet.hpp"

#include "broker/db/rows.hpp"
#include "broker/db/work_order_matching.hpp"
#include "broker/ids.hpp"

namespace sindri::broker::db {

// Pending objects are what the agent's incremental target state would hand
// it (db::target_state_json): the newest live object of each targeted stack
// that it has not reported applied. Pending work orders are those it may
// claim now, as its pending list shows them; claimed ones, those it holds.
ApiResult<Value> list_fleet_records(store::Connection& connection, std::string_view agent_id,
                                    std::string_view generator_id, std::string_view present_since,
                                    std::string_view self) {
  SINDRI_TRY(rows, connection.query(
                       "SELECT a.id AS agent_id, a.name, a.cluster_name, a.status, a.last_heartbeat, a.k8s_reachable, "
                       "a.k8s_api_latency_ms, "
                       "(SELECT COUNT(*) FROM deployment_objects d WHERE d.sequence_id IN "
                       "(SELECT max(o.sequence_id) FROM agent_targets t JOIN deployment_objects o "
                       "ON o.stack_id = t.stack_id AND " SINDRI_LIVE_IN("o") " WHERE t.agent_id = a.id "
                       "GROUP BY t.stack_id) AND NOT EXISTS (SELECT 1 FROM agent_events e WHERE e.agent_id = a.id "
                       "AND e.deployment_object_id = d.id AND e.status = 'SUCCESS' AND " SINDRI_LIVE_IN("e") ")"
                       ") AS pending_object_count, "
                       "(SELECT COUNT(*) FROM work_orders WHERE " SINDRI_CLAIMABLE_AT("$3") " AND "
                       SINDRI_WORK_ORDER_TARGETS("a.id") ") AS pending_work_orders, "
                       "(SELECT COUNT(*) FROM work_orders w WHERE w.status = 'CLAIMED' AND w.claimed_by = a.id "
                       "AND w.claim_expires_at >= $3) AS claimed_work_orders, "
                       "(SELECT max(e.created_at) FROM agent_events e WHERE e.agent_id = a.id AND "
                       SINDRI_LIVE_IN("e") ") AS last_event_at, "
                       "(SELECT COUNT(*) FROM deployment_health h JOIN deployment_objects d "
                       "ON d.id = h.deployment_object_id AND " SINDRI_LIVE_IN("d") " "
                       "WHERE h.agent_id = a.id AND h.status = 'failing') AS health_failing, "
                       "(SELECT COUNT(*) FROM deployment_health h JOIN deployment_objects d "
                       "ON d.id = h.deployment_object_id AND " SINDRI_LIVE_IN("d") " "
                       "WHERE h.agent_id = a.id AND h.status = 'degraded') AS health_degraded, "
                       "(SELECT c.connected_since FROM agent_connections c JOIN broker_presence p "
                       "ON p.broker_id = c.broker_id AND p.seen_at >= $4 WHERE c.agent_id = a.id "
                       "AND c.broker_id <> $5) AS connected_since "
                       "FROM agents a WHERE " SINDRI_LIVE_IN("a") " "
                       "AND (CAST($1 AS TEXT) IS NULL OR a.id = $1) "
                       "AND (CAST($2 AS TEXT) IS NULL OR EXISTS (SELECT 1 FROM agent_generators r "
                       "WHERE r.agent_id = a.id AND r.generator_id = $2)) "
                       "ORDER BY a.created_at, a.id",
                       {agent_id.empty() ? Value() : Value(agent_id),
                        generator_id.empty() ? Value() : Value(generator_id), Value(now_timestamp()),
                        Value(present_since), Value(self)}));
  return rows_array(rows, {"k8s_reachable"});
}

ApiResult<Value> recent_agent_events(store::Connection& connection, std::string_view agent_id, int64_t limit) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_AGENT_EVENT_COLUMNS " FROM agent_events WHERE agent_id = $1 "
                                    "AND " SINDRI_LIVE " ORDER BY created_at DESC, id DESC LIMIT $2",
                                    {Value(agent_id), Value(limit)}));
  return rows_array(rows);
}

}  // namespace sindri::broker::db
