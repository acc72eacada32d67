#pragma once
// Every call the agent makes to its broker (Brokkr's v1 API under /api/v1,
// with `Authorization: Bearer PAK`), as values. A call's error carries the
// HTTP status (0 when the broker could not be reached), so the loop can count
// refused PAKs and back off from a broker that is down.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/settings.hpp"
#include "agent/sink.hpp"
#include "http/client.hpp"
#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::agent {

struct BrokerError {
  int status = 0;       // 0: the broker could not be reached
  std::string message;  // "POST /api/v1/agents/ID/events: HTTP 500: ..."
  bool refused() const { return status == 401; }
  bool unreachable_or_failing() const { return status == 0 || status >= 500; }
  bool missing_endpoint() const { return status == 404 || status == 405; }
};

template <class T>
using BrokerResult = Result<T, BrokerError>;

class BrokerApi {
 public:
  explicit BrokerApi(const AgentSettings& settings);

  BrokerResult<Ok> ready();          // GET /readyz answers 2xx
  BrokerResult<Value> verify_pak();  // POST /auth/pak
  BrokerResult<Value> find_agent(std::string_view name,
                                 std::string_view cluster_name);  // GET /agents/?name=&cluster_name=
  BrokerResult<Ok> register_with(std::string_view generator_id, std::string_view agent_id);  // 409 counts as done
  // k8s_api_latency_ms is sent only when the cluster was reached.
  BrokerResult<Ok> heartbeat(std::string_view agent_id, std::optional<bool> k8s_reachable,
                             std::optional<int64_t> k8s_api_latency_ms);
  BrokerResult<Value> agent(std::string_view agent_id);
  // mode=full, asked with If-None-Match once the broker has sent an ETag: a
  // 304 hands back the state held, unparsed and uncopied.
  BrokerResult<std::shared_ptr<const std::vector<DeploymentObject>>> target_state(std::string_view agent_id);
  BrokerResult<Ok> deploy_event(std::string_view agent_id, std::string_view deployment_object_id, bool success,
                                std::string_view message);
  BrokerResult<Ok> health_status(std::string_view agent_id, const Value& deployment_objects);
  BrokerResult<Value> deployment_object(std::string_view id);
  BrokerResult<Value> pending_diagnostics(std::string_view agent_id);
  BrokerResult<Value> claim_diagnostic(std::string_view id);
  BrokerResult<Ok> diagnostic_result(std::string_view id, const Value& result);
  BrokerResult<Value> pending_work_orders(std::string_view agent_id);
  BrokerResult<Value> claim_work_order(std::string_view id, std::string_view agent_id);
  BrokerResult<Ok> complete_work_order(std::string_view id, bool success, std::string_view message, bool retryable);
  BrokerResult<Value> pending_webhooks(std::string_view agent_id);
  BrokerResult<Ok> webhook_result(std::string_view delivery_id, const Value& result);

 private:
  // The answer of any 2xx or 304 status; other statuses are errors.
  BrokerResult<http::ClientResponse> exchange(std::string_view method, std::string_view path, const Value* body,
                                              const std::vector<http::Header>& headers = {});
  BrokerResult<Value> call(std::string_view method, std::string_view path, const Value* body = nullptr);

  http::Client http_;
  std::string target_state_etag_;
  std::shared_ptr<const std::vector<DeploymentObject>> target_state_;
};

}  // namespace sindri::agent
