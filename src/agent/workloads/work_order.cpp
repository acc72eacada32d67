#include "agent/workloads/work_order.hpp"

#include "agent/workloads/work_order_kinds.hpp"
#include "value/members.hpp"

namespace sindri::agent {

namespace {

}  // namespace

WorkOrderOutcome run_work_order(kube::Client& client, const Value& work_order, const WorkOrderTiming& timing,
                                const std::atomic<bool>& stopping) {
  if (!work_order.is_object()) return permanent_failure("the work order is not an object");
  const std::string_view id = string_member(work_order, "id"), work_type = string_member(work_order, "work_type");
  const Value* yaml = work_order.find("yaml_content");
  if (id.empty()) return permanent_failure("the work order has no id");
  if (!yaml || !yaml->is_string()) return permanent_failure("work order " + std::string(id) + " has no yaml_content");
  const Value* claim_timeout = work_order.find("claim_timeout_seconds");
  const double claim_timeout_seconds =
      claim_timeout && claim_timeout->is_number() ? claim_timeout->as_double() : timing.claim_timeout_seconds;
  if (stopping.load()) {
    return WorkOrderOutcome{.success = false, .message = "the agent stopped before it ran the work order", .retryable = true};
  }
  const WatchLimits limits = watch_limits(claim_timeout_seconds, timing, stopping);
  WorkOrderOutcome outcome;
  if (work_type == "custom") {
    outcome = run_custom_work_order(client, yaml->get_string(), limits);
  } else if (work_type == "build") {
    outcome = run_build_work_order(client, yaml->get_string(), id, limits);
  } else {
    outcome = permanent_failure("unknown work type \"" + std::string(work_type) + "\" (this agent runs custom and build)");
  }
  if (!outcome.success) outcome.message = "work order " + std::string(id) + ": " + outcome.message;
  return outcome;
}

}  // namespace sindri::agent
