#pragma once
// The agent_targets table: which stacks an agent deploys, whether the
// matching engine (targeting.hpp) or a person put them there; and
// agent_target_history: every stack an agent has ever targeted.

#include <string>
#include <string_view>
#include <vector>

#include "broker/api_error.hpp"
#include "store/database.hpp"

namespace sindri::broker::db {

ApiResult<bool> agent_targets_stack(store::Connection& connection, std::string_view agent_id,
                                    std::string_view stack_id);
ApiResult<Value> list_agent_targets(store::Connection& connection, std::string_view agent_id);
// The ids of the agents that target the stack (by hand or by labels).
ApiResult<std::vector<std::string>> agents_targeting(store::Connection& connection, std::string_view stack_id);
// A target set by hand, touching the target state. A unique violation (the
// agent targets the stack already) is the caller's to answer.
ApiResult<Value> insert_agent_target(store::Connection& connection, std::string_view agent_id,
                                     std::string_view stack_id);
// Records in the history that the agent targets the stack (once per pair).
ApiResult<Ok> remember_target(store::Connection& connection, const Value& agent_id, const Value& stack_id);
// Removes the target, touching the target state; false when there was none.
ApiResult<bool> delete_agent_target(store::Connection& connection, std::string_view agent_id,
                                    std::string_view stack_id);

}  // namespace sindri::broker::db
