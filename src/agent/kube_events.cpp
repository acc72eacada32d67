#include "agent/kube_events.hpp"

#include "agent/documents.hpp"
#include "kube/client.hpp"
#include "value/json.hpp"
#include "value/members.hpp"
#include "value/pointer.hpp"
#include "value/rfc3339.hpp"

namespace sindri::agent {
namespace {

// Brokkr's bounds on what it remembers of involved objects: an object's
// stack is looked up again after this long, and at most this many are kept.
constexpr auto kStackTtl = std::chrono::minutes(5);
constexpr size_t kStackCacheCapacity = 10'000;
// A Pod's ReplicaSet's Deployment: the events worth most (a pull that fails,
// a crash loop) are about pods, whose owner the agent applied.
constexpr int kOwnersFollowed = 2;

Value string_or_null(std::string_view text) { return text.empty() ? Value() : Value(text); }

// eventTime, else lastTimestamp, else now, in the fixed-width UTC form.
std::string observed_at(const Value& event) {
  for (const char* field : {"eventTime", "lastTimestamp"}) {
    if (auto stamp = rfc3339::normalized(string_member(event, field))) return *stamp;
  }
  return rfc3339::now();
}

// The ownerReference marked controller, with all a lookup needs; null when none.
const Value* controller_of(const Value& object) {
  const Value* owners = follow_pointer(object, "/metadata/ownerReferences");
  if (owners == nullptr || !owners->is_array()) return nullptr;
  for (const Value& owner : owners->get_array()) {
    const Value* controller = owner.find("controller");
    if (controller == nullptr || !controller->is_bool() || !controller->get_bool()) continue;
    for (const char* field : {"uid", "apiVersion", "kind", "name"}) {
      if (string_member(owner, field).empty()) return nullptr;
    }
    return &owner;
  }
  return nullptr;
}

std::string describe_event(const Value& event) {
  const Value* metadata = event.find("metadata");
  if (metadata == nullptr) return "a Kubernetes event without metadata";
  return "Kubernetes event " + std::string(string_member(*metadata, "namespace")) + "/" +
         std::string(string_member(*metadata, "name"));
}

}  // namespace

KubeEventForwarder::KubeEventForwarder(kube::Client& client, std::string agent_id, std::string watch_namespace,
                                       Uplink& uplink, std::function<void(const std::string&)> log)
    : client_(client),
      agent_id_(std::move(agent_id)),
      watch_namespace_(std::move(watch_namespace)),
      uplink_(uplink),
      log_(std::move(log)) {}

std::string KubeEventForwarder::frame(const Value& event, std::string_view agent_id, std::string_view stack_id) {
  static const Value kNoObject = Object{};
  const Value* involved_member = event.find("involvedObject");
  const Value& involved = involved_member != nullptr && involved_member->is_object() ? *involved_member : kNoObject;
  const Value* source = event.find("source");
  std::string_view component = source != nullptr ? string_member(*source, "component") : std::string_view();
  if (component.empty()) component = string_member(event, "reportingComponent");
  const std::string_view type = string_member(event, "type");
  Value body = Object{
      {"agent_id", Value(agent_id)},
      {"stack_id", Value(stack_id)},
      {"observed_at", Value(observed_at(event))},
      {"reason", string_or_null(string_member(event, "reason"))},
      {"message", string_or_null(string_member(event, "message"))},
      {"event_type", Value(type.empty() ? std::string_view("Normal") : type)},
      {"source", string_or_null(component)},
      {"involved_object", Value(Object{{"api_version", string_or_null(string_member(involved, "apiVersion"))},
                                       {"kind", string_or_null(string_member(involved, "kind"))},
                                       {"namespace", string_or_null(string_member(involved, "namespace"))},
                                       {"name", string_or_null(string_member(involved, "name"))},
                                       {"uid", string_or_null(string_member(involved, "uid"))}})},
  };
  return to_json(Value(Object{{"type", Value("k8s_event")}, {"body", std::move(body)}}));
}

void KubeEventForwarder::log_once(const std::string& line) {
  if (line == last_failure_) return;
  last_failure_ = line;
  log_(line);
}

void KubeEventForwarder::pass() {
  if (!event_type_) {
    auto found = client_.find_type("v1", "Event");
    if (!found.ok()) {
      log_once("Kubernetes events are not forwarded yet: " + found.error().message);
      return;
    }
    event_type_ = std::move(found).value();
  }
  auto events = client_.list(*event_type_, watch_namespace_);
  if (!events.ok()) {
    log_once("Kubernetes events: " + events.error().message + "; listing them again later");
    return;
  }
  last_failure_.clear();
  std::unordered_map<std::string, std::string> versions;
  for (const Value& event : *events) {
    const Value* metadata = event.find("metadata");
    if (metadata == nullptr) continue;
    std::string key(string_member(*metadata, "uid"));
    if (key.empty()) {
      key = std::string(string_member(*metadata, "namespace")) + "/" + std::string(string_member(*metadata, "name"));
    }
    const std::string version(string_member(*metadata, "resourceVersion"));
    auto known = versions_.find(key);
    const bool changed = known == versions_.end() || known->second != version;
    versions.emplace(key, version);
    if (listed_once_ && changed) forward(event);
  }
  if (!listed_once_) {
    log_("forwarding the Kubernetes events of the stacks' objects from now on (the " +
         std::to_string(versions.size()) + " there already are not sent)");
  }
  // Events the cluster expired are forgotten with it.
  versions_ = std::move(versions);
  listed_once_ = true;
  if (dropped_ > 0) {
    log_(std::to_string(dropped_) + " Kubernetes events were not sent: the agent channel was down or full");
    dropped_ = 0;
  }
}

void KubeEventForwarder::forward(const Value& event) {
  const Value* involved = event.find("involvedObject");
  if (involved == nullptr || !involved->is_object()) {
    log_(describe_event(event) + " skipped: it has no involvedObject");
    return;
  }
  for (const char* field : {"uid", "apiVersion", "kind", "name"}) {
    if (string_member(*involved, field).empty()) {
      log_(describe_event(event) + " skipped: its involvedObject has no " + field);
      return;
    }
  }
  const std::optional<std::string> stack_id =
      stack_of(*involved, string_member(*involved, "namespace"), kOwnersFollowed);
  if (!stack_id || stack_id->empty()) return;
  if (uplink_.send(frame(event, agent_id_, *stack_id)) != Queued::yes) ++dropped_;
}

std::optional<std::string> KubeEventForwarder::stack_of(const Value& reference, std::string_view ns,
                                                         int owners_left) {
  const std::string uid(string_member(reference, "uid"));
  const auto now = Clock::now();
  if (auto known = stacks_.find(uid); known != stacks_.end() && known->second.expires > now) {
    return known->second.stack_id;
  }
  std::string stack_id;
  auto type = client_.find_type(string_member(reference, "apiVersion"), string_member(reference, "kind"));
  if (type.ok()) {
    auto object = client_.get(*type, type->namespaced ? ns : std::string_view(), string_member(reference, "name"));
    // Another object of that name (the one the event was about was deleted and made again) is not it.
    if (object.ok() && string_at(*object, "/metadata/uid") == uid) {
      stack_id = std::string(annotation_of(*object, kStackAnnotation));
      const Value* controller = stack_id.empty() && owners_left > 0 ? controller_of(*object) : nullptr;
      if (controller != nullptr) {
        std::optional<std::string> owners = stack_of(*controller, ns, owners_left - 1);
        if (!owners) return std::nullopt;
        stack_id = std::move(*owners);
      }
    } else if (!object.ok() && object.error().status != 404) {
      log_("Kubernetes events about " + uid + ": " + object.error().message);
      return std::nullopt;
    }
  } else if (type.error().status != 404) {
    log_("Kubernetes events about " + uid + ": " + type.error().message);
    return std::nullopt;
  }
  if (stacks_.size() >= kStackCacheCapacity) {
    std::erase_if(stacks_, [now](const auto& entry) { return entry.second.expires <= now; });
    if (stacks_.size() >= kStackCacheCapacity) stacks_.clear();
  }
  stacks_[uid] = KnownStack{stack_id, now + kStackTtl};
  return stack_id;
}

}  // namespace sindri::agent
