#pragma once
// The Kubernetes events of the objects this agent applied, sent up the
// broker's channel as Brokkr's agent sends them (kube_events.rs): a k8s_event
// frame for each core/v1 Event, new or updated, whose involvedObject carries
// the stack annotation (k8s.brokkr.io/stack) itself or, beyond Brokkr, has
// a controller that does (a Pod of a ReplicaSet of an applied Deployment,
// up to two owners). The cluster's events
// are listed every agent.telemetry_list_interval (kube::Client has no watch)
// and told apart by uid and resourceVersion; those there at the first list
// are not sent. Frames the channel cannot take are dropped, as Brokkr's are.

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>

#include "agent/uplink.hpp"
#include "kube/discovery.hpp"
#include "value/value.hpp"

namespace sindri::kube {
class Client;
}

namespace sindri::agent {

class KubeEventForwarder {
 public:
  // watch_namespace "": every namespace.
  KubeEventForwarder(kube::Client& client, std::string agent_id, std::string watch_namespace, Uplink& uplink,
                     std::function<void(const std::string&)> log);

  // One list of the cluster's events; what is new since the last goes up.
  void pass();

  // The k8s_event frame of `event` about an object of stack `stack_id`.
  static std::string frame(const Value& event, std::string_view agent_id, std::string_view stack_id);

 private:
  void forward(const Value& event);
  // The stack annotation of the object `reference` (an involvedObject or an
  // ownerReference) names in `ns`, else that of its controller, followed up
  // to `owners_left` owners; "" when none has one or the object is gone;
  // nullopt when the cluster could not say.
  std::optional<std::string> stack_of(const Value& reference, std::string_view ns, int owners_left);
  void log_once(const std::string& line);

  using Clock = std::chrono::steady_clock;
  struct KnownStack {
    std::string stack_id;  // "" for an object of no stack
    Clock::time_point expires;
  };

  kube::Client& client_;
  std::string agent_id_, watch_namespace_;
  Uplink& uplink_;
  std::function<void(const std::string&)> log_;
  std::optional<kube::ResourceType> event_type_;
  bool listed_once_ = false;
  std::unordered_map<std::string, std::string> versions_;   // event uid -> resourceVersion
  std::unordered_map<std::string, KnownStack> stacks_;      // involved object uid -> its stack
  std::string last_failure_;
  size_t dropped_ = 0;  // frames the channel could not take in this pass, logged at its end
};

}  // namespace sindri::agent
