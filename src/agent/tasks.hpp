#pragma once
// The agent's periodic work besides applying, each as Brokkr's agent does
// it: deployment health reports, diagnostics, work orders (one per tick) and
// webhook deliveries the broker hands the agent. A broker without one of
// these endpoints (404/405) is logged once and skipped thereafter; any other
// broker error is handed back for the loop to count and back off from.

#include <atomic>
#include <functional>
#include <future>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/agent.hpp"
#include "agent/broker_api.hpp"

namespace sindri::agent {

class Tasks {
 public:
  Tasks(BrokerApi& broker, const SinkHooks& hooks, std::string agent_id, std::function<void(const std::string&)> log)
      : broker_(broker), hooks_(hooks), agent_id_(std::move(agent_id)), log_(std::move(log)) {}

  std::optional<BrokerError> report_health(const std::vector<std::string>& applied_object_ids);
  std::optional<BrokerError> diagnostics(const std::atomic<bool>& stopping);
  std::optional<BrokerError> work_order(const std::atomic<bool>& stopping);
  std::optional<BrokerError> webhooks();

 private:
  // Whether `error` says the broker lacks `endpoint` (logged the first time).
  bool missing(std::string_view endpoint, const BrokerError& error);

  BrokerApi& broker_;
  const SinkHooks& hooks_;
  std::string agent_id_;
  std::function<void(const std::string&)> log_;
  std::set<std::string, std::less<>> missing_;
};

// Work orders and the webhook deliveries handed to the agent, off the
// agent's loop: a work order's Job may run for an hour and a receiver may
// take its whole timeout, while heartbeats and polls go on. One pass (a
// work order, then the pending deliveries) at a time, on its own broker
// connection.
class TaskWorker {
 public:
  TaskWorker(const AgentSettings& settings, const SinkHooks& hooks, std::string agent_id,
             std::function<void(const std::string&)> log);
  // Tells a running pass to stop (run_work_order honours it) and waits for it.
  ~TaskWorker();
  TaskWorker(const TaskWorker&) = delete;
  TaskWorker& operator=(const TaskWorker&) = delete;

  // Starts a pass unless one is running.
  void start_pass();
  // The broker error of a pass that finished since the last call, if any.
  std::optional<BrokerError> finished();

 private:
  BrokerApi broker_;
  Tasks tasks_;
  std::atomic<bool> stopping_{false};
  std::future<std::optional<BrokerError>> pass_;
};

}  // namespace sindri::agent
