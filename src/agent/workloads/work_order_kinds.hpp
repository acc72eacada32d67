#pragma once
// The work types run_work_order (work_order.hpp) knows, each given the work
// order's YAML and how long it may watch.

#include <string_view>

#include "agent/workloads/work_order_steps.hpp"

namespace sindri::agent {

// `custom`: apply every document, watch the batch/v1 Jobs among them.
WorkOrderOutcome run_custom_work_order(kube::Client& client, std::string_view yaml, const WatchLimits& limits);

// `build`: apply the Shipwright Builds, run one as a BuildRun named
// "<build>-<first 8 characters of the work order id>", watch it.
WorkOrderOutcome run_build_work_order(kube::Client& client, std::string_view yaml, std::string_view work_order_id,
                                      const WatchLimits& limits);

}  // namespace sindri::agent
