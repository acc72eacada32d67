#include "broker/fleet_record.hpp"

#include <optional>
#include <string>

#include "broker/agent_channels.hpp"
#include "broker/config.hpp"
#include "broker/db/fleet.hpp"
#include "broker/ids.hpp"
#include "value/rfc3339.hpp"

namespace sindri::broker {
namespace {

Value age_since(const Value& moment, std::string_view now) {
  if (!moment.is_string()) return Value();
  const std::optional<int64_t> seconds = rfc3339::age_seconds(moment.get_string(), now);
  return seconds ? Value(*seconds) : Value();
}

}  // namespace

Value fleet_record(Value stored, std::string_view now, const AgentChannels& channels) {
  Value heartbeat_age = age_since(*stored.find("last_heartbeat"), now);
  Value event_age = age_since(*stored.find("last_event_at"), now);
  stored.set("heartbeat_age_seconds", std::move(heartbeat_age));
  stored.set("seconds_since_last_event", std::move(event_age));
  const Value* agent_id = stored.find("agent_id");
  const std::optional<std::string> here =
      agent_id != nullptr && agent_id->is_string() ? channels.connected_since(agent_id->get_string()) : std::nullopt;
  if (here) stored.set("connected_since", Value(*here));
  stored.set("ws_connected", Value(stored.find("connected_since")->is_string()));
  return stored;
}

std::string presence_cutoff(const BrokerConfig& config) {
  return timestamp_seconds_ago(3 * config.notices_presence_interval);
}

ApiResult<Value> load_fleet_record(store::Connection& connection, std::string_view agent_id,
                                   const AgentChannels& channels, const BrokerConfig& config, std::string_view self) {
  SINDRI_TRY(stored, db::list_fleet_records(connection, agent_id, {}, presence_cutoff(config), self));
  if (stored.size() == 0) return Value();
  return fleet_record(*stored.at(0), now_timestamp(), channels);
}

}  // namespace sindri::broker
