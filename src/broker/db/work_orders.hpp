#pragma once
// Work orders (Brokkr's migrations 08, 09, 12): an active queue (work_orders,
// PENDING -> CLAIMED -> RETRY_PENDING) whose rows name the agents they target
// directly or by label or annotation, and a log (work_order_log) that a work
// order moves to, in one transaction, when it succeeds or finally fails.
// An agent matches a work order when it is named, or shares any label, or
// any annotation (key and value) with it.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "broker/api_error.hpp"
#include "store/database.hpp"

namespace sindri::broker::db {

struct NewWorkOrder {
  std::string work_type;
  std::string yaml_content;
  int64_t max_retries = 3;
  int64_t backoff_seconds = 60;
  int64_t claim_timeout_seconds = 3600;
  std::vector<std::string> agent_ids;
  std::vector<std::string> labels;
  std::vector<std::pair<std::string, std::string>> annotations;
};
// Inserts the work order (PENDING) and its targeting; answers it.
ApiResult<Value> insert_work_order(store::Connection& connection, const NewWorkOrder& order);
// The live agents the work order targets: by name, label or annotation.
ApiResult<std::vector<std::string>> agents_targeted_by_work_order(store::Connection& connection,
                                                                  std::string_view work_order_id);

// Active work orders, newest first; a filter that is nullopt filters nothing.
ApiResult<Value> list_work_orders(store::Connection& connection, const std::optional<std::string>& status,
                                  const std::optional<std::string>& work_type);

// The active work order `id`, or nullopt.
ApiResult<std::optional<Value>> find_work_order(store::Connection& connection, std::string_view id);
// The log entry `id` shown as a work order (status COMPLETED or FAILED), or
// nullopt.
ApiResult<std::optional<Value>> find_logged_work_order(store::Connection& connection, std::string_view id);

// Deletes the active work order `id` and its targeting; false when there is
// none.
ApiResult<bool> delete_work_order(store::Connection& connection, std::string_view id);

// The work orders `agent_id` may claim now, oldest first: pending ones, and
// those whose retry backoff or claim timeout has passed (shown as PENDING, as
// release_expired_work_order_claims would leave them).
ApiResult<Value> list_claimable_work_orders(store::Connection& connection, std::string_view agent_id,
                                            const std::optional<std::string>& work_type);

// Claims the work order for the live agent `agent_id` in one conditional
// statement: it must be claimable now and target the agent. nullopt when it
// is not (missing, claimed, backing off, or not for this agent).
ApiResult<std::optional<Value>> claim_work_order(store::Connection& connection, std::string_view id,
                                                 std::string_view agent_id);

struct Completion {
  bool success = false;
  std::optional<std::string> message;
  bool retryable = true;
};
struct CompletionOutcome {
  // The log entry when the work order left the queue; nullopt when a retry
  // was scheduled.
  std::optional<Value> log_entry;
};
// Completes the active work order `order` (as find_work_order gave it): a
// success, a failure that may not be retried, or one past max_retries moves
// it to the log; another failure schedules a retry after backoff_seconds x
// 2^retries. 404 when the order changed meanwhile.
ApiResult<CompletionOutcome> complete_work_order(store::Connection& connection, const Value& order,
                                                 const Completion& completion);

struct WorkOrderLogQuery {
  std::optional<std::string> work_type;
  std::optional<bool> success;
  std::optional<std::string> agent_id;
  std::optional<int64_t> limit;
};
// Log entries, most recently completed first.
ApiResult<Value> list_work_order_log(store::Connection& connection, const WorkOrderLogQuery& query);
// The log entry `id`; 404 work_order_log_entry_not_found.
ApiResult<Value> load_work_order_log(store::Connection& connection, std::string_view id);

// The maintenance pass: claims past their claim_timeout_seconds and retries
// whose backoff has passed become PENDING again. Answers how many.
ApiResult<int64_t> release_expired_work_order_claims(store::Connection& connection);

}  // namespace sindri::broker::db
