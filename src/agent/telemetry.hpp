#pragma once
// The agent's telemetry producers on one cluster: Kubernetes events
// (kube_events.hpp) and pod log lines (pod_logs.hpp), each on a thread of
// its own, sending through an Uplink until the returned object is destroyed.

#include <functional>
#include <memory>
#include <string>

#include "agent/settings.hpp"
#include "agent/uplink.hpp"

namespace sindri::kube {
class Client;
}

namespace sindri::agent {

std::unique_ptr<TelemetryStreams> start_telemetry(kube::Client& client, const AgentSettings& settings,
                                                  const std::string& agent_id, Uplink& uplink,
                                                  std::function<void(const std::string&)> log);

}  // namespace sindri::agent
