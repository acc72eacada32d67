#include "broker/db/webhooks.hpp"

#include "broker/db/rows.hpp"
#include "broker/ids.hpp"
#include "value/json.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker::db {
namespace {

#define SINDRI_SUBSCRIPTION_COLUMNS                                                                      \
  "id, name, url_encrypted, auth_header_encrypted, signing_secret_encrypted, event_types, filters, "     \
  "target_labels, enabled, max_retries, timeout_seconds, created_by, created_at, updated_at"
#define SINDRI_DELIVERY_COLUMNS                                                                           \
  "id, subscription_id, event_type, event_id, payload, target_labels, status, acquired_by, acquired_until, " \
  "attempts, last_attempt_at, next_retry_at, last_error, created_at, completed_at"
#define SINDRI_CLAIMED_COLUMNS "id, subscription_id, event_type, payload, attempts"

// Claimable: pending or failed and due, or acquired by someone whose lease
// ran out ($1 is now).
#define SINDRI_CLAIMABLE                                                                      \
  "((d.status IN ('pending', 'failed') AND d.next_retry_at <= $1) OR "                         \
  "(d.status = 'acquired' AND d.acquired_until < $1))"
// Every target label of the subscription is among the agent's ($4) labels.
#define SINDRI_AGENT_HAS_LABELS                                                                       \
  "NOT EXISTS (SELECT 1 FROM webhook_subscription_labels l WHERE l.subscription_id = d.subscription_id " \
  "AND NOT EXISTS (SELECT 1 FROM agent_labels a WHERE a.agent_id = $4 AND a.label = l.label))"
#define SINDRI_CLAIM(candidates, locking)                                                                 \
  "UPDATE webhook_deliveries SET status = 'acquired', acquired_until = $2, acquired_by = $4 WHERE id IN " \
  "(SELECT d.id FROM webhook_deliveries d WHERE " candidates " ORDER BY d.next_retry_at LIMIT $3" locking   \
  ") RETURNING " SINDRI_CLAIMED_COLUMNS
#define SINDRI_BROKER_CANDIDATES "d.target_labels IS NULL AND " SINDRI_CLAIMABLE
#define SINDRI_AGENT_CANDIDATES "d.target_labels IS NOT NULL AND " SINDRI_CLAIMABLE " AND " SINDRI_AGENT_HAS_LABELS

Value json_text(const Value& value) { return Value(to_json(value)); }

std::vector<std::string> strings_of(const Value& cell) {
  std::vector<std::string> out;
  if (!cell.is_string()) return out;
  auto parsed = parse_json(cell.get_string());
  if (!parsed.ok() || !parsed->is_array()) return out;
  for (const Value& item : parsed->get_array()) {
    if (item.is_string()) out.emplace_back(item.get_string());
  }
  return out;
}

std::optional<std::string> optional_text(const Value& cell) {
  return cell.is_string() ? std::optional<std::string>(cell.get_string()) : std::nullopt;
}
Value text_or_null(const std::optional<std::string>& text) { return text ? Value(*text) : Value(); }

Subscription subscription_of(const store::Rows& rows, size_t index) {
  const auto& row = rows.rows[index];
  Subscription out;
  out.id = row[0].get_string();
  SubscriptionFields& fields = out.fields;
  fields.name = row[1].get_string();
  fields.url_encrypted = row[2].get_string();
  fields.auth_header_encrypted = optional_text(row[3]);
  fields.signing_secret_encrypted = optional_text(row[4]);
  fields.event_types = strings_of(row[5]);
  if (row[6].is_string()) {
    auto filters = parse_json(row[6].get_string());
    if (filters.ok()) fields.filters = std::move(filters).value();
  }
  fields.target_labels = strings_of(row[7]);
  fields.enabled = is_true(row[8]);
  fields.max_retries = row[9].get_int();
  fields.timeout_seconds = row[10].get_int();
  out.created_by = optional_text(row[11]);
  out.created_at = row[12].get_string();
  out.updated_at = row[13].get_string();
  return out;
}

Value target_labels_column(const std::vector<std::string>& labels) {
  return labels.empty() ? Value() : json_text(string_array(labels));
}

ApiResult<Ok> replace_labels(store::Connection& connection, std::string_view id,
                             const std::vector<std::string>& labels) {
  SINDRI_CHECK(connection.query("DELETE FROM webhook_subscription_labels WHERE subscription_id = $1", {Value(id)}));
  for (const std::string& label : labels) {
    SINDRI_CHECK(connection.query(
        "INSERT INTO webhook_subscription_labels (subscription_id, label) VALUES ($1, $2) ON CONFLICT DO NOTHING",
        {Value(id), Value(label)}));
  }
  return Ok{};
}

Value delivery_object(const store::Rows& rows, size_t index) {
  Value object = row_object(rows, index);
  const Value* labels = object.find("target_labels");
  if (labels != nullptr && labels->is_string()) object.set("target_labels", string_array(strings_of(*labels)));
  return object;
}

std::vector<ClaimedDelivery> claimed_of(const store::Rows& rows) {
  std::vector<ClaimedDelivery> out;
  out.reserve(rows.size());
  for (const auto& row : rows.rows) {
    out.push_back({std::string(row[0].get_string()), std::string(row[1].get_string()),
                   std::string(row[2].get_string()), std::string(row[3].get_string()), row[4].get_int()});
  }
  return out;
}

}  // namespace

std::string timestamp_after(std::chrono::microseconds delay) {
  return timestamp_at(std::chrono::system_clock::now() + delay);
}

ApiResult<Subscription> insert_subscription(store::Connection& connection, const SubscriptionFields& fields,
                                            const std::optional<std::string>& created_by) {
  const std::string id = new_uuid();
  SINDRI_TRY(rows, connection.query(
                       "INSERT INTO webhook_subscriptions (id, name, url_encrypted, auth_header_encrypted, "
                       "signing_secret_encrypted, event_types, filters, target_labels, enabled, max_retries, "
                       "timeout_seconds, created_by, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, "
                       "$9, $10, $11, $12, $13, $13) RETURNING " SINDRI_SUBSCRIPTION_COLUMNS,
                       {Value(id), Value(fields.name), Value(fields.url_encrypted),
                        text_or_null(fields.auth_header_encrypted), text_or_null(fields.signing_secret_encrypted),
                        json_text(string_array(fields.event_types)),
                        fields.filters.is_null() ? Value() : json_text(fields.filters),
                        target_labels_column(fields.target_labels), Value(fields.enabled), Value(fields.max_retries),
                        Value(fields.timeout_seconds), text_or_null(created_by), Value(now_timestamp())}));
  SINDRI_CHECK(replace_labels(connection, id, fields.target_labels));
  return subscription_of(rows, 0);
}

ApiResult<Subscription> load_subscription(store::Connection& connection, std::string_view id) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_SUBSCRIPTION_COLUMNS " FROM webhook_subscriptions WHERE id = $1 "
                                    "AND " SINDRI_LIVE,
                                    {Value(id)}));
  if (rows.empty()) return not_found("webhook", id);
  return subscription_of(rows, 0);
}

ApiResult<std::vector<Subscription>> list_subscriptions(store::Connection& connection) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_SUBSCRIPTION_COLUMNS " FROM webhook_subscriptions WHERE "
                                    SINDRI_LIVE " ORDER BY created_at, id"));
  std::vector<Subscription> out;
  for (size_t i = 0; i < rows.size(); ++i) out.push_back(subscription_of(rows, i));
  return out;
}

ApiResult<Subscription> update_subscription(store::Connection& connection, const Subscription& subscription) {
  const SubscriptionFields& fields = subscription.fields;
  SINDRI_TRY(rows, connection.query(
                       "UPDATE webhook_subscriptions SET name = $2, url_encrypted = $3, auth_header_encrypted = $4, "
                       "signing_secret_encrypted = $5, event_types = $6, filters = $7, target_labels = $8, "
                       "enabled = $9, max_retries = $10, timeout_seconds = $11, updated_at = $12 WHERE id = $1 AND "
                       SINDRI_LIVE " RETURNING " SINDRI_SUBSCRIPTION_COLUMNS,
                       {Value(subscription.id), Value(fields.name), Value(fields.url_encrypted),
                        text_or_null(fields.auth_header_encrypted), text_or_null(fields.signing_secret_encrypted),
                        json_text(string_array(fields.event_types)),
                        fields.filters.is_null() ? Value() : json_text(fields.filters),
                        target_labels_column(fields.target_labels), Value(fields.enabled), Value(fields.max_retries),
                        Value(fields.timeout_seconds), Value(now_timestamp())}));
  if (rows.empty()) return not_found("webhook", subscription.id);
  SINDRI_CHECK(replace_labels(connection, subscription.id, fields.target_labels));
  return subscription_of(rows, 0);
}

ApiResult<Ok> delete_subscription(store::Connection& connection, std::string_view id) {
  const std::string now = now_timestamp();
  SINDRI_TRY(rows, connection.query("UPDATE webhook_subscriptions SET deleted_at = $2, updated_at = $2 WHERE id = $1 "
                                    "AND " SINDRI_LIVE " RETURNING id",
                                    {Value(id), Value(now)}));
  if (rows.empty()) return not_found("webhook", id);
  SINDRI_CHECK(connection.query("UPDATE webhook_deliveries SET status = 'dead', completed_at = $2, "
                                "last_error = 'subscription deleted', acquired_by = NULL, acquired_until = NULL "
                                "WHERE subscription_id = $1 AND status IN ('pending', 'failed', 'acquired')",
                                {Value(id), Value(now)}));
  return Ok{};
}

ApiResult<Value> list_deliveries(store::Connection& connection, std::string_view subscription_id,
                                 const std::optional<std::string>& status, int64_t limit, int64_t offset) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_DELIVERY_COLUMNS " FROM webhook_deliveries WHERE "
                                    "subscription_id = $1 AND (CAST($2 AS TEXT) IS NULL OR status = $2) "
                                    "ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4",
                                    {Value(subscription_id), text_or_null(status), Value(limit), Value(offset)}));
  Array items;
  for (size_t i = 0; i < rows.size(); ++i) items.push_back(delivery_object(rows, i));
  return Value(std::move(items));
}

ApiResult<std::vector<ClaimedDelivery>> claim_broker_deliveries(store::Connection& connection, int64_t batch,
                                                                std::chrono::microseconds lease) {
  const bool postgres = connection.dialect() == store::Dialect::Postgres;
  const std::vector<Value> params = {Value(now_timestamp()), Value(timestamp_after(lease)), Value(batch), Value()};
  SINDRI_TRY(rows, postgres ? connection.query(SINDRI_CLAIM(SINDRI_BROKER_CANDIDATES, " FOR UPDATE SKIP LOCKED"),
                                               params)
                            : connection.query(SINDRI_CLAIM(SINDRI_BROKER_CANDIDATES, ""), params));
  return claimed_of(rows);
}

ApiResult<std::vector<ClaimedDelivery>> claim_agent_deliveries(store::Connection& connection,
                                                               std::string_view agent_id, int64_t batch,
                                                               std::chrono::microseconds lease) {
  const bool postgres = connection.dialect() == store::Dialect::Postgres;
  const std::vector<Value> params = {Value(now_timestamp()), Value(timestamp_after(lease)), Value(batch),
                                     Value(agent_id)};
  SINDRI_TRY(rows, postgres ? connection.query(SINDRI_CLAIM(SINDRI_AGENT_CANDIDATES, " FOR UPDATE SKIP LOCKED"),
                                               params)
                            : connection.query(SINDRI_CLAIM(SINDRI_AGENT_CANDIDATES, ""), params));
  return claimed_of(rows);
}

ApiResult<Value> load_delivery(store::Connection& connection, std::string_view id) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_DELIVERY_COLUMNS " FROM webhook_deliveries WHERE id = $1",
                                    {Value(id)}));
  if (rows.empty()) return not_found("delivery", id);
  return delivery_object(rows, 0);
}

ApiResult<bool> mark_delivery_succeeded(store::Connection& connection, std::string_view id) {
  const std::string now = now_timestamp();
  SINDRI_TRY(rows, connection.query("UPDATE webhook_deliveries SET status = 'success', attempts = attempts + 1, "
                                    "last_attempt_at = $2, completed_at = $2, last_error = NULL, acquired_until = NULL "
                                    "WHERE id = $1 AND status = 'acquired' RETURNING id",
                                    {Value(id), Value(now)}));
  return !rows.empty();
}

ApiResult<bool> mark_delivery_failed(store::Connection& connection, std::string_view id, std::string_view error,
                                     bool dead, std::chrono::microseconds retry_delay) {
  const std::string now = now_timestamp();
  SINDRI_TRY(rows, connection.query(
                       "UPDATE webhook_deliveries SET status = $2, attempts = attempts + 1, last_attempt_at = $3, "
                       "next_retry_at = $4, last_error = $5, completed_at = $6, acquired_by = NULL, "
                       "acquired_until = NULL WHERE id = $1 AND status = 'acquired' RETURNING id",
                       {Value(id), Value(dead ? "dead" : "failed"), Value(now),
                        dead ? Value() : Value(timestamp_after(retry_delay)), Value(error),
                        dead ? Value(now) : Value()}));
  return !rows.empty();
}

ApiResult<Ok> extend_delivery_lease(store::Connection& connection, std::string_view id, std::string_view until) {
  SINDRI_CHECK(connection.query("UPDATE webhook_deliveries SET acquired_until = $2 WHERE id = $1 AND "
                                "status = 'acquired'",
                                {Value(id), Value(until)}));
  return Ok{};
}

ApiResult<int64_t> delete_deliveries_older_than(store::Connection& connection, std::chrono::microseconds age) {
  SINDRI_TRY(rows, connection.query("DELETE FROM webhook_deliveries WHERE created_at < $1 AND status IN "
                                    "('success', 'dead') RETURNING id",
                                    {Value(timestamp_after(-age))}));
  return static_cast<int64_t>(rows.size());
}

ApiResult<std::optional<std::string>> load_key_check(store::Connection& connection) {
  SINDRI_TRY(rows, connection.query("SELECT check_value FROM webhook_key_check WHERE id = 1"));
  if (rows.empty()) return std::optional<std::string>();
  return std::optional<std::string>(rows.rows[0][0].get_string());
}

ApiResult<std::string> store_key_check(store::Connection& connection, std::string_view check_value) {
  SINDRI_CHECK(connection.query("INSERT INTO webhook_key_check (id, check_value, created_at) VALUES (1, $1, $2) "
                                "ON CONFLICT (id) DO NOTHING",
                                {Value(check_value), Value(now_timestamp())}));
  SINDRI_TRY(stored, load_key_check(connection));
  return stored ? *stored : std::string(check_value);
}

}  // namespace sindri::broker::db
