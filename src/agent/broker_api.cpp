#include "agent/broker_api.hpp"

#include "value/json.hpp"
#include "value/object_literal.hpp"
#include "value/members.hpp"

namespace sindri::agent {
namespace {

std::string join(std::string_view a, std::string_view b, std::string_view c = {}) {
  std::string out(a);
  out += http::percent_encode(b);
  out += c;
  return out;
}

// The broker's message from an ErrorResponse body, or the body's start.
std::string answer_text(const std::string& body) {
  auto parsed = parse_json(body);
  if (parsed.ok()) {
    if (const Value* message = parsed->find("message"); message && message->is_string()) {
      return std::string(message->get_string());
    }
  }
  return body.substr(0, 200);
}

BrokerResult<Ok> nothing(BrokerResult<Value> answer) {
  if (!answer.ok()) return std::move(answer).error();
  return Ok{};
}

std::string api_path(std::string_view path) {
  return path == "/readyz" ? std::string(path) : "/api/v1" + std::string(path);
}

}  // namespace

BrokerApi::BrokerApi(const AgentSettings& settings) : http_(settings.broker_url) {
  http_.set_authorization("Bearer " + settings.pak);
  http_.set_timeout_ms(static_cast<long>(settings.broker_timeout * 1000));
  if (!settings.ca_file.empty()) http_.set_ca_file(settings.ca_file);
  if (settings.insecure_skip_tls_verify) {
    http::Client::TlsSettings unverified;
    unverified.insecure_skip_verify = true;
    http_.set_tls(std::move(unverified));
  }
  http_.set_untrusted_certificate_advice("give its CA with agent.ca_file (--ca-file, SINDRI_AGENT_CA_FILE)");
}

BrokerResult<http::ClientResponse> BrokerApi::exchange(std::string_view method, std::string_view path,
                                                      const Value* body, const std::vector<http::Header>& headers) {
  const std::string full_path = api_path(path);
  auto response = http_.request(method, full_path, body ? to_json(*body) : std::string(), "application/json", headers);
  if (!response.ok()) return BrokerError{0, response.error().message};
  // 304 answers a conditional GET: what the caller holds is current.
  if ((response->status < 200 || response->status >= 300) && response->status != 304) {
    return BrokerError{response->status, std::string(method) + " " + full_path + ": HTTP " +
                                             std::to_string(response->status) + ": " + answer_text(response->body)};
  }
  return std::move(response).value();
}

BrokerResult<Value> BrokerApi::call(std::string_view method, std::string_view path, const Value* body) {
  SINDRI_TRY(response, exchange(method, path, body));
  if (response.body.empty()) return Value();
  auto parsed = parse_json(response.body);
  if (!parsed.ok()) {
    return BrokerError{response.status,
                       std::string(method) + " " + api_path(path) + ": the answer is not JSON: " + parsed.error().describe()};
  }
  return std::move(parsed).value();
}

// Only the status counts: Sindri's broker answers JSON, Brokkr's the text "Ready".
BrokerResult<Ok> BrokerApi::ready() {
  SINDRI_TRY(answer, exchange("GET", "/readyz", nullptr));
  return Ok{};
}

BrokerResult<Value> BrokerApi::verify_pak() { return call("POST", "/auth/pak"); }

BrokerResult<Value> BrokerApi::find_agent(std::string_view name, std::string_view cluster_name) {
  return call("GET", join("/agents/?name=", name, "&cluster_name=") + http::percent_encode(cluster_name));
}

BrokerResult<Ok> BrokerApi::register_with(std::string_view generator_id, std::string_view agent_id) {
  const Value body = make_object({{"agent_id", Value(agent_id)}});
  auto answer = call("POST", join("/generators/", generator_id, "/register"), &body);
  if (!answer.ok() && answer.error().status == 409) return Ok{};
  return nothing(std::move(answer));
}

BrokerResult<Ok> BrokerApi::heartbeat(std::string_view agent_id, std::optional<bool> k8s_reachable,
                                      std::optional<int64_t> k8s_api_latency_ms) {
  Value body{Object{}};
  if (k8s_reachable) body.set("k8s_reachable", Value(*k8s_reachable));
  if (k8s_api_latency_ms) body.set("k8s_api_latency_ms", Value(*k8s_api_latency_ms));
  return nothing(call("POST", join("/agents/", agent_id, "/heartbeat"), &body));
}

BrokerResult<Value> BrokerApi::agent(std::string_view agent_id) { return call("GET", join("/agents/", agent_id)); }

BrokerResult<std::shared_ptr<const std::vector<DeploymentObject>>> BrokerApi::target_state(std::string_view agent_id) {
  const std::string path = join("/agents/", agent_id, "/target-state?mode=full");
  std::vector<http::Header> conditional;
  if (target_state_) conditional.push_back({"If-None-Match", target_state_etag_});
  SINDRI_TRY(response, exchange("GET", path, nullptr, conditional));
  if (response.status == 304 && target_state_) return target_state_;
  const std::string what = "GET " + api_path(path);
  auto answer = parse_json(response.body);
  if (!answer.ok()) return BrokerError{response.status, what + ": the answer is not JSON: " + answer.error().describe()};
  if (!answer->is_array()) return BrokerError{200, what + ": expected a list of deployment objects"};
  auto objects = std::make_shared<std::vector<DeploymentObject>>();
  objects->reserve(answer->size());
  for (const Value& item : answer->get_array()) {
    DeploymentObject object;
    object.id = string_member(item, "id");
    object.stack_id = string_member(item, "stack_id");
    object.stack_name = string_member(item, "stack_name");
    object.checksum = string_member(item, "yaml_checksum");
    object.yaml = string_member(item, "yaml_content");
    const Value* marker = item.find("is_deletion_marker");
    object.is_deletion_marker = marker && marker->is_bool() && marker->get_bool();
    if (object.id.empty() || object.stack_id.empty()) {
      return BrokerError{200, what + ": a deployment object without id or stack_id"};
    }
    objects->push_back(std::move(object));
  }
  // A broker without ETags (Brokkr's) sends the whole state every time.
  target_state_etag_ = std::string(response.header("ETag"));
  target_state_ = target_state_etag_.empty() ? nullptr : objects;
  return std::shared_ptr<const std::vector<DeploymentObject>>(std::move(objects));
}

BrokerResult<Ok> BrokerApi::deploy_event(std::string_view agent_id, std::string_view deployment_object_id, bool success,
                                         std::string_view message) {
  const Value body = make_object({
      {"agent_id", Value(agent_id)},
      {"deployment_object_id", Value(deployment_object_id)},
      {"event_type", Value("DEPLOY")},
      {"status", Value(success ? "SUCCESS" : "FAILURE")},
      {"message", Value(message)},
  });
  return nothing(call("POST", join("/agents/", agent_id, "/events"), &body));
}

BrokerResult<Ok> BrokerApi::health_status(std::string_view agent_id, const Value& deployment_objects) {
  const Value body = make_object({{"deployment_objects", deployment_objects}});
  return nothing(call("PATCH", join("/agents/", agent_id, "/health-status"), &body));
}

BrokerResult<Value> BrokerApi::deployment_object(std::string_view id) {
  return call("GET", join("/deployment-objects/", id));
}

BrokerResult<Value> BrokerApi::pending_diagnostics(std::string_view agent_id) {
  return call("GET", join("/agents/", agent_id, "/diagnostics/pending"));
}

BrokerResult<Value> BrokerApi::claim_diagnostic(std::string_view id) {
  return call("POST", join("/diagnostics/", id, "/claim"));
}

BrokerResult<Ok> BrokerApi::diagnostic_result(std::string_view id, const Value& result) {
  return nothing(call("POST", join("/diagnostics/", id, "/result"), &result));
}

BrokerResult<Value> BrokerApi::pending_work_orders(std::string_view agent_id) {
  return call("GET", join("/agents/", agent_id, "/work-orders/pending"));
}

BrokerResult<Value> BrokerApi::claim_work_order(std::string_view id, std::string_view agent_id) {
  const Value body = make_object({{"agent_id", Value(agent_id)}});
  return call("POST", join("/work-orders/", id, "/claim"), &body);
}

BrokerResult<Ok> BrokerApi::complete_work_order(std::string_view id, bool success, std::string_view message,
                                                bool retryable) {
  const Value body = make_object({
      {"success", Value(success)},
      {"message", Value(message)},
      {"retryable", Value(retryable)},
  });
  return nothing(call("POST", join("/work-orders/", id, "/complete"), &body));
}

BrokerResult<Value> BrokerApi::pending_webhooks(std::string_view agent_id) {
  return call("GET", join("/agents/", agent_id, "/webhooks/pending"));
}

BrokerResult<Ok> BrokerApi::webhook_result(std::string_view delivery_id, const Value& result) {
  return nothing(call("POST", join("/webhook-deliveries/", delivery_id, "/result"), &result));
}

}  // namespace sindri::agent
