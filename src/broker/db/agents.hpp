#pragma once
// The agents table, the clusters' pull-based deployers, and their
// registrations with generators (agent_generators).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/api_error.hpp"
#include "store/database.hpp"

namespace sindri::broker::db {

// The live agent `id`; 404 when missing or deleted.
ApiResult<Value> load_agent(store::Connection& connection, std::string_view id);
// Every live agent, or with `generator_id` not empty those registered with it.
ApiResult<Value> list_agents(store::Connection& connection, std::string_view generator_id);
// The oldest live agent of that name and/or cluster (either may be absent).
ApiResult<std::optional<Value>> find_agent(store::Connection& connection, const std::string* name,
                                           const std::string* cluster_name);

// An active agent registered with each of `generator_ids`. A unique
// violation (the name is taken in the cluster) is the caller's to answer.
ApiResult<Value> insert_agent(store::Connection& connection, std::string_view name, std::string_view cluster_name,
                              std::string_view pak_hash, const std::vector<std::string>& generator_ids);
ApiResult<Value> update_agent(store::Connection& connection, std::string_view id, const Value& name,
                              const Value& cluster_name, const Value& status);
ApiResult<Ok> delete_agent(store::Connection& connection, std::string_view id);
// Records a heartbeat, with the cluster's health when either is given; 404
// when the agent is gone.
ApiResult<Ok> record_heartbeat(store::Connection& connection, std::string_view id, std::optional<bool> k8s_reachable,
                               std::optional<int64_t> k8s_api_latency_ms);
// A new PAK hash for the live agent `id`; 404 when there is none.
ApiResult<Value> set_agent_pak(store::Connection& connection, std::string_view id, std::string_view pak_hash);

// Registrations (AgentGeneratorRegistration). A unique violation (already
// registered) is the caller's to answer.
ApiResult<Value> insert_registration(store::Connection& connection, std::string_view agent_id,
                                     std::string_view generator_id);
// Removes the registration and the targets set by hand to the generator's
// stacks (targets the labels match stay: labels alone decide those); false
// when there was none. Touches the target state when targets went.
ApiResult<bool> delete_registration(store::Connection& connection, std::string_view agent_id,
                                    std::string_view generator_id);
// Whether the agent is registered with the generator. On PostgreSQL the
// registration stays locked until the transaction ends, so that a
// deregistration waits for what the caller does on the strength of it.
ApiResult<bool> lock_registration(store::Connection& connection, std::string_view agent_id,
                                  std::string_view generator_id);
// The registrations of a generator with live agents, and of an agent with
// live generators.
ApiResult<Value> list_generator_registrations(store::Connection& connection, std::string_view generator_id);
ApiResult<Value> list_agent_registrations(store::Connection& connection, std::string_view agent_id);

}  // namespace sindri::broker::db
