#pragma once
// The agent's own endpoints on health_port, as Brokkr's agent serves them:
// /healthz (alive), /readyz (200 only while the cluster answers), /health
// (JSON: status, kubernetes {connected, error}, broker {connected,
// last_heartbeat}, uptime_seconds, version, timestamp) and /metrics.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "agent/metrics.hpp"
#include "http/server.hpp"
#include "value/result.hpp"

namespace sindri::agent {

// What the endpoints report, written by the agent's loop.
class HealthState {
 public:
  // check_sink asks the cluster (GET /version, not retried) or checks the
  // directory; an error says why not.
  explicit HealthState(std::function<Status()> check_sink) : check_sink_(std::move(check_sink)) {}
  // One check at a time: a request arriving while another checks gets the
  // last answer, so a slow cluster holds at most one of the server's threads.
  Status check_sink();
  void heartbeat_succeeded();  // the broker answered a heartbeat now
  void broker_failed();
  bool broker_connected() const { return broker_connected_; }
  std::string last_heartbeat() const;  // RFC 3339, "" before the first
  AgentMetrics& metrics() { return metrics_; }
  double uptime_seconds() const;

 private:
  std::function<Status()> check_sink_;
  std::mutex checking_;
  Status last_check_ = make_error("the sink has not been checked yet");
  std::atomic<bool> broker_connected_{false};
  mutable std::mutex mutex_;
  std::string last_heartbeat_;
  AgentMetrics metrics_;
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

class HealthServer {
 public:
  HealthServer(HealthState& state, std::string version);
  ~HealthServer();
  // Listens on host:port (port 0: any free port; port() tells which).
  Status start(const std::string& host, uint16_t port);
  uint16_t port() const;
  void stop();

 private:
  http::Response handle(const http::Request& request);
  HealthState& state_;
  std::string version_;
  std::unique_ptr<http::Server> server_;
};

}  // namespace sindri::agent
