#include "agent/tasks.hpp"

#include <chrono>

#include "agent/webhook_sender.hpp"
#include "value/rfc3339.hpp"
#include "value/json.hpp"
#include "value/object_literal.hpp"
#include "value/members.hpp"

namespace sindri::agent {
namespace {

// The body of POST /diagnostics/{id}/result when nothing could be collected.
Value diagnostic_error(const std::string& message) {
  return make_object({{"pod_statuses", Value("[]")},
                      {"events", Value(to_json(Value(Array{make_object({{"error", Value(message)}})})))},
                      {"log_tails", Value()},
                      {"collected_at", Value(rfc3339::now())}});
}

}  // namespace

bool Tasks::missing(std::string_view endpoint, const BrokerError& error) {
  if (!error.missing_endpoint()) return false;
  if (missing_.insert(std::string(endpoint)).second) {
    log_("the broker has no " + std::string(endpoint) + " endpoint (" + error.message + "); skipping it");
  }
  return true;
}

std::optional<BrokerError> Tasks::report_health(const std::vector<std::string>& applied_object_ids) {
  if (!hooks_.deployment_health || applied_object_ids.empty()) return std::nullopt;
  auto sent = broker_.health_status(agent_id_, hooks_.deployment_health(applied_object_ids));
  if (sent.ok() || missing("health-status", sent.error())) return std::nullopt;
  return std::move(sent).error();
}

std::optional<BrokerError> Tasks::diagnostics(const std::atomic<bool>& stopping) {
  if (!hooks_.collect_diagnostics) return std::nullopt;
  auto pending = broker_.pending_diagnostics(agent_id_);
  if (!pending.ok()) {
    if (missing("diagnostics", pending.error())) return std::nullopt;
    return std::move(pending).error();
  }
  if (!pending->is_array()) return std::nullopt;
  for (const Value& request : pending->get_array()) {
    if (stopping) break;
    const std::string id(string_member(request, "id"));
    auto claimed = broker_.claim_diagnostic(id);
    if (!claimed.ok()) {
      log_("diagnostic " + id + ": " + claimed.error().message);
      continue;
    }
    // A claimed request always gets a result: without its object, the
    // error form Brokkr's agent posts when it cannot collect.
    auto object = broker_.deployment_object(string_member(request, "deployment_object_id"));
    if (!object.ok()) log_("diagnostic " + id + ": " + object.error().message);
    auto sent = broker_.diagnostic_result(
        id, object.ok() ? hooks_.collect_diagnostics(std::string(string_member(*object, "id")),
                                                     std::string(string_member(*object, "yaml_content")))
                        : diagnostic_error("the deployment object: " + object.error().message));
    if (!sent.ok()) log_("diagnostic " + id + ": " + sent.error().message);
  }
  return std::nullopt;
}

std::optional<BrokerError> Tasks::work_order(const std::atomic<bool>& stopping) {
  if (!hooks_.run_work_order) return std::nullopt;
  auto pending = broker_.pending_work_orders(agent_id_);
  if (!pending.ok()) {
    if (missing("work-orders", pending.error())) return std::nullopt;
    return std::move(pending).error();
  }
  if (!pending->is_array() || pending->size() == 0) return std::nullopt;
  const std::string id(string_member(*pending->at(0), "id"));
  auto claimed = broker_.claim_work_order(id, agent_id_);
  if (!claimed.ok()) {
    log_("work order " + id + ": " + claimed.error().message);
    return std::nullopt;
  }
  const TaskOutcome outcome = hooks_.run_work_order(*claimed, stopping);
  log_("work order " + id + (outcome.success ? " succeeded: " : " failed: ") + outcome.message);
  auto completed = broker_.complete_work_order(id, outcome.success, outcome.message, outcome.retryable);
  if (!completed.ok()) log_("work order " + id + ": " + completed.error().message);
  return std::nullopt;
}

std::optional<BrokerError> Tasks::webhooks() {
  auto pending = broker_.pending_webhooks(agent_id_);
  if (!pending.ok()) {
    if (missing("webhooks/pending", pending.error())) return std::nullopt;
    return std::move(pending).error();
  }
  if (!pending->is_array()) return std::nullopt;
  for (const Value& delivery : pending->get_array()) {
    const std::string id(string_member(delivery, "id"));
    auto recorded = broker_.webhook_result(id, send_agent_webhook(delivery));
    if (!recorded.ok()) log_("webhook delivery " + id + ": " + recorded.error().message);
  }
  return std::nullopt;
}

TaskWorker::TaskWorker(const AgentSettings& settings, const SinkHooks& hooks, std::string agent_id,
                       std::function<void(const std::string&)> log)
    : broker_(settings), tasks_(broker_, hooks, std::move(agent_id), std::move(log)) {}

TaskWorker::~TaskWorker() {
  stopping_ = true;
  if (pass_.valid()) pass_.wait();
}

void TaskWorker::start_pass() {
  if (pass_.valid()) return;
  pass_ = std::async(std::launch::async, [this]() -> std::optional<BrokerError> {
    if (auto error = tasks_.work_order(stopping_)) return error;
    return tasks_.webhooks();
  });
}

std::optional<BrokerError> TaskWorker::finished() {
  if (!pass_.valid() || pass_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return std::nullopt;
  return pass_.get();
}

}  // namespace sindri::agent
