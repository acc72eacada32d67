// On-demand diagnostics: an admin asks an agent about a deployment object;
// that agent claims the request and sends what it gathered.

#include "broker/api/request_body.hpp"
#include "broker/api/routes.hpp"
#include "broker/db/agents.hpp"
#include "broker/db/deployment_objects.hpp"
#include "broker/db/diagnostics.hpp"
#include "value/rfc3339.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker {
namespace {

constexpr TextRule kRequestedByRule{255, true, true, false};
constexpr TextRule kDiagnosticDataRule{0, false, true, false};

ApiResult<db::NewDiagnosticRequest> read_new_request(const http::Request& request) {
  SINDRI_TRY(body, BodyObject::parse(request, "CreateDiagnosticRequest"));
  db::NewDiagnosticRequest out;
  SINDRI_TRY(agent_id, body.required_string("agent_id", kUuidRule));
  SINDRI_TRY(requested_by, body.optional_string("requested_by", kRequestedByRule));
  SINDRI_TRY(retention, body.optional_int("retention_minutes"));
  SINDRI_CHECK(body.finish());
  if (retention && (*retention < 1 || *retention > 1440)) {
    return field_error("invalid_diagnostic_request",
                       "/retention_minutes must be between 1 and 1440, got " + std::to_string(*retention),
                       "/retention_minutes");
  }
  out.agent_id = std::move(agent_id);
  out.requested_by = std::move(requested_by);
  out.retention_minutes = retention.value_or(60);
  return out;
}

ApiResult<http::Response> create_request(Call& call) {
  SINDRI_TRY(object_id, call.id_param());
  SINDRI_TRY(request, read_new_request(call.request));
  request.deployment_object_id = object_id;
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(object_exists, db::deployment_object_exists(connection, object_id));
    if (!object_exists) return not_found("deployment_object", object_id);
    SINDRI_TRY(agent, db::load_agent(connection, request.agent_id));
    SINDRI_TRY(created, db::insert_diagnostic_request(connection, request));
    return json_response(201, created);
  });
}

// The request `id`, which the caller (an admin, or the agent it is for) may
// see.
ApiResult<Value> load_owned(store::Connection& connection, const Identity& caller, std::string_view id,
                            const char* what) {
  SINDRI_TRY(request, db::find_diagnostic_request(connection, id));
  if (!request) return not_found("diagnostic", id);
  if (!caller.is_admin() && !caller.is_agent(request->find("agent_id")->get_string())) {
    return forbidden("diagnostic_not_owned", std::string("not authorized to ") + what + " this diagnostic request");
  }
  return std::move(*request);
}

ApiResult<http::Response> get_diagnostic(Call& call) {
  SINDRI_TRY(id, call.id_param());
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(request, load_owned(connection, call.caller, id, "access"));
    SINDRI_TRY(result, db::find_diagnostic_result(connection, id));
    Value answer = make_object({{"request", std::move(request)}});
    if (result) answer.mutable_object().push_back({Value("result"), std::move(*result)});
    return json_response(200, answer);
  });
}

ApiResult<http::Response> list_pending(Call& call) {
  SINDRI_TRY(agent_id, call.id_param());
  if (!call.caller.is_agent(agent_id)) {
    return forbidden("agent_pak_mismatch", "agent PAK does not match the agent ID");
  }
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(requests, db::list_pending_diagnostics(connection, agent_id));
    return json_response(200, requests);
  });
}

ApiResult<http::Response> claim(Call& call) {
  SINDRI_TRY(id, call.id_param());
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(request, load_owned(connection, call.caller, id, "claim"));
    SINDRI_TRY(claimed, db::claim_diagnostic(connection, id));
    if (!claimed) {
      return conflict("diagnostic_already_claimed",
                      "diagnostic request " + id + " is already " + std::string(request.find("status")->get_string()));
    }
    return json_response(200, *claimed);
  });
}

ApiResult<db::NewDiagnosticResult> read_result(const http::Request& request) {
  SINDRI_TRY(body, BodyObject::parse(request, "SubmitDiagnosticResult"));
  SINDRI_TRY(pod_statuses, body.required_string("pod_statuses", kDiagnosticDataRule));
  SINDRI_TRY(events, body.required_string("events", kDiagnosticDataRule));
  SINDRI_TRY(log_tails, body.optional_string("log_tails", TextRule{0, true, true, false}));
  SINDRI_TRY(collected_at, body.required_string("collected_at"));
  SINDRI_CHECK(body.finish());
  // Stored in the broker's fixed-width form, as every timestamp.
  std::optional<std::string> collected = rfc3339::normalized(collected_at);
  if (!collected) {
    return field_error("invalid_diagnostic_result",
                       "/collected_at must be an RFC 3339 date-time, got \"" + collected_at + "\"", "/collected_at");
  }
  return db::NewDiagnosticResult{std::move(pod_statuses), std::move(events), std::move(log_tails),
                                 std::move(*collected)};
}

ApiResult<http::Response> submit_result(Call& call) {
  SINDRI_TRY(id, call.id_param());
  SINDRI_TRY(result, read_result(call.request));
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(request, load_owned(connection, call.caller, id, "submit a result for"));
    SINDRI_TRY(stored, db::record_diagnostic_result(connection, id, result));
    if (!stored) {
      return conflict("diagnostic_not_claimed", "diagnostic request " + id + " status is " +
                                                    std::string(request.find("status")->get_string()) +
                                                    ", expected 'claimed'");
    }
    return json_response(201, *stored);
  });
}

}  // namespace

void add_diagnostic_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"POST", "/deployment-objects/{id}/diagnostics", Allow::Admin, create_request});
  routes.push_back({"GET", "/diagnostics/{id}", Allow::Admin | Allow::Agent, get_diagnostic});
  routes.push_back({"POST", "/diagnostics/{id}/claim", Allow::Agent, claim});
  routes.push_back({"POST", "/diagnostics/{id}/result", Allow::Agent, submit_result});
  routes.push_back({"GET", "/agents/{id}/diagnostics/pending", Allow::Agent, list_pending});
}

}  // namespace sindri::broker
