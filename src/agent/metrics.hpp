#pragma once
// The agent's Prometheus metrics under Brokkr's names (crates/brokkr-agent
// src/metrics.rs), so that Brokkr's dashboards work: poll requests and their
// latency, Kubernetes operations and theirs, heartbeats, the last poll.

#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace sindri::agent {

class AgentMetrics {
 public:
  void observe_poll(bool success, double seconds);
  void observe_kubernetes(std::string_view operation, double seconds);
  void heartbeat_sent();
  // The exposition text (text/plain; version=0.0.4).
  std::string render() const;

 private:
  struct Histogram {
    std::vector<double> bounds;
    std::vector<uint64_t> counts;  // per bound, not cumulative
    uint64_t count = 0;
    double sum = 0;
    void observe(double seconds);
    void render(std::string& out, std::string_view name, std::string_view labels) const;
  };
  mutable std::mutex mutex_;
  std::map<std::string, uint64_t> polls_;  // by status
  Histogram poll_duration_{{0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0}, {}, 0, 0};
  std::map<std::string, uint64_t, std::less<>> kube_operations_;
  std::map<std::string, Histogram, std::less<>> kube_durations_;
  uint64_t heartbeats_ = 0;
  double last_successful_poll_ = 0;  // Unix seconds
};

}  // namespace sindri::agent
