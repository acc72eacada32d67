#pragma once
// What custom and build work orders share (work_order.hpp): their YAML as
// documents, applying one, and watching something until it finishes.

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/workloads/work_order.hpp"
#include "kube/client.hpp"
#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::agent {

// The field manager Brokkr's agent applies work orders with.
inline constexpr std::string_view kWorkOrderFieldManager = "brokkr-agent";

struct WorkDocument {
  size_t index = 0;  // 1-based in the YAML stream, empty documents counted
  Value object;
  std::string api_version, kind, name, namespace_;  // as written; "" where absent
  // "document 2 (batch/v1 Job migrate)", for messages.
  std::string describe() const;
};

// A failure that is not worth retrying: the work order itself is wrong.
WorkOrderOutcome permanent_failure(std::string message);

// The non-empty documents of `yaml`, each a mapping; a failure naming the
// document when the YAML does not parse or a document is no mapping.
Result<std::vector<WorkDocument>, WorkOrderOutcome> work_documents(std::string_view yaml);

// The document's resource type, found through discovery; a kind the cluster
// does not serve is a permanent failure naming the document.
Result<kube::ResourceType, WorkOrderOutcome> type_of(kube::Client& client, const WorkDocument& document);

// The namespace `document` goes to: its own, "default" when it names none,
// "" for a cluster-scoped type.
std::string namespace_for(const kube::ResourceType& type, const WorkDocument& document);

// Server-side apply with kWorkOrderFieldManager, forced.
Result<Value, WorkOrderOutcome> apply_document(kube::Client& client, const kube::ResourceType& type,
                                               const WorkDocument& document);

// A Kubernetes error as a work order's failure: retryable when the client
// counts it as transient (it has retried it already).
WorkOrderOutcome kube_failure(std::string_view what, const kube::KubeError& error);

// How long a watch may go on and how often it reads.
struct WatchLimits {
  std::chrono::steady_clock::time_point deadline;
  double claim_timeout_seconds = 0;  // for messages
  double poll_interval = 5;
  const std::atomic<bool>* stopping = nullptr;
};
// Watching may use the claim timeout less max(10%, floor), never below 0.
WatchLimits watch_limits(double claim_timeout_seconds, const WorkOrderTiming& timing,
                         const std::atomic<bool>& stopping);

// One read of a watched object: its outcome once it has one; else the error
// of a read that failed ("" when it read fine and is still going).
struct WatchReading {
  std::optional<WorkOrderOutcome> outcome;
  std::string read_error;
};
// Reads `what` ("Job default/migrate") with `read` every poll_interval until
// it has an outcome; it reads at least once, even with no time left, so that
// a finished object is never reported as unfinished. The deadline or
// `stopping` ends it with a retryable failure saying the object was left
// running.
WorkOrderOutcome watch_until_finished(std::string_view what, const WatchLimits& limits,
                                      const std::function<WatchReading()>& read);

}  // namespace sindri::agent
