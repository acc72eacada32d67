#include "broker/db/agent_connections.hpp"

namespace sindri::broker::db {

ApiResult<Ok> record_connection(store::Connection& connection, std::string_view agent_id, std::string_view broker_id,
                                std::string_view connected_since) {
  SINDRI_CHECK(connection.query("INSERT INTO agent_connections (agent_id, broker_id, connected_since) "
                                "VALUES ($1, $2, $3) ON CONFLICT (agent_id) DO UPDATE SET "
                                "broker_id = excluded.broker_id, connected_since = excluded.connected_since",
                                {Value(agent_id), Value(broker_id), Value(connected_since)}));
  return Ok{};
}

ApiResult<Ok> forget_connection(store::Connection& connection, std::string_view agent_id, std::string_view broker_id,
                                std::string_view connected_since) {
  SINDRI_CHECK(connection.query("DELETE FROM agent_connections WHERE agent_id = $1 AND broker_id = $2 "
                                "AND connected_since = $3",
                                {Value(agent_id), Value(broker_id), Value(connected_since)}));
  return Ok{};
}

ApiResult<Ok> record_presence(store::Connection& connection, std::string_view broker_id, std::string_view now) {
  SINDRI_CHECK(connection.query("INSERT INTO broker_presence (broker_id, seen_at) VALUES ($1, $2) "
                                "ON CONFLICT (broker_id) DO UPDATE SET seen_at = excluded.seen_at",
                                {Value(broker_id), Value(now)}));
  return Ok{};
}

ApiResult<bool> other_brokers_present(store::Connection& connection, std::string_view self, std::string_view cutoff) {
  SINDRI_TRY(rows, connection.query("SELECT 1 FROM broker_presence WHERE broker_id <> $1 AND seen_at >= $2 LIMIT 1",
                                    {Value(self), Value(cutoff)}));
  return !rows.empty();
}

ApiResult<int64_t> forget_absent_brokers(store::Connection& connection, std::string_view cutoff) {
  SINDRI_TRY(brokers, connection.query("DELETE FROM broker_presence WHERE seen_at < $1 RETURNING 1", {Value(cutoff)}));
  SINDRI_TRY(sockets, connection.query("DELETE FROM agent_connections WHERE broker_id NOT IN "
                                       "(SELECT broker_id FROM broker_presence) RETURNING 1"));
  return static_cast<int64_t>(brokers.size() + sockets.size());
}

}  // namespace sindri::broker::db
