#pragma once
// The agent's Kubernetes sink: applies deployment objects with server-side
// apply as Brokkr's agent does (k8s/api.rs reconcile_target_state) and
// deletes only what this agent owns, found in the cluster itself.

#include <atomic>
#include <string>

#include "agent/sink.hpp"
#include "kube/client.hpp"

namespace sindri::agent {

struct KubeSinkOptions {
  std::string agent_id;         // the owner-id annotation's value
  std::string watch_namespace;  // "" = the whole cluster
  // Seconds to wait for the kinds of a CRD the same object creates to appear
  // in discovery (the API server serves them some time after), and how often to look.
  double crd_wait = 30;
  double crd_poll_interval = 0.5;
  // Once *stopping is true the wait for a CRD's kinds ends at once (the object fails): a stopping agent does not wait.
  const std::atomic<bool>* stopping = nullptr;
};

class KubeSink : public Sink {
 public:
  KubeSink(kube::Client& client, KubeSinkOptions options);
  std::string_view name() const override { return "kubernetes"; }
  ApplyOutcome apply(const DeploymentObject& object) override;
  Status prune(std::string_view stack_id, std::string_view keep_checksum) override;
  Result<std::vector<OwnedStack>> owned() override;

 private:
  kube::Client& client_;
  KubeSinkOptions options_;
};

}  // namespace sindri::agent
