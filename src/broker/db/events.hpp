#pragma once
// Events of seed 002 (agent.registered, stack.created, deployment.applied,
// workorder.completed, health.changed, ...): emitting one writes a webhook
// delivery for each enabled subscription it matches, in the caller's
// transaction, so that a change and its deliveries commit together.

#include <string_view>

#include "broker/api_error.hpp"
#include "store/database.hpp"

namespace sindri::broker::db {

// `data` is the payload's data object; its agent_id and stack_id members,
// where present, are what subscription filters match.
ApiResult<Ok> emit_event(store::Connection& connection, std::string_view event_type, const Value& data);

}  // namespace sindri::broker::db
