#pragma once
// The agent_targets table: which stacks an agent deploys, whether the
// matching engine (targeting.hpp) or a person put them there.

#include <string_view>

#include "broker/api_error.hpp"
#include "store/database.hpp"

namespace sindri::broker::db {

ApiResult<bool> agent_targets_stack(store::Connection& connection, std::string_view agent_id,
                                    std::string_view stack_id);
ApiResult<Value> list_agent_targets(store::Connection& connection, std::string_view agent_id);
// A target set by hand, touching the target state. A unique violation (the
// agent targets the stack already) is the caller's to answer.
ApiResult<Value> insert_agent_target(store::Connection& connection, std::string_view agent_id,
                                     std::string_view stack_id);
// Removes the target, touching the target state; false when there was none.
ApiResult<bool> delete_agent_target(store::Connection& connection, std::string_view agent_id,
                                    std::string_view stack_id);

}  // namespace sindri::broker::db
