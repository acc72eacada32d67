#pragma once
// On-demand diagnostics of a deployment object (issue 26 item 8), as
// Brokkr's agent collects them (diagnostics.rs): the body of
// POST /diagnostics/{id}/result.

#include <string_view>

#include "kube/client.hpp"
#include "value/value.hpp"

namespace sindri::agent {

// SubmitDiagnosticResult: {pod_statuses, events, log_tails, collected_at},
// the first three JSON text as the API file says. Searched are the
// namespaces the deployment object's YAML documents name (a document without
// one, or YAML that does not parse, counts as `watch_namespace`, or "default"
// when that is ""); in each: the deployment object's pods
// (pod_attribution.hpp) with their phase, conditions and containers, the
// namespace's 50 most recent events (Brokkr's cap, per namespace), and the
// last 100 log lines of each container ("pod/container" -> text, or
// "Error: ..." for one whose log could not be read). When pods or events
// cannot be listed the result is Brokkr's error form: pod_statuses "[]",
// events `[{"error": "..."}]`, log_tails null.
Value collect_diagnostics(kube::Client& client, std::string_view deployment_object_id,
                          std::string_view deployment_object_yaml, std::string_view watch_namespace);

}  // namespace sindri::agent
