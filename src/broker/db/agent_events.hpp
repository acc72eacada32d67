#pragma once
// The agent_events table: what agents report about applying deployment
// objects.

#include <optional>
#include <string>
#include <string_view>

#include "broker/api_error.hpp"
#include "store/database.hpp"

namespace sindri::broker::db {

struct NewAgentEvent {
  std::string_view agent_id;
  std::string_view deployment_object_id;
  std::string_view event_type;
  std::string_view status;
  const std::optional<std::string>& message;
};
// Records the event and touches the target state: a success report takes the
// object out of the agent's incremental target state.
ApiResult<Value> insert_agent_event(store::Connection& connection, const NewAgentEvent& event);
// An agent's live events, oldest first.
ApiResult<Value> list_agent_events(store::Connection& connection, std::string_view agent_id);
// Every live event, or with `generator_id` not empty those about its stacks'
// objects.
ApiResult<Value> list_all_agent_events(store::Connection& connection, std::string_view generator_id);
// Deletes up to `limit` events recorded before `cutoff` (RFC 3339), live or
// not; answers how many (see delete_audit_before).
ApiResult<int64_t> delete_agent_events_before(store::Connection& connection, std::string_view cutoff, int64_t limit);
// The live event `id`; 404 when missing or deleted.
ApiResult<Value> load_agent_event(store::Connection& connection, std::string_view id);

}  // namespace sindri::broker::db
