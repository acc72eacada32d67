#pragma once
// What tests of the Kubernetes client and of the agent's Kubernetes sink
// both need: retries in milliseconds, and a kubeconfig read or the test
// stopped.

#include <stdexcept>
#include <string>

#include "kube/client.hpp"
#include "kube/config.hpp"

namespace sindri_test {

// Milliseconds, so that retries cost nothing.
inline sindri::kube::RetryPolicy quick_retries() {
  sindri::kube::RetryPolicy policy;
  policy.initial_delay = 0.001;
  policy.max_delay = 0.004;
  policy.give_up_after = 2;
  policy.request_timeout = 10;
  return policy;
}

inline sindri::kube::ClusterConfig config_of(const std::string& kubeconfig) {
  sindri::kube::KubeconfigOptions options;
  options.path = kubeconfig;
  auto config = sindri::kube::load_kubeconfig(options);
  if (!config.ok()) throw std::runtime_error(config.error().message);
  return std::move(config).value();
}

}  // namespace sindri_test
