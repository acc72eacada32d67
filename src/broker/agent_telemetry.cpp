#include "broker/agent_telemetry.hpp"

#include "broker/api/request_body.hpp"
#include "broker/db/telemetry.hpp"
#include "broker/pushes.hpp"
#include "value/object_literal.hpp"
#include "value/rfc3339.hpp"

namespace sindri::broker {
namespace {

// Kubernetes caps names at 253 characters and an event's message at 1 KiB;
// these leave room and bound what one frame stores.
constexpr TextRule kKubeName{253, false, false, false};
constexpr TextRule kKubeText{32 * 1024, true, true, false};
constexpr TextRule kLogLine{64 * 1024, true, true, false};

ApiResult<std::string> required_timestamp(BodyObject& body, std::string_view key) {
  SINDRI_TRY(text, body.required_string(key));
  std::optional<std::string> normalized = rfc3339::normalized(text);
  if (!normalized) {
    const std::string pointer = "/" + std::string(key);
    return field_error("invalid_field", pointer + " must be an RFC 3339 timestamp (2026-01-02T03:04:05Z), got \"" +
                                            text + "\"",
                       pointer);
  }
  return *normalized;
}

ApiResult<Value> involved_object(BodyObject& body) {
  SINDRI_TRY(object, body.required_value("involved_object"));
  if (!object.is_object()) {
    return field_error("invalid_field", "/involved_object must be an object {api_version, kind, namespace, name, uid}",
                       "/involved_object");
  }
  for (std::string_view key : {"api_version", "kind", "name"}) {
    const Value* member = object.find(key);
    if (member == nullptr || !member->is_string() || member->get_string().empty()) {
      const std::string pointer = "/involved_object/" + std::string(key);
      return field_error("missing_field", pointer + " must be a non-empty string", pointer);
    }
  }
  return object;
}

ApiResult<Value> store_k8s_event(const Services& services, const std::string& agent_id, BodyObject& body) {
  db::NewK8sEvent event;
  event.agent_id = agent_id;
  body.ignore("agent_id");
  SINDRI_TRY(stack_id, body.required_string("stack_id", kUuidRule));
  event.stack_id = std::move(stack_id);
  SINDRI_TRY(observed_at, required_timestamp(body, "observed_at"));
  event.observed_at = std::move(observed_at);
  SINDRI_TRY(reason, body.required_string("reason", kKubeText));
  event.reason = std::move(reason);
  SINDRI_TRY(message, body.required_string("message", kKubeText));
  event.message = std::move(message);
  SINDRI_TRY(event_type, body.required_string("event_type", kKubeName));
  event.event_type = std::move(event_type);
  SINDRI_TRY(source, body.optional_string("source", kKubeText));
  event.source = std::move(source);
  SINDRI_TRY(object, involved_object(body));
  event.involved_object = std::move(object);
  return in_write<Value>(services.db,
                         [&](store::Connection& connection) { return db::insert_k8s_event(connection, event); });
}

ApiResult<Value> store_pod_log_line(const Services& services, const std::string& agent_id, BodyObject& body) {
  db::NewPodLogLine line;
  line.agent_id = agent_id;
  body.ignore("agent_id");
  SINDRI_TRY(stack_id, body.required_string("stack_id", kUuidRule));
  line.stack_id = std::move(stack_id);
  SINDRI_TRY(pod_namespace, body.required_string("namespace", kKubeName));
  line.pod_namespace = std::move(pod_namespace);
  SINDRI_TRY(pod, body.required_string("pod", kKubeName));
  line.pod = std::move(pod);
  SINDRI_TRY(container, body.required_string("container", kKubeName));
  line.container = std::move(container);
  SINDRI_TRY(ts, required_timestamp(body, "ts"));
  line.ts = std::move(ts);
  SINDRI_TRY(text, body.required_string("line", kLogLine));
  line.line = std::move(text);
  return in_write<Value>(services.db,
                         [&](store::Connection& connection) { return db::insert_pod_log_line(connection, line); });
}

// A gap is shown, never stored, once its stack is one the agent targeted:
// built from the checked fields and the socket's agent, so that nothing an
// agent adds reaches viewers.
ApiResult<Value> check_log_gap(const Services& services, const std::string& agent_id, BodyObject& body) {
  body.ignore("agent_id");
  SINDRI_TRY(stack_id, body.required_string("stack_id", kUuidRule));
  SINDRI_TRY(since_ts, required_timestamp(body, "since_ts"));
  SINDRI_TRY(dropped, body.optional_int("dropped_count", 0, INT64_MAX));
  if (!dropped) return field_error("missing_field", "/dropped_count is required by LogGap", "/dropped_count");
  SINDRI_TRY(reason, body.required_string("reason"));
  if (reason != "rate_limit" && reason != "buffer_full" && reason != "disconnected") {
    return field_error("invalid_field", "/reason must be one of rate_limit, buffer_full, disconnected, got \"" +
                                            reason + "\"",
                       "/reason");
  }
  SINDRI_CHECK(in_read<Ok>(services.db, [&](store::Connection& connection) {
    return db::check_reporting_stack(connection, agent_id, stack_id);
  }));
  return make_object({{"agent_id", Value(agent_id)},
                      {"stack_id", Value(stack_id)},
                      {"since_ts", Value(since_ts)},
                      {"dropped_count", Value(*dropped)},
                      {"reason", Value(reason)}});
}

}  // namespace

bool is_telemetry_frame(std::string_view type) {
  return type == "k8s_event" || type == "pod_log_line" || type == "log_gap";
}

ApiResult<Ok> take_telemetry(const Services& services, const std::string& agent_id, std::string_view type,
                             const Value& frame_body) {
  const std::string schema = type == "k8s_event" ? "K8sEvent" : type == "pod_log_line" ? "PodLogLine" : "LogGap";
  BodyObject body(frame_body, schema);
  ApiResult<Value> shown = type == "k8s_event"      ? store_k8s_event(services, agent_id, body)
                           : type == "pod_log_line" ? store_pod_log_line(services, agent_id, body)
                                                    : check_log_gap(services, agent_id, body);
  if (!shown.ok()) return shown.error();
  const Value* stack_id = shown->find("stack_id");
  show_on_stack(services, std::string(stack_id->get_string()), type, *shown);
  return Ok{};
}

}  // namespace sindri::broker
