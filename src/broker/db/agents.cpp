#include "broker/db/agents.hpp"

#include "broker/db/counters.hpp"
#include "broker/db/events.hpp"
#include "broker/db/rows.hpp"
#include "broker/ids.hpp"
#include "value/object_literal.hpp"

#define SINDRI_REGISTRATION_COLUMNS "id, agent_id, generator_id, created_at AS registered_at"
#define SINDRI_REGISTRATION_OF "SELECT 1 FROM agent_generators WHERE agent_id = $1 AND generator_id = $2"

namespace sindri::broker::db {

ApiResult<Value> load_agent(store::Connection& connection, std::string_view id) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_AGENT_COLUMNS " FROM agents WHERE id = $1 AND " SINDRI_LIVE,
                                    {Value(id)}));
  if (rows.empty()) return not_found("agent", id);
  return agent_object(rows, 0);
}

ApiResult<Value> list_agents(store::Connection& connection, std::string_view generator_id) {
  SINDRI_TRY(rows, generator_id.empty()
                       ? connection.query("SELECT " SINDRI_AGENT_COLUMNS " FROM agents WHERE " SINDRI_LIVE
                                          " ORDER BY created_at, id")
                       : connection.query("SELECT " SINDRI_AGENT_COLUMNS " FROM agents WHERE " SINDRI_LIVE
                                          " AND id IN (SELECT agent_id FROM agent_generators WHERE generator_id = $1) "
                                          "ORDER BY created_at, id",
                                          {Value(generator_id)}));
  return rows_array(rows, {"k8s_reachable"});
}

ApiResult<std::optional<Value>> find_agent(store::Connection& connection, const std::string* name,
                                           const std::string* cluster_name) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_AGENT_COLUMNS " FROM agents WHERE " SINDRI_LIVE
                                    " AND (CAST($1 AS TEXT) IS NULL OR name = $1) "
                                    "AND (CAST($2 AS TEXT) IS NULL OR cluster_name = $2) "
                                    "ORDER BY created_at, id LIMIT 1",
                                    {name ? Value(*name) : Value(), cluster_name ? Value(*cluster_name) : Value()}));
  if (rows.empty()) return std::optional<Value>();
  return std::optional<Value>(agent_object(rows, 0));
}

ApiResult<Value> insert_agent(store::Connection& connection, std::string_view name, std::string_view cluster_name,
                              std::string_view pak_hash, const std::vector<std::string>& generator_ids) {
  const std::string now = now_timestamp();
  const std::string id = new_uuid();
  SINDRI_TRY(rows, connection.query("INSERT INTO agents (id, name, cluster_name, status, pak_hash, created_at, "
                                    "updated_at) VALUES ($1, $2, $3, 'ACTIVE', $4, $5, $5) RETURNING " SINDRI_AGENT_COLUMNS,
                                    {Value(id), Value(name), Value(cluster_name), Value(pak_hash), Value(now)}));
  for (const std::string& generator_id : generator_ids) {
    SINDRI_CHECK(connection.query(
        "INSERT INTO agent_generators (id, agent_id, generator_id, created_at) VALUES ($1, $2, $3, $4)",
        {Value(new_uuid()), Value(id), Value(generator_id), Value(now)}));
  }
  SINDRI_CHECK(emit_event(connection, "agent.registered",
                          make_object({{"agent_id", Value(id)},
                                       {"name", Value(name)},
                                       {"cluster_name", Value(cluster_name)},
                                       {"status", Value("ACTIVE")},
                                       {"created_at", Value(now)}})));
  return agent_object(rows, 0);
}

ApiResult<Value> update_agent(store::Connection& connection, std::string_view id, const Value& name,
                              const Value& cluster_name, const Value& status) {
  SINDRI_TRY(rows, connection.query("UPDATE agents SET name = $2, cluster_name = $3, status = $4, updated_at = $5 "
                                    "WHERE id = $1 RETURNING " SINDRI_AGENT_COLUMNS,
                                    {Value(id), name, cluster_name, status, Value(now_timestamp())}));
  if (rows.empty()) return not_found("agent", id);
  return agent_object(rows, 0);
}

ApiResult<Ok> delete_agent(store::Connection& connection, std::string_view id) {
  const std::string now = now_timestamp();
  SINDRI_CHECK(connection.query("UPDATE agents SET deleted_at = $2, updated_at = $2 WHERE id = $1",
                                {Value(id), Value(now)}));
  return emit_event(connection, "agent.deregistered",
                    make_object({{"agent_id", Value(id)}, {"deleted_at", Value(now)}}));
}

ApiResult<Ok> record_heartbeat(store::Connection& connection, std::string_view id, std::optional<bool> k8s_reachable,
                               std::optional<int64_t> k8s_api_latency_ms) {
  const std::string now = now_timestamp();
  const bool reported = k8s_reachable.has_value() || k8s_api_latency_ms.has_value();
  SINDRI_TRY(rows, reported
                       ? connection.query("UPDATE agents SET last_heartbeat = $2, k8s_reachable = $3, "
                                          "k8s_api_latency_ms = $4, k8s_reported_at = $2 "
                                          "WHERE id = $1 AND " SINDRI_LIVE " RETURNING id",
                                          {Value(id), Value(now), k8s_reachable ? Value(*k8s_reachable) : Value(),
                                           k8s_api_latency_ms ? Value(*k8s_api_latency_ms) : Value()})
                       : connection.query("UPDATE agents SET last_heartbeat = $2 WHERE id = $1 AND " SINDRI_LIVE
                                          " RETURNING id",
                                          {Value(id), Value(now)}));
  if (rows.empty()) return not_found("agent", id);
  return Ok{};
}

ApiResult<Value> set_agent_pak(store::Connection& connection, std::string_view id, std::string_view pak_hash) {
  SINDRI_TRY(rows, connection.query("UPDATE agents SET pak_hash = $2, updated_at = $3 "
                                    "WHERE id = $1 AND " SINDRI_LIVE " RETURNING " SINDRI_AGENT_COLUMNS,
                                    {Value(id), Value(pak_hash), Value(now_timestamp())}));
  if (rows.empty()) return not_found("agent", id);
  return agent_object(rows, 0);
}

ApiResult<Value> insert_registration(store::Connection& connection, std::string_view agent_id,
                                     std::string_view generator_id) {
  SINDRI_TRY(rows, connection.query("INSERT INTO agent_generators (id, agent_id, generator_id, created_at) "
                                    "VALUES ($1, $2, $3, $4) RETURNING " SINDRI_REGISTRATION_COLUMNS,
                                    {Value(new_uuid()), Value(agent_id), Value(generator_id), Value(now_timestamp())}));
  return row_object(rows, 0);
}

ApiResult<bool> delete_registration(store::Connection& connection, std::string_view agent_id,
                                    std::string_view generator_id) {
  SINDRI_TRY(rows, connection.query("DELETE FROM agent_generators WHERE agent_id = $1 AND generator_id = $2 "
                                    "RETURNING id",
                                    {Value(agent_id), Value(generator_id)}));
  if (rows.empty()) return false;
  SINDRI_TRY(untargeted, connection.query("DELETE FROM agent_targets WHERE agent_id = $1 AND NOT matched_by_labels "
                                          "AND stack_id IN (SELECT id FROM stacks WHERE generator_id = $2) "
                                          "RETURNING id",
                                          {Value(agent_id), Value(generator_id)}));
  if (!untargeted.empty()) SINDRI_CHECK(touch_target_state(connection));
  return true;
}

ApiResult<bool> lock_registration(store::Connection& connection, std::string_view agent_id,
                                  std::string_view generator_id) {
  // SQLite runs one write transaction at a time: nothing to lock.
  const std::string_view sql = connection.dialect() == store::Dialect::Postgres
                                   ? SINDRI_REGISTRATION_OF " FOR SHARE"
                                   : SINDRI_REGISTRATION_OF;
  SINDRI_TRY(rows, connection.query(sql, {Value(agent_id), Value(generator_id)}));
  return !rows.empty();
}

ApiResult<Value> list_generator_registrations(store::Connection& connection, std::string_view generator_id) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_REGISTRATION_COLUMNS " FROM agent_generators r "
                                    "WHERE generator_id = $1 AND EXISTS (SELECT 1 FROM agents a "
                                    "WHERE a.id = r.agent_id AND " SINDRI_LIVE_IN("a") ") ORDER BY created_at, id",
                                    {Value(generator_id)}));
  return rows_array(rows);
}

ApiResult<Value> list_agent_registrations(store::Connection& connection, std::string_view agent_id) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_REGISTRATION_COLUMNS " FROM agent_generators r "
                                    "WHERE agent_id = $1 AND EXISTS (SELECT 1 FROM generators g "
                                    "WHERE g.id = r.generator_id AND " SINDRI_LIVE_IN("g") ") ORDER BY created_at, id",
                                    {Value(agent_id)}));
  return rows_array(rows);
}

}  // namespace sindri::broker::db
