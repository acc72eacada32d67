#pragma once
// Which deployment object a pod belongs to, as Brokkr's agent decides it
// (deployment_health.rs, PodAttributor): the pod's
// `brokkr.io/deployment-object-id` label, else that key as the pod's
// annotation, else the annotation on the first object up its controller
// ownerReferences (Pod -> ReplicaSet -> Deployment, Job -> CronJob), at most
// four hops. The agent annotates only the objects it applies, never the pod
// templates, so the owner walk is what finds a Deployment's pods. Health and
// diagnostics share this, so they always agree on a deployment object's pods.

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kube/client.hpp"
#include "value/value.hpp"

namespace sindri::agent {

// A kind of the core group's v1 (pods, events): these need no discovery.
kube::ResourceType core_v1_type(std::string_view kind, std::string_view plural);

// Pods in `namespace_` ("" = every namespace).
Result<std::vector<Value>, kube::KubeError> list_pods(kube::Client& client, std::string_view namespace_);

// One per pass over a set of pods: owners looked up once are remembered
// (misses too), so the pods of one ReplicaSet cost one lookup.
class PodAttributor {
 public:
  explicit PodAttributor(kube::Client& client) : client_(client) {}

  // The deployment object id of `pod`, lower-case; "" when it has none.
  // An owner that cannot be read (deleted, unknown kind, API error) ends the
  // walk without an id.
  std::string deployment_object_of(const Value& pod);
  // The pods of `pods` that belong to `deployment_object_id` (a UUID in any
  // case; anything else has no pods).
  std::vector<Value> pods_of(std::span<const Value> pods, std::string_view deployment_object_id);

 private:
  std::string owner_chain_id(const Value& pod);

  kube::Client& client_;
  // "namespace/apiVersion/kind/name" of owners walked -> the id found ("" for none).
  std::map<std::string, std::string> owner_ids_;
};

}  // namespace sindri::agent
