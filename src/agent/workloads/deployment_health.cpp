#include "agent/workloads/deployment_health.hpp"

#include "agent/workloads/pod_attribution.hpp"
#include "agent/workloads/pod_health.hpp"
#include "value/object_literal.hpp"
#include "value/rfc3339.hpp"

namespace sindri::agent {

namespace {

Value health_entry(std::string_view id, const PodHealth& health) {
  return make_object(
      {{"id", id}, {"status", health.status}, {"summary", health.summary}, {"checked_at", rfc3339::now()}});
}

}  // namespace

Value check_deployments_health(kube::Client& client, std::span<const std::string> deployment_object_ids,
                               std::string_view watch_namespace) {
  Array entries;
  auto pods = list_pods(client, watch_namespace);
  PodAttributor attributor(client);
  for (const std::string& id : deployment_object_ids) {
    // A listing that failed says nothing about the pods: unknown, no summary figures.
    const PodHealth health = pods.ok() ? classify_pods(attributor.pods_of(*pods, id)) : classify_pods({});
    entries.push_back(health_entry(id, health));
  }
  return Value(std::move(entries));
}

Value check_deployment_health(kube::Client& client, std::string_view deployment_object_id,
                              std::string_view watch_namespace) {
  const std::string ids[] = {std::string(deployment_object_id)};
  return *check_deployments_health(client, ids, watch_namespace).at(0);
}

}  // namespace sindri::agent
