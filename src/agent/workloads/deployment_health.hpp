#pragma once
// The agent's deployment health report (issue 26 item 7): for each deployment
// object, its pods (pod_attribution.hpp) classified (pod_health.hpp), as one
// entry of PATCH /agents/{id}/health-status's deployment_objects.

#include <span>
#include <string>
#include <string_view>

#include "kube/client.hpp"
#include "value/value.hpp"

namespace sindri::agent {

// {id, status, summary: {pods_ready, pods_total, conditions, resources},
// checked_at (RFC 3339, UTC)}. Pods are looked for in `watch_namespace`, or
// in every namespace when it is "". When the pods cannot be listed the status
// is "unknown" with an empty summary, as Brokkr reports it.
Value check_deployment_health(kube::Client& client, std::string_view deployment_object_id,
                              std::string_view watch_namespace);

// The same for several deployment objects, in their order, from one listing
// of the pods: what a health pass over every applied object should call.
Value check_deployments_health(kube::Client& client, std::span<const std::string> deployment_object_ids,
                               std::string_view watch_namespace);

}  // namespace sindri::agent
