#include "agent/telemetry.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "agent/kube_events.hpp"
#include "agent/pod_logs.hpp"
#include "agent/wait.hpp"
#include "kube/client.hpp"

namespace sindri::agent {
namespace {

int64_t now_micros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class ClusterTelemetry : public TelemetryStreams {
 public:
  ClusterTelemetry(kube::Client& client, const AgentSettings& settings, const std::string& agent_id, Uplink& uplink,
                   const std::function<void(const std::string&)>& log)
      : client_(client),
        uplink_(uplink),
        list_interval_(settings.telemetry_list_interval),
        log_interval_(settings.pod_log_interval),
        events_(client, agent_id, settings.watch_namespace, uplink, log),
        logs_(client, agent_id, settings.watch_namespace, settings.pod_log_lines_per_second, now_micros(), uplink,
              log) {
    // This client is telemetry's alone: its retries end with telemetry,
    // whatever ends it (a stop, or the loop giving up on a refused PAK).
    client.stop_retrying_when(&stopping_);
    events_thread_ = std::thread([this] { forward_events(); });
    logs_thread_ = std::thread([this] { forward_logs(); });
  }
  ~ClusterTelemetry() override {
    stopping_ = true;
    events_thread_.join();
    logs_thread_.join();
    client_.stop_retrying_when(nullptr);
  }
  ClusterTelemetry(const ClusterTelemetry&) = delete;
  ClusterTelemetry& operator=(const ClusterTelemetry&) = delete;

 private:
  void forward_events() {
    do {
      if (uplink_.gave_up()) return;
      events_.pass();
    } while (wait_until(Clock::now() + seconds(list_interval_), stopping_));
  }

  void forward_logs() {
    auto next_scan = Clock::now();
    while (!stopping_ && !uplink_.gave_up()) {
      if (Clock::now() >= next_scan) {
        logs_.scan();
        next_scan = Clock::now() + seconds(list_interval_);
      }
      logs_.read(stopping_);
      if (!wait_until(std::min(next_scan, Clock::now() + seconds(log_interval_)), stopping_)) return;
    }
  }

  kube::Client& client_;
  const Uplink& uplink_;
  const double list_interval_, log_interval_;
  std::atomic<bool> stopping_{false};
  KubeEventForwarder events_;
  PodLogForwarder logs_;
  std::thread events_thread_, logs_thread_;
};

}  // namespace

std::unique_ptr<TelemetryStreams> start_telemetry(kube::Client& client, const AgentSettings& settings,
                                                  const std::string& agent_id, Uplink& uplink,
                                                  std::function<void(const std::string&)> log) {
  return std::make_unique<ClusterTelemetry>(client, settings, agent_id, uplink, log);
}

}  // namespace sindri::agent
