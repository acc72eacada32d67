#pragma once
// One agent's FleetAgentRecord: the stored members (db/fleet.hpp) and what
// is computed on read: the ages, and whether its WebSocket is open to this
// broker or, as the database says, to another that is alive.

#include <string_view>

#include "broker/api_error.hpp"
#include "store/database.hpp"

namespace sindri::broker {

class AgentChannels;
struct BrokerConfig;

// Brokers seen since then are alive: three notices.presence_interval ago.
std::string presence_cutoff(const BrokerConfig& config);
// Completes a stored record as of `now`.
Value fleet_record(Value stored, std::string_view now, const AgentChannels& channels);
// The live agent's record, as broker `self` sees it; null when there is no
// such live agent.
ApiResult<Value> load_fleet_record(store::Connection& connection, std::string_view agent_id,
                                   const AgentChannels& channels, const BrokerConfig& config, std::string_view self);

}  // namespace sindri::broker
