#pragma once
// The Kubernetes side of `sindri agent run`: the cluster's configuration
// (kube::load_cluster_config: agent.kubeconfig, else $KUBECONFIG, else
// in-cluster, else ~/.kube/config), one kube::Client with the agent's retry
// settings, the Kubernetes sink and the workload hooks (deployment health,
// diagnostics, work orders) and the telemetry producers on that client.

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "agent/agent.hpp"
#include "agent/settings.hpp"
#include "agent/sink.hpp"
#include "value/result.hpp"

namespace sindri::kube {
class Client;
}

namespace sindri::agent {

class KubeWiring {
 public:
  // Fails when the kubeconfig is missing, unreadable or lacks the context.
  static Result<std::unique_ptr<KubeWiring>> connect(const AgentSettings& settings,
                                                     std::function<void(const std::string&)> log);
  ~KubeWiring();
  // Once *stopping is set the cluster's operations stop retrying and the
  // sink's wait for a CRD's kinds ends, so a SIGTERM during an outage ends
  // the run in moments, not after kube_retry_give_up. Call before make_sink.
  void stop_when(const std::atomic<bool>* stopping);
  Result<std::unique_ptr<Sink>> make_sink(const std::string& agent_id);
  SinkHooks hooks();

 private:
  KubeWiring(const AgentSettings& settings, std::unique_ptr<kube::Client> client,
             std::unique_ptr<kube::Client> telemetry_client, std::function<void(const std::string&)> log);
  AgentSettings settings_;
  std::unique_ptr<kube::Client> client_;
  std::unique_ptr<kube::Client> telemetry_client_;
  std::function<void(const std::string&)> log_;
  const std::atomic<bool>* stopping_ = nullptr;
};

}  // namespace sindri::agent
