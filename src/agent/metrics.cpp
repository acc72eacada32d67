#include "agent/metrics.hpp"

#include <chrono>
#include <cstdio>

namespace sindri::agent {
namespace {

std::string number(double value) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

void header(std::string& out, std::string_view name, std::string_view help, std::string_view type) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

}  // namespace

void AgentMetrics::Histogram::observe(double seconds) {
  if (counts.size() != bounds.size()) counts.assign(bounds.size(), 0);
  for (size_t i = 0; i < bounds.size(); ++i) {
    if (seconds <= bounds[i]) {
      ++counts[i];
      break;
    }
  }
  ++count;
  sum += seconds;
}

void AgentMetrics::Histogram::render(std::string& out, std::string_view name, std::string_view labels) const {
  const std::string prefix = labels.empty() ? std::string() : std::string(labels) + ",";
  uint64_t cumulative = 0;
  for (size_t i = 0; i < bounds.size(); ++i) {
    cumulative += i < counts.size() ? counts[i] : 0;
    out.append(name).append("_bucket{").append(prefix).append("le=\"").append(number(bounds[i])).append("\"} ");
    out.append(std::to_string(cumulative)).append("\n");
  }
  out.append(name).append("_bucket{").append(prefix).append("le=\"+Inf\"} ").append(std::to_string(count)).append("\n");
  const std::string braces = labels.empty() ? std::string() : "{" + std::string(labels) + "}";
  out.append(name).append("_sum").append(braces).append(" ").append(number(sum)).append("\n");
  out.append(name).append("_count").append(braces).append(" ").append(std::to_string(count)).append("\n");
}

void AgentMetrics::observe_poll(bool success, double seconds) {
  std::lock_guard lock(mutex_);
  ++polls_[success ? "success" : "error"];
  poll_duration_.observe(seconds);
  if (success) {
    last_successful_poll_ = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  }
}

void AgentMetrics::observe_kubernetes(std::string_view operation, double seconds) {
  std::lock_guard lock(mutex_);
  auto counted = kube_operations_.find(operation);
  if (counted == kube_operations_.end()) counted = kube_operations_.emplace(std::string(operation), 0).first;
  ++counted->second;
  auto timed = kube_durations_.find(operation);
  if (timed == kube_durations_.end()) {
    timed = kube_durations_
                .emplace(std::string(operation), Histogram{{0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0}, {}, 0, 0})
                .first;
  }
  timed->second.observe(seconds);
}

void AgentMetrics::heartbeat_sent() {
  std::lock_guard lock(mutex_);
  ++heartbeats_;
}

std::string AgentMetrics::render() const {
  std::lock_guard lock(mutex_);
  std::string out;
  header(out, "brokkr_agent_poll_requests_total", "Total number of broker poll requests", "counter");
  for (const auto& [status, count] : polls_) {
    out += "brokkr_agent_poll_requests_total{status=\"" + status + "\"} " + std::to_string(count) + "\n";
  }
  header(out, "brokkr_agent_poll_duration_seconds", "Broker poll request latency distribution in seconds", "histogram");
  poll_duration_.render(out, "brokkr_agent_poll_duration_seconds", "");
  header(out, "brokkr_agent_kubernetes_operations_total", "Total number of Kubernetes API operations by type",
         "counter");
  for (const auto& [operation, count] : kube_operations_) {
    out += "brokkr_agent_kubernetes_operations_total{operation=\"" + operation + "\"} " + std::to_string(count) + "\n";
  }
  header(out, "brokkr_agent_kubernetes_operation_duration_seconds",
         "Kubernetes operation latency distribution in seconds", "histogram");
  for (const auto& [operation, histogram] : kube_durations_) {
    histogram.render(out, "brokkr_agent_kubernetes_operation_duration_seconds", "operation=\"" + operation + "\"");
  }
  header(out, "brokkr_agent_heartbeat_sent_total", "Total number of heartbeats sent to broker", "counter");
  out += "brokkr_agent_heartbeat_sent_total " + std::to_string(heartbeats_) + "\n";
  header(out, "brokkr_agent_last_successful_poll_timestamp", "Unix timestamp of last successful broker poll", "gauge");
  out += "brokkr_agent_last_successful_poll_timestamp " + number(last_successful_poll_) + "\n";
  return out;
}

}  // namespace sindri::agent
