#include "broker/db/work_orders.hpp"

#include <algorithm>
#include <chrono>

#include "broker/db/rows.hpp"
#include "broker/db/work_order_matching.hpp"
#include "broker/ids.hpp"

namespace sindri::broker::db {
namespace {

#define SINDRI_WORK_ORDER_COLUMNS                                                                                 \
  "id, work_type, yaml_content, status, claimed_by, claimed_at, claim_timeout_seconds, max_retries, retry_count, " \
  "backoff_seconds, next_retry_after, last_error, last_error_at, created_at, updated_at"
#define SINDRI_WORK_ORDER_LOG_COLUMNS \
  "id, work_type, created_at, claimed_at, completed_at, claimed_by, success, retries_attempted, result_message, yaml_content"

Value log_object(const store::Rows& rows, size_t index) { return row_object(rows, index, {"success"}); }

// Exponential backoff, kept within ten years so that huge settings cannot
// overflow the clock.
std::chrono::seconds retry_delay(int64_t backoff_seconds, int64_t retry_count) {
  constexpr int64_t kCeiling = 10LL * 365 * 24 * 3600;
  int64_t delay = backoff_seconds;
  for (int64_t i = 0; i < retry_count && delay < kCeiling; ++i) delay *= 2;
  return std::chrono::seconds(std::min(delay, kCeiling));
}

// Takes the order out of the queue if it is still as `order` shows it;
// answers the row removed, or nullopt when it changed meanwhile.
ApiResult<std::optional<Value>> take_from_queue(store::Connection& connection, const Value& order) {
  const Value& id = *order.find("id");
  SINDRI_CHECK(connection.query("DELETE FROM work_order_targets WHERE work_order_id = $1", {id}));
  SINDRI_CHECK(connection.query("DELETE FROM work_order_labels WHERE work_order_id = $1", {id}));
  SINDRI_CHECK(connection.query("DELETE FROM work_order_annotations WHERE work_order_id = $1", {id}));
  SINDRI_TRY(rows, connection.query("DELETE FROM work_orders WHERE id = $1 AND updated_at = $2 RETURNING "
                                    SINDRI_WORK_ORDER_COLUMNS,
                                    {id, *order.find("updated_at")}));
  if (rows.empty()) return std::optional<Value>();
  return std::optional<Value>(row_object(rows, 0));
}

}  // namespace

ApiResult<Value> insert_work_order(store::Connection& connection, const NewWorkOrder& order) {
  const Value now(now_timestamp());
  SINDRI_TRY(rows, connection.query("INSERT INTO work_orders (id, work_type, yaml_content, status, "
                                    "claim_timeout_seconds, max_retries, retry_count, backoff_seconds, created_at, "
                                    "updated_at) VALUES ($1, $2, $3, 'PENDING', $4, $5, 0, $6, $7, $7) RETURNING "
                                    SINDRI_WORK_ORDER_COLUMNS,
                                    {Value(new_uuid()), Value(order.work_type), Value(order.yaml_content),
                                     Value(order.claim_timeout_seconds), Value(order.max_retries),
                                     Value(order.backoff_seconds), now}));
  const Value& id = rows.rows[0][0];
  for (const std::string& agent_id : order.agent_ids) {
    SINDRI_CHECK(connection.query(
        "INSERT INTO work_order_targets (id, work_order_id, agent_id, created_at) VALUES ($1, $2, $3, $4)",
        {Value(new_uuid()), id, Value(agent_id), now}));
  }
  for (const std::string& label : order.labels) {
    SINDRI_CHECK(connection.query(
        "INSERT INTO work_order_labels (id, work_order_id, label, created_at) VALUES ($1, $2, $3, $4)",
        {Value(new_uuid()), id, Value(label), now}));
  }
  for (const auto& [key, value] : order.annotations) {
    SINDRI_CHECK(connection.query(
        "INSERT INTO work_order_annotations (id, work_order_id, key, value, created_at) VALUES ($1, $2, $3, $4, $5)",
        {Value(new_uuid()), id, Value(key), Value(value), now}));
  }
  return row_object(rows, 0);
}

ApiResult<std::vector<std::string>> agents_targeted_by_work_order(store::Connection& connection,
                                                                  std::string_view work_order_id) {
  SINDRI_TRY(rows, connection.query("SELECT a.id FROM agents a, work_orders WHERE work_orders.id = $1 AND " SINDRI_LIVE_IN(
                                        "a") " AND " SINDRI_WORK_ORDER_TARGETS("a.id"),
                                    {Value(work_order_id)}));
  std::vector<std::string> agent_ids;
  for (const auto& row : rows.rows) agent_ids.emplace_back(row[0].get_string());
  return agent_ids;
}

ApiResult<Value> list_work_orders(store::Connection& connection, const std::optional<std::string>& status,
                                  const std::optional<std::string>& work_type) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_WORK_ORDER_COLUMNS " FROM work_orders "
                                    "WHERE (CAST($1 AS TEXT) IS NULL OR status = $1) "
                                    "AND (CAST($2 AS TEXT) IS NULL OR work_type = $2) "
                                    "ORDER BY created_at DESC, id DESC",
                                    {nullable_text(status), nullable_text(work_type)}));
  return rows_array(rows);
}

ApiResult<std::optional<Value>> find_work_order(store::Connection& connection, std::string_view id) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_WORK_ORDER_COLUMNS " FROM work_orders WHERE id = $1",
                                    {Value(id)}));
  if (rows.empty()) return std::optional<Value>();
  return std::optional<Value>(row_object(rows, 0));
}

ApiResult<std::optional<Value>> find_logged_work_order(store::Connection& connection, std::string_view id) {
  // Brokkr's shape for a finished order: the settings it no longer has are 0.
  SINDRI_TRY(rows, connection.query(
                       "SELECT id, work_type, yaml_content, "
                       "CASE WHEN success THEN 'COMPLETED' ELSE 'FAILED' END AS status, claimed_by, claimed_at, "
                       "0 AS claim_timeout_seconds, 0 AS max_retries, retries_attempted AS retry_count, "
                       "0 AS backoff_seconds, CAST(NULL AS TEXT) AS next_retry_after, "
                       "CASE WHEN success THEN NULL ELSE result_message END AS last_error, "
                       "CASE WHEN success THEN NULL ELSE completed_at END AS last_error_at, created_at, "
                       "completed_at AS updated_at FROM work_order_log WHERE id = $1",
                       {Value(id)}));
  if (rows.empty()) return std::optional<Value>();
  return std::optional<Value>(row_object(rows, 0));
}

ApiResult<bool> delete_work_order(store::Connection& connection, std::string_view id) {
  SINDRI_TRY(order, find_work_order(connection, id));
  if (!order) return false;
  SINDRI_TRY(taken, take_from_queue(connection, *order));
  return taken.has_value();
}

ApiResult<Value> list_claimable_work_orders(store::Connection& connection, std::string_view agent_id,
                                            const std::optional<std::string>& work_type) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_WORK_ORDER_COLUMNS " FROM work_orders WHERE " SINDRI_CLAIMABLE_AT(
                                        "$2") " AND (CAST($3 AS TEXT) IS NULL OR work_type = $3) "
                                              "AND " SINDRI_WORK_ORDER_TARGETS("$1") " ORDER BY created_at, id",
                                    {Value(agent_id), Value(now_timestamp()), nullable_text(work_type)}));
  Value orders = rows_array(rows);
  for (Value& order : orders.mutable_array()) {
    for (Member& member : order.mutable_object()) {
      const std::string_view key = member.key.get_string();
      if (key == "status") {
        member.value = Value("PENDING");
      } else if (key == "claimed_by" || key == "claimed_at" || key == "next_retry_after") {
        member.value = Value();
      }
    }
  }
  return orders;
}

ApiResult<std::optional<Value>> claim_work_order(store::Connection& connection, std::string_view id,
                                                 std::string_view agent_id) {
  // The timeout never changes after creation, so reading it first leaves the
  // claim itself one conditional statement.
  SINDRI_TRY(timeout, connection.query("SELECT claim_timeout_seconds FROM work_orders WHERE id = $1", {Value(id)}));
  if (timeout.empty()) return std::optional<Value>();
  const auto now = std::chrono::system_clock::now();
  const Value claimed_at(timestamp_at(now));
  const Value expires_at(timestamp_at(now + std::chrono::seconds(timeout.rows[0][0].get_int())));
  SINDRI_TRY(rows, connection.query(
                       "UPDATE work_orders SET status = 'CLAIMED', claimed_by = $2, claimed_at = $3, "
                       "claim_expires_at = $4, next_retry_after = NULL, updated_at = $3 WHERE id = $1 AND "
                       SINDRI_CLAIMABLE_AT("$3") " AND " SINDRI_WORK_ORDER_TARGETS("$2")
                       " AND EXISTS (SELECT 1 FROM agents a WHERE a.id = $2 AND a." SINDRI_LIVE
                       ") RETURNING " SINDRI_WORK_ORDER_COLUMNS,
                       {Value(id), Value(agent_id), claimed_at, expires_at}));
  if (rows.empty()) return std::optional<Value>();
  return std::optional<Value>(row_object(rows, 0));
}

ApiResult<CompletionOutcome> complete_work_order(store::Connection& connection, const Value& order,
                                                 const Completion& completion) {
  const Value& id = *order.find("id");
  const int64_t retries = order.find("retry_count")->get_int() + 1;
  const bool final = completion.success || !completion.retryable || retries > order.find("max_retries")->get_int();
  const auto now = std::chrono::system_clock::now();
  const Value completed_at(timestamp_at(now));
  if (!final) {
    const Value next_retry(timestamp_at(now + retry_delay(order.find("backoff_seconds")->get_int(), retries)));
    SINDRI_TRY(rows, connection.query(
                         "UPDATE work_orders SET status = 'RETRY_PENDING', retry_count = $2, next_retry_after = $3, "
                         "claimed_by = NULL, claimed_at = NULL, claim_expires_at = NULL, last_error = $4, "
                         "last_error_at = $5, updated_at = $5 WHERE id = $1 AND updated_at = $6 RETURNING id",
                         {id, Value(retries), next_retry, nullable_text(completion.message), completed_at,
                          *order.find("updated_at")}));
    if (rows.empty()) return not_found("work_order", id.get_string());
    return CompletionOutcome{};
  }
  SINDRI_TRY(taken, take_from_queue(connection, order));
  if (!taken) return not_found("work_order", id.get_string());
  SINDRI_TRY(rows, connection.query("INSERT INTO work_order_log (" SINDRI_WORK_ORDER_LOG_COLUMNS
                                    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING "
                                    SINDRI_WORK_ORDER_LOG_COLUMNS,
                                    {id, *taken->find("work_type"), *taken->find("created_at"),
                                     *taken->find("claimed_at"), completed_at, *taken->find("claimed_by"),
                                     Value(completion.success), *taken->find("retry_count"),
                                     nullable_text(completion.message), *taken->find("yaml_content")}));
  return CompletionOutcome{log_object(rows, 0)};
}

ApiResult<Value> list_work_order_log(store::Connection& connection, const WorkOrderLogQuery& query) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_WORK_ORDER_LOG_COLUMNS " FROM work_order_log "
                                    "WHERE (CAST($1 AS TEXT) IS NULL OR work_type = $1) "
                                    "AND (CAST($2 AS BOOLEAN) IS NULL OR success = $2) "
                                    "AND (CAST($3 AS TEXT) IS NULL OR claimed_by = $3) "
                                    "ORDER BY completed_at DESC, id DESC LIMIT $4",
                                    {nullable_text(query.work_type),
                                     query.success ? Value(*query.success) : Value(),
                                     nullable_text(query.agent_id), Value(query.limit.value_or(INT64_MAX))}));
  Array entries;
  for (size_t i = 0; i < rows.size(); ++i) entries.push_back(log_object(rows, i));
  return Value(std::move(entries));
}

ApiResult<Value> load_work_order_log(store::Connection& connection, std::string_view id) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_WORK_ORDER_LOG_COLUMNS " FROM work_order_log WHERE id = $1",
                                    {Value(id)}));
  if (rows.empty()) {
    return ApiError{404, "work_order_log_entry_not_found", "work order log entry " + std::string(id) + " not found",
                    Value(), std::nullopt};
  }
  return log_object(rows, 0);
}

ApiResult<int64_t> release_expired_work_order_claims(store::Connection& connection) {
  SINDRI_TRY(rows, connection.query("UPDATE work_orders SET status = 'PENDING', claimed_by = NULL, claimed_at = NULL, "
                                    "claim_expires_at = NULL, next_retry_after = NULL, updated_at = $1 "
                                    "WHERE status IN ('CLAIMED', 'RETRY_PENDING') AND " SINDRI_CLAIMABLE_AT("$1")
                                    " RETURNING id",
                                    {Value(now_timestamp())}));
  return static_cast<int64_t>(rows.size());
}

}  // namespace sindri::broker::db
