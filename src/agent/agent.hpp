#pragma once
// The agent's process, as Brokkr's agent runs (crates/brokkr-agent bin.rs):
// start-up (wait for the broker's /readyz, POST /auth/pak, find itself by
// name and cluster, register with its generators, check the cluster, start
// its health server, read what the sink holds) and then the loop: heartbeat
// and full target state every polling_interval, deployment health every
// deployment_health_interval, diagnostics, work orders and agent-delivered
// webhooks every task_interval (the last two on a worker thread, so that a
// long Job holds up nothing else); all but the heartbeat only while the agent
// is ACTIVE. A push over the broker's agent channel (broker_channel.hpp)
// brings the next target-state poll (or work-order pass) forward to now. A
// broker that is down or answers 5xx is retried with backoff; a PAK refused
// auth_failure_limit times in a row ends the run with exit 1.

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "agent/metrics.hpp"
#include "agent/settings.hpp"
#include "agent/sink.hpp"
#include "agent/uplink.hpp"
#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::agent {

struct TaskOutcome {
  bool success = false;
  std::string message;
  bool retryable = false;
};

// What the cluster offers besides the sink; with the directory sink only
// probe_sink is set.
struct SinkHooks {
  // The sink answers (GET /version for a cluster): the latency in ms.
  std::function<Result<int64_t>()> probe_sink;
  // One health entry per applied deployment object id.
  std::function<Value(const std::vector<std::string>& deployment_object_ids)> deployment_health;
  // The body of POST /diagnostics/{id}/result for a deployment object.
  std::function<Value(const std::string& deployment_object_id, const std::string& deployment_object_yaml)>
      collect_diagnostics;
  std::function<TaskOutcome(const Value& work_order, const std::atomic<bool>& stopping)> run_work_order;
  // Told where the agent's metrics are, to count the cluster's operations.
  std::function<void(AgentMetrics&)> observe_into;
  // Starts sending the cluster's telemetry (events, pod logs) up `uplink`.
  std::function<std::unique_ptr<TelemetryStreams>(const std::string& agent_id, Uplink& uplink)> start_telemetry;
};

// Makes the sink once the agent's id (its owner-id) is known.
using SinkFactory = std::function<Result<std::unique_ptr<Sink>>(const std::string& agent_id)>;

struct AgentRun {
  AgentSettings settings;
  SinkFactory make_sink;
  SinkHooks hooks;
  std::string version;
  std::function<void(const std::string&)> log;   // one line, no newline
};

// Runs until `stopping` is set (exit code 0) or the agent cannot go on (1,
// after logging why).
int run_agent(const AgentRun& run, const std::atomic<bool>& stopping);

}  // namespace sindri::agent
