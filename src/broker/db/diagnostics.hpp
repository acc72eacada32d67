#pragma once
// On-demand diagnostics (Brokkr's migration 11): an admin asks one agent to
// gather pod statuses, events and log tails about a deployment object; the
// agent claims the request and sends one result. A request lives for its
// retention (expires_at); past it, a pending one reads as expired and a
// claimed one as failed, and the cleanup pass deletes it with its result.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "broker/api_error.hpp"
#include "store/database.hpp"

namespace sindri::broker::db {

struct NewDiagnosticRequest {
  std::string agent_id;
  std::string deployment_object_id;
  std::optional<std::string> requested_by;
  int64_t retention_minutes = 60;
};
ApiResult<Value> insert_diagnostic_request(store::Connection& connection, const NewDiagnosticRequest& request);

// The request `id`, or nullopt.
ApiResult<std::optional<Value>> find_diagnostic_request(store::Connection& connection, std::string_view id);
// The result of request `request_id`, or nullopt.
ApiResult<std::optional<Value>> find_diagnostic_result(store::Connection& connection, std::string_view request_id);

// The agent's pending, unexpired requests, oldest first.
ApiResult<Value> list_pending_diagnostics(store::Connection& connection, std::string_view agent_id);

// Claims the pending, unexpired request `id` in one conditional statement;
// nullopt when it is not.
ApiResult<std::optional<Value>> claim_diagnostic(store::Connection& connection, std::string_view id);

struct NewDiagnosticResult {
  std::string pod_statuses;
  std::string events;
  std::optional<std::string> log_tails;
  std::string collected_at;
};
// Completes the claimed, unexpired request and stores its result; nullopt
// when the request is not claimed (or expired).
ApiResult<std::optional<Value>> record_diagnostic_result(store::Connection& connection, std::string_view request_id,
                                                         const NewDiagnosticResult& result);

// The cleanup pass: deletes requests past their retention and their results.
// Answers how many requests.
ApiResult<int64_t> delete_expired_diagnostics(store::Connection& connection);

}  // namespace sindri::broker::db
