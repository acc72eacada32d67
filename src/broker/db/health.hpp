#pragma once
// The deployment_health table: what each agent last reported of the health
// of each deployment object it deploys, one row per agent and object.

#include <optional>
#include <string>
#include <string_view>

#include "broker/api_error.hpp"
#include "store/database.hpp"

namespace sindri::broker::db {

// Where a live deployment object sits, whether an agent targets its stack,
// and whether it ever did (so may report on its objects, removals included).
struct ObjectPlacement {
  std::string stack_id;
  bool targeted_by_agent = false;
  bool reported_on_by_agent = false;
};
// None when the object is missing or deleted.
ApiResult<std::optional<ObjectPlacement>> place_object_for_agent(store::Connection& connection,
                                                                 std::string_view object_id,
                                                                 std::string_view agent_id);

struct HealthReport {
  std::string deployment_object_id;
  std::string status;  // healthy, degraded, failing or unknown
  std::optional<std::string> summary_json;
  std::string checked_at;  // the fixed-width form of now_timestamp()
};
// Inserts or replaces the agent's row for the object in one statement;
// answers the status it replaced (none for a first report).
ApiResult<std::optional<std::string>> upsert_health(store::Connection& connection, std::string_view agent_id,
                                                    const HealthReport& report);

// The object's rows (DeploymentHealth), newest check first, from live agents.
ApiResult<Value> list_object_health(store::Connection& connection, std::string_view object_id);

// How many live agents report each status of one live object of a stack.
struct ObjectHealthCounts {
  Value object_id;
  int64_t healthy = 0, degraded = 0, failing = 0;
};
// The stack's objects that have any report from a live agent, oldest object
// first.
ApiResult<std::vector<ObjectHealthCounts>> count_stack_health(store::Connection& connection,
                                                              std::string_view stack_id);

}  // namespace sindri::broker::db
