#pragma once
// The matching engine of seed 002: an agent targets a stack when the stack
// carries at least one label or annotation and the agent carries every one of
// them (labels by text, annotations by key and value). Targets the engine
// made are marked as such; targets added by hand through the API are left
// alone. Call the sync for whichever side's labels or annotations changed,
// inside the same write transaction; each answers the targets it added or
// dropped ({id, agent_id, stack_id}), for pushes once it has committed.

#include <string_view>

#include "broker/api_error.hpp"
#include "store/database.hpp"

namespace sindri::broker::db {

ApiResult<Value> sync_targets_for_stack(store::Connection& connection, std::string_view stack_id);
ApiResult<Value> sync_targets_for_agent(store::Connection& connection, std::string_view agent_id);

}  // namespace sindri::broker::db
