#pragma once
// Running a work order the agent has claimed (issue 26 item 8), as Brokkr's
// agent does (work_orders/mod.rs, work_orders/build.rs): its outcome is the
// body of POST /work-orders/{id}/complete.

#include <atomic>
#include <string>

#include "kube/client.hpp"
#include "value/value.hpp"

namespace sindri::agent {

struct WorkOrderOutcome {
  bool success = false;
  std::string message;
  bool retryable = false;  // whether the broker should queue the work order again
};

// Seconds; fractions are fine (tests use hundredths).
struct WorkOrderTiming {
  // How often a watched Job's or BuildRun's status is read.
  double job_poll_interval = 5;
  // The claim timeout of a work order that carries no claim_timeout_seconds.
  double claim_timeout_seconds = 3600;
  // Watching stops short of the claim timeout by 10% of it, but at least by
  // this much (Brokkr's 60 s), so the broker never hands the work order to
  // another agent while this one still watches it. Tests with a claim
  // timeout of a fraction of a second make this a fraction too.
  double claim_margin_floor_seconds = 60;
};

// `work_order` is the claimed WorkOrder as the broker answers it ({id,
// work_type, yaml_content, claim_timeout_seconds, ...}). work_type `custom`:
// every YAML document is applied with server-side apply (field manager
// `brokkr-agent`, forced), then each `batch/v1` Job among them is watched
// every job_poll_interval until it has the condition Complete (success) or
// Failed (a failure, not retryable: the Job ran), or the claim timeout nears
// (a failure, retryable: applying the same named Job again leaves the
// running one as it is, so a retry watches it on instead of starting a
// second). `build`: the Shipwright Builds are applied, a BuildRun of them
// made and watched until its Succeeded condition is True (the message is the
// image digest) or False. YAML that does not parse, a document that is no
// Kubernetes object, a kind the cluster does not serve and an unknown
// work_type are failures that are not retryable; so is a Kubernetes error
// that its client does not count as transient. When `stopping` becomes true
// the watch ends at once with a retryable failure (the Job is not
// cancelled). The claim timeout is counted from this call.
WorkOrderOutcome run_work_order(kube::Client& client, const Value& work_order, const WorkOrderTiming& timing,
                                const std::atomic<bool>& stopping);

}  // namespace sindri::agent
