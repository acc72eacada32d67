#include "agent/workloads/diagnostics.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "agent/workloads/pod_attribution.hpp"
#include "value/rfc3339.hpp"
#include "value/json.hpp"
#include "value/object_literal.hpp"
#include "value/pointer.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::agent {

namespace {

constexpr size_t kMaxEventsPerNamespace = 50;
constexpr int kLogTailLines = 100;

// The member at `pointer`, or null: Brokkr's Option fields.
Value at_or_null(const Value& root, std::string_view pointer) {
  const Value* value = follow_pointer(root, pointer);
  return value ? *value : Value();
}

std::string text_at(const Value& root, std::string_view pointer, std::string_view otherwise = {}) {
  const Value* value = follow_pointer(root, pointer);
  return std::string(value && value->is_string() ? value->get_string() : otherwise);
}

// The namespaces the documents name, first seen first; `fallback` for a
// document without one, and alone when nothing can be read.
std::vector<std::string> namespaces_of(std::string_view yaml, const std::string& fallback) {
  std::vector<std::string> namespaces;
  if (auto documents = parse_yaml_stream(yaml); documents.ok()) {
    for (const YamlDocument& document : *documents) {
      if (!document.value.is_object()) continue;
      std::string namespace_ = text_at(document.value, "/metadata/namespace");
      if (namespace_.empty()) namespace_ = fallback;
      if (std::find(namespaces.begin(), namespaces.end(), namespace_) == namespaces.end()) {
        namespaces.push_back(std::move(namespace_));
      }
    }
  }
  if (namespaces.empty()) namespaces.push_back(fallback);
  return namespaces;
}

// Brokkr's ContainerStatus: the current state as one word with its reason and message.
Value container_status_of(const Value& container) {
  std::string state = "Unknown";
  Value reason, message;
  if (const Value* running = follow_pointer(container, "/state/running")) {
    state = "Running";
    if (const Value* started = running->find("startedAt"); started && started->is_string()) {
      message = Value("Started at " + std::string(started->get_string()));
    }
  } else if (const Value* waiting = follow_pointer(container, "/state/waiting")) {
    state = "Waiting";
    reason = at_or_null(*waiting, "/reason");
    message = at_or_null(*waiting, "/message");
  } else if (const Value* terminated = follow_pointer(container, "/state/terminated")) {
    state = "Terminated";
    reason = at_or_null(*terminated, "/reason");
    message = at_or_null(*terminated, "/message");
  }
  const Value* ready = container.find("ready");
  const Value* restarts = container.find("restartCount");
  return make_object({{"name", text_at(container, "/name")},
                      {"ready", ready && ready->is_bool() && ready->get_bool()},
                      {"restart_count", restarts && restarts->is_int() ? restarts->get_int() : 0},
                      {"state", state},
                      {"state_reason", reason},
                      {"state_message", message}});
}

// Brokkr's PodStatus.
Value pod_status_of(const Value& pod) {
  Array conditions, containers;
  const Value* status = pod.find("status");
  if (status && status->is_object()) {
    if (const Value* list = status->find("conditions"); list && list->is_array()) {
      for (const Value& condition : list->get_array()) {
        conditions.push_back(make_object({{"condition_type", text_at(condition, "/type")},
                                          {"status", text_at(condition, "/status")},
                                          {"reason", at_or_null(condition, "/reason")},
                                          {"message", at_or_null(condition, "/message")}}));
      }
    }
    if (const Value* list = status->find("containerStatuses"); list && list->is_array()) {
      for (const Value& container : list->get_array()) containers.push_back(container_status_of(container));
    }
  }
  return make_object({{"name", text_at(pod, "/metadata/name")},
                      {"namespace", text_at(pod, "/metadata/namespace")},
                      {"phase", text_at(pod, "/status/phase", "Unknown")},
                      {"conditions", Value(std::move(conditions))},
                      {"containers", Value(std::move(containers))}});
}

// Brokkr's EventInfo.
Value event_info_of(const Value& event) {
  return make_object({{"event_type", at_or_null(event, "/type")},
                      {"reason", at_or_null(event, "/reason")},
                      {"message", at_or_null(event, "/message")},
                      {"involved_object", text_at(event, "/involvedObject/name", "unknown")},
                      {"involved_object_kind", at_or_null(event, "/involvedObject/kind")},
                      {"first_timestamp", at_or_null(event, "/firstTimestamp")},
                      {"last_timestamp", at_or_null(event, "/lastTimestamp")},
                      {"count", at_or_null(event, "/count")}});
}

// When an event last happened; events.k8s.io-style events carry only eventTime.
int64_t last_seen_micros(const Value& event) {
  for (std::string_view pointer : {"/lastTimestamp", "/eventTime", "/firstTimestamp"}) {
    const Value* time = follow_pointer(event, pointer);
    if (!time || !time->is_string()) continue;
    if (std::optional<int64_t> micros = rfc3339::parse_micros(time->get_string())) return *micros;
  }
  return INT64_MIN;
}

// The namespace's most recent events, newest first.
Result<std::vector<Value>, kube::KubeError> recent_events(kube::Client& client, const std::string& namespace_) {
  SINDRI_TRY(listed, client.list(core_v1_type("Event", "events"), namespace_));
  std::stable_sort(listed.begin(), listed.end(),
                   [](const Value& a, const Value& b) { return last_seen_micros(a) > last_seen_micros(b); });
  if (listed.size() > kMaxEventsPerNamespace) listed.resize(kMaxEventsPerNamespace);
  std::vector<Value> infos;
  for (const Value& event : listed) infos.push_back(event_info_of(event));
  return infos;
}

// The last lines of each container of `pods`, by "pod/container"; one that
// cannot be read says why in place of its lines.
void add_log_tails(kube::Client& client, const std::string& namespace_, const std::vector<Value>& pods,
                   Value& log_tails) {
  for (const Value& pod : pods) {
    const std::string name = text_at(pod, "/metadata/name");
    const Value* containers = follow_pointer(pod, "/spec/containers");
    if (!containers || !containers->is_array()) continue;
    for (const Value& container : containers->get_array()) {
      const std::string container_name = text_at(container, "/name");
      auto text = client.get_text("/api/v1/namespaces/" + namespace_ + "/pods/" + name + "/log?container=" +
                                  container_name + "&tailLines=" + std::to_string(kLogTailLines));
      log_tails.set(name + "/" + container_name, text.ok() ? Value(*text) : Value("Error: " + text.error().message));
    }
  }
}

Value error_form(const std::string& message) {
  return make_object({{"pod_statuses", "[]"},
                      {"events", to_json(Value(Array{make_object({{"error", message}})}))},
                      {"log_tails", Value()},
                      {"collected_at", rfc3339::now()}});
}

}  // namespace

Value collect_diagnostics(kube::Client& client, std::string_view deployment_object_id,
                          std::string_view deployment_object_yaml, std::string_view watch_namespace) {
  const std::string fallback = watch_namespace.empty() ? "default" : std::string(watch_namespace);
  Array pod_statuses, events;
  Value log_tails = Value(Object{});
  PodAttributor attributor(client);
  for (const std::string& namespace_ : namespaces_of(deployment_object_yaml, fallback)) {
    auto listed = list_pods(client, namespace_);
    if (!listed.ok()) return error_form(listed.error().message);
    const std::vector<Value> pods = attributor.pods_of(*listed, deployment_object_id);
    for (const Value& pod : pods) pod_statuses.push_back(pod_status_of(pod));
    auto recent = recent_events(client, namespace_);
    if (!recent.ok()) return error_form(recent.error().message);
    events.insert(events.end(), recent->begin(), recent->end());
    add_log_tails(client, namespace_, pods, log_tails);
  }
  return make_object({{"pod_statuses", to_json(Value(std::move(pod_statuses)))},
                      {"events", to_json(Value(std::move(events)))},
                      {"log_tails", to_json(log_tails)},
                      {"collected_at", rfc3339::now()}});
}

}  // namespace sindri::agent
