#include "agent/workloads/pod_health.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <string_view>

#include "value/object_literal.hpp"
#include "value/pointer.hpp"
#include "value/members.hpp"

namespace sindri::agent {

namespace {

constexpr std::array<std::string_view, 7> kDegradedWaitingReasons = {
    "ImagePullBackOff",  "ErrImagePull",      "CrashLoopBackOff",  "CreateContainerConfigError",
    "InvalidImageName",  "RunContainerError", "ContainerCannotRun"};
constexpr std::array<std::string_view, 3> kDegradedTerminatedReasons = {"OOMKilled", "Error", "ContainerCannotRun"};

// From best to worst; a report takes the worst of its pods.
constexpr std::array<std::string_view, 4> kStatusesByRank = {"healthy", "unknown", "degraded", "failing"};

size_t rank_of(std::string_view status) {
  return static_cast<size_t>(std::find(kStatusesByRank.begin(), kStatusesByRank.end(), status) -
                             kStatusesByRank.begin());
}

template <size_t N>
bool listed(const std::array<std::string_view, N>& list, std::string_view reason) {
  return std::find(list.begin(), list.end(), reason) != list.end();
}

bool is_ready(const Value& pod) {
  const Value* conditions = follow_pointer(pod, "/status/conditions");
  if (!conditions || !conditions->is_array()) return false;
  for (const Value& condition : conditions->get_array()) {
    if (string_at(condition, "/type") == "Ready" && string_at(condition, "/status") == "True") return true;
  }
  return false;
}

const Array& array_at(const Value& root, std::string_view pointer) {
  static const Array kEmpty;
  const Value* value = follow_pointer(root, pointer);
  return value && value->is_array() ? value->get_array() : kEmpty;
}

class Classifier {
 public:
  void look_at(const Value& pod) {
    ++pods_total_;
    if (is_ready(pod)) ++pods_ready_;
    const std::string_view name = string_at(pod, "/metadata/name");
    const std::string_view namespace_ = string_at(pod, "/metadata/namespace");
    for (const Value& container : array_at(pod, "/status/containerStatuses")) {
      const std::string_view waiting = string_at(container, "/state/waiting/reason");
      if (listed(kDegradedWaitingReasons, waiting)) {
        note(std::string(waiting), "degraded");
        const Value* message = follow_pointer(container, "/state/waiting/message");
        resources_.push_back(make_object({{"kind", "Pod"},
                                          {"name", name},
                                          {"namespace", namespace_},
                                          {"ready", false},
                                          {"message", message && message->is_string() ? *message : Value()}}));
      }
      const std::string_view terminated = string_at(container, "/state/terminated/reason");
      if (listed(kDegradedTerminatedReasons, terminated)) note(std::string(terminated), "degraded");
      if (string_at(container, "/lastState/terminated/reason") == "OOMKilled") note("OOMKilled", "degraded");
    }
    for (const Value& container : array_at(pod, "/status/initContainerStatuses")) {
      const std::string_view waiting = string_at(container, "/state/waiting/reason");
      if (listed(kDegradedWaitingReasons, waiting)) note("InitContainer:" + std::string(waiting), "degraded");
    }
    const std::string_view phase = string_at(pod, "/status/phase");
    if (phase == "Failed") note("PodFailed", "failing");
    if (phase == "Unknown") worsen("unknown");
  }

  PodHealth report() const {
    Array conditions(conditions_.begin(), conditions_.end());
    return PodHealth{pods_total_ == 0 ? "unknown" : std::string(kStatusesByRank[rank_]),
                     make_object({{"pods_ready", pods_ready_},
                                  {"pods_total", pods_total_},
                                  {"conditions", Value(std::move(conditions))},
                                  {"resources", Value(resources_)}})};
  }

 private:
  void note(std::string condition, std::string_view status) {
    conditions_.insert(std::move(condition));
    worsen(status);
  }
  void worsen(std::string_view status) { rank_ = std::max(rank_, rank_of(status)); }

  long pods_total_ = 0, pods_ready_ = 0;
  size_t rank_ = 0;
  std::set<std::string> conditions_;  // sorted, so a report reads the same every time
  Array resources_;
};

}  // namespace

PodHealth classify_pods(std::span<const Value> pods) {
  Classifier classifier;
  for (const Value& pod : pods) {
    if (pod.is_object()) classifier.look_at(pod);
  }
  return classifier.report();
}

}  // namespace sindri::agent
