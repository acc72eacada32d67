// /admin: the audit log; the broker's settings and connections.

#include <cstdint>

#include "broker/api/query_params.hpp"
#include "broker/api/request_body.hpp"
#include "broker/api/routes.hpp"
#include "broker/db/audit.hpp"

namespace sindri::broker {
namespace {

ApiResult<std::optional<std::string>> optional_text_query(const http::Request& request, std::string_view name) {
  const std::string* text = request.query_param(name);
  if (text == nullptr) return std::optional<std::string>();
  auto checked = check_text(*text, TextRule{255, false, true, false}, name);
  if (!checked.ok()) return bad_request("invalid_query_parameter", checked.error().message);
  return std::optional<std::string>(*text);
}

ApiResult<std::optional<std::string>> optional_uuid(const http::Request& request, std::string_view name) {
  SINDRI_TRY(id, optional_uuid_query(request, name));
  return id.empty() ? std::optional<std::string>() : std::optional<std::string>(std::move(id));
}

ApiResult<db::AuditQuery> read_audit_query(const http::Request& request) {
  db::AuditQuery query;
  SINDRI_TRY(actor_type, optional_text_query(request, "actor_type"));
  if (actor_type && *actor_type != "admin" && *actor_type != "agent" && *actor_type != "generator" &&
      *actor_type != "system") {
    return bad_request("invalid_query_parameter",
                       "actor_type must be one of admin, agent, generator, system, got \"" + *actor_type + "\"");
  }
  query.actor_type = std::move(actor_type);
  SINDRI_TRY(actor_id, optional_uuid(request, "actor_id"));
  query.actor_id = std::move(actor_id);
  SINDRI_TRY(action, optional_text_query(request, "action"));
  query.action = std::move(action);
  SINDRI_TRY(resource_type, optional_text_query(request, "resource_type"));
  query.resource_type = std::move(resource_type);
  SINDRI_TRY(resource_id, optional_uuid(request, "resource_id"));
  query.resource_id = std::move(resource_id);
  SINDRI_TRY(from, optional_timestamp_query(request, "from"));
  query.from = std::move(from);
  SINDRI_TRY(to, optional_timestamp_query(request, "to"));
  query.to = std::move(to);
  SINDRI_TRY(limit, optional_int_query(request, "limit", 1, 1000));
  query.limit = limit.value_or(100);
  SINDRI_TRY(offset, optional_int_query(request, "offset", 0, INT64_MAX));
  query.offset = offset.value_or(0);
  return query;
}

ApiResult<http::Response> list_audit_logs(Call& call) {
  SINDRI_TRY(query, read_audit_query(call.request));
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(page, db::query_audit(connection, query));
    return json_response(200, page);
  });
}

}  // namespace

void add_admin_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"GET", "/admin/audit-logs", Allow::Admin, list_audit_logs});
}

}  // namespace sindri::broker
