#include "broker/db/diagnostics.hpp"

#include <chrono>

#include "broker/db/rows.hpp"
#include "broker/ids.hpp"

namespace sindri::broker::db {
namespace {

#define SINDRI_DIAGNOSTIC_REQUEST_COLUMNS \
  "id, agent_id, deployment_object_id, status, requested_by, created_at, claimed_at, completed_at, expires_at"
#define SINDRI_DIAGNOSTIC_RESULT_COLUMNS "id, request_id, pod_statuses, events, log_tails, collected_at, created_at"

// The status as the cleanup pass would leave it: a request past its expiry
// that nobody finished is expired (never claimed) or failed (claimed).
Value request_object(const store::Rows& rows, size_t index, std::string_view now) {
  Value request = row_object(rows, index);
  const Value* expires_at = request.find("expires_at");
  if (expires_at == nullptr || !expires_at->is_string() || expires_at->get_string() >= now) return request;
  for (Member& member : request.mutable_object()) {
    if (member.key.get_string() != "status" || !member.value.is_string()) continue;
    if (member.value.get_string() == "pending") member.value = Value("expired");
    if (member.value.get_string() == "claimed") member.value = Value("failed");
  }
  return request;
}

}  // namespace

ApiResult<Value> insert_diagnostic_request(store::Connection& connection, const NewDiagnosticRequest& request) {
  const auto now = std::chrono::system_clock::now();
  const std::string created_at = timestamp_at(now);
  SINDRI_TRY(rows, connection.query("INSERT INTO diagnostic_requests (id, agent_id, deployment_object_id, status, "
                                    "requested_by, created_at, expires_at) VALUES ($1, $2, $3, 'pending', $4, $5, $6) "
                                    "RETURNING " SINDRI_DIAGNOSTIC_REQUEST_COLUMNS,
                                    {Value(new_uuid()), Value(request.agent_id), Value(request.deployment_object_id),
                                     nullable_text(request.requested_by), Value(created_at),
                                     Value(timestamp_at(now + std::chrono::minutes(request.retention_minutes)))}));
  return request_object(rows, 0, created_at);
}

ApiResult<std::optional<Value>> find_diagnostic_request(store::Connection& connection, std::string_view id) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_DIAGNOSTIC_REQUEST_COLUMNS " FROM diagnostic_requests WHERE id = $1",
                                    {Value(id)}));
  if (rows.empty()) return std::optional<Value>();
  return std::optional<Value>(request_object(rows, 0, now_timestamp()));
}

ApiResult<std::optional<Value>> find_diagnostic_result(store::Connection& connection, std::string_view request_id) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_DIAGNOSTIC_RESULT_COLUMNS
                                    " FROM diagnostic_results WHERE request_id = $1",
                                    {Value(request_id)}));
  if (rows.empty()) return std::optional<Value>();
  return std::optional<Value>(row_object(rows, 0));
}

ApiResult<Value> list_pending_diagnostics(store::Connection& connection, std::string_view agent_id) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_DIAGNOSTIC_REQUEST_COLUMNS " FROM diagnostic_requests "
                                    "WHERE agent_id = $1 AND status = 'pending' AND expires_at > $2 "
                                    "ORDER BY created_at, id",
                                    {Value(agent_id), Value(now_timestamp())}));
  return rows_array(rows);
}

ApiResult<std::optional<Value>> claim_diagnostic(store::Connection& connection, std::string_view id) {
  const std::string now = now_timestamp();
  SINDRI_TRY(rows, connection.query("UPDATE diagnostic_requests SET status = 'claimed', claimed_at = $2 "
                                    "WHERE id = $1 AND status = 'pending' AND expires_at > $2 "
                                    "RETURNING " SINDRI_DIAGNOSTIC_REQUEST_COLUMNS,
                                    {Value(id), Value(now)}));
  if (rows.empty()) return std::optional<Value>();
  return std::optional<Value>(request_object(rows, 0, now));
}

ApiResult<std::optional<Value>> record_diagnostic_result(store::Connection& connection, std::string_view request_id,
                                                         const NewDiagnosticResult& result) {
  const Value now(now_timestamp());
  SINDRI_TRY(completed, connection.query("UPDATE diagnostic_requests SET status = 'completed', completed_at = $2 "
                                         "WHERE id = $1 AND status = 'claimed' AND expires_at > $2 RETURNING id",
                                         {Value(request_id), now}));
  if (completed.empty()) return std::optional<Value>();
  SINDRI_TRY(rows, connection.query("INSERT INTO diagnostic_results (" SINDRI_DIAGNOSTIC_RESULT_COLUMNS
                                    ") VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING " SINDRI_DIAGNOSTIC_RESULT_COLUMNS,
                                    {Value(new_uuid()), Value(request_id), Value(result.pod_statuses),
                                     Value(result.events), nullable_text(result.log_tails), Value(result.collected_at),
                                     now}));
  return std::optional<Value>(row_object(rows, 0));
}

ApiResult<int64_t> delete_expired_diagnostics(store::Connection& connection) {
  const Value now(now_timestamp());
  SINDRI_CHECK(connection.query("DELETE FROM diagnostic_results WHERE request_id IN "
                                "(SELECT id FROM diagnostic_requests WHERE expires_at < $1)",
                                {now}));
  SINDRI_TRY(rows, connection.query("DELETE FROM diagnostic_requests WHERE expires_at < $1 RETURNING id", {now}));
  return static_cast<int64_t>(rows.size());
}

}  // namespace sindri::broker::db
