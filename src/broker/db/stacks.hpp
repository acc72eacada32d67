#pragma once
// The stacks table: named groups of deployment objects, owned by a generator.

#include <optional>
#include <string>
#include <string_view>

#include "broker/api_error.hpp"
#include "store/database.hpp"

namespace sindri::broker::db {

// The live stack `id`; 404 when missing or deleted.
ApiResult<Value> load_stack(store::Connection& connection, std::string_view id);
// The stack `id`, deleted or not; 404 when it never existed.
ApiResult<Value> load_any_stack(store::Connection& connection, std::string_view id);
// Live stacks, of one generator when `generator_id` is not empty.
ApiResult<Value> list_stacks(store::Connection& connection, std::string_view generator_id);
// The live stacks agent `agent_id` targets.
ApiResult<Value> list_targeted_stacks(store::Connection& connection, std::string_view agent_id);

// Inserts the stack and the template targets its (no) labels allow.
ApiResult<Value> insert_stack(store::Connection& connection, std::string_view name,
                              const std::optional<std::string>& description, std::string_view generator_id);
ApiResult<Value> update_stack(store::Connection& connection, std::string_view id, const Value& name,
                              const Value& description, const Value& generator_id);
// Deletes a live stack, soft as always: a deletion marker repeating its
// newest object tells its agents to remove what they applied, and no
// template targets it any more. The caller touches the target state.
ApiResult<Ok> delete_stack(store::Connection& connection, std::string_view stack_id, const std::string& now);

}  // namespace sindri::broker::db
