#pragma once
// The telemetry tables: Kubernetes events and pod log lines that agents
// stream over their channel, read back a stack at a time, newest first,
// and trimmed to a window of hours.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "broker/api_error.hpp"
#include "store/database.hpp"
#include "value/value.hpp"

namespace sindri::broker::db {

enum class TelemetryTable { K8sEvents, PodLogs };

struct NewK8sEvent {
  std::string agent_id, stack_id, observed_at, reason, message, event_type;
  std::optional<std::string> source;
  Value involved_object;
};
struct NewPodLogLine {
  std::string agent_id, stack_id, pod_namespace, pod, container, ts, line;
};
// 404 when the stack is not live, 403 when the agent never targeted it (an
// agent reports on its own stacks only).
ApiResult<Ok> check_reporting_stack(store::Connection& connection, std::string_view agent_id,
                                    std::string_view stack_id);
// Each checks the stack as check_reporting_stack, stores the row and
// answers it in Brokkr's shape (AgentK8sEvent, AgentPodLog).
ApiResult<Value> insert_k8s_event(store::Connection& connection, const NewK8sEvent& event);
ApiResult<Value> insert_pod_log_line(store::Connection& connection, const NewPodLogLine& line);

// The stack's rows created at or after `since`, newest first, at most `limit`.
ApiResult<Value> list_telemetry(store::Connection& connection, TelemetryTable table, std::string_view stack_id,
                                std::string_view since, int64_t limit);
// When the oldest row of the stack created at or after `window_start` was
// created (null when none).
ApiResult<Value> oldest_telemetry(store::Connection& connection, TelemetryTable table, std::string_view stack_id,
                                  std::string_view window_start);

// Deletes up to `limit` rows of `table` created before `cutoff`; answers how many.
ApiResult<int64_t> delete_telemetry_before(store::Connection& connection, TelemetryTable table,
                                           std::string_view cutoff, int64_t limit);

}  // namespace sindri::broker::db
