#pragma once
// How a deployment object's pods are doing, from their JSON alone (no
// cluster): the status and HealthSummary of Brokkr's deployment health
// report (brokkr-agent deployment_health.rs), so it unit-tests without a
// server.

#include <span>
#include <string>

#include "value/value.hpp"

namespace sindri::agent {

struct PodHealth {
  std::string status;  // "healthy", "degraded", "failing" or "unknown"
  // HealthSummary: {pods_ready, pods_total, conditions, resources}.
  Value summary;
};

// degraded: a container waiting in ImagePullBackOff, ErrImagePull,
// CrashLoopBackOff, CreateContainerConfigError, InvalidImageName,
// RunContainerError or ContainerCannotRun (an init container's as
// "InitContainer:<reason>"), or terminated OOMKilled, Error or
// ContainerCannotRun, or last terminated OOMKilled; failing: a pod in phase
// Failed; unknown: a pod in phase Unknown, or no pods at all; else healthy.
// Unlike Brokkr's, where the last pod looked at could turn failing back into
// degraded, the worst status of any pod wins.
PodHealth classify_pods(std::span<const Value> pods);

}  // namespace sindri::agent
