#pragma once
// The fleet view: per live agent, what the broker measures of it (pending
// deployment objects and work orders, its last event, its failing and
// degraded health reports) beside what it reported of its cluster. One
// statement for the whole fleet, never one per agent.

#include <string_view>

#include "broker/api_error.hpp"
#include "store/database.hpp"

namespace sindri::broker::db {

// FleetAgentRecord's stored members (agent_id, name, cluster_name, status,
// last_heartbeat, k8s_reachable, k8s_api_latency_ms, pending_object_count,
// pending_work_orders, claimed_work_orders, last_event_at, health_failing,
// health_degraded), and connected_since of a socket open to another broker
// than `self` that said it was alive at or after `present_since` (null for
// none; this broker knows its own sockets better than the table), of every
// live agent, oldest agent first; only `agent_id` when it is not empty, only
// those registered with `generator_id` when that is not empty.
ApiResult<Value> list_fleet_records(store::Connection& connection, std::string_view agent_id,
                                    std::string_view generator_id, std::string_view present_since,
                                    std::string_view self);

// The agent's live events (AgentEvent), newest first, at most `limit`.
ApiResult<Value> recent_agent_events(store::Connection& connection, std::string_view agent_id, int64_t limit);

}  // namespace sindri::broker::db
