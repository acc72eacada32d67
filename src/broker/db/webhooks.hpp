#pragma once
// The webhook tables (migration 9): subscriptions, whose URL, auth header and
// signing secret are stored encrypted by the caller (webhook_crypto.hpp), and
// their deliveries, which go pending -> acquired -> success | failed | dead.
// A failed delivery is pending again once its next_retry_at is due.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/api_error.hpp"
#include "store/database.hpp"

namespace sindri::broker::db {

// Whether an event type matches one subscription pattern: the type itself,
// "*", or "prefix.*" (every type under prefix).
bool event_type_matches(std::string_view pattern, std::string_view event_type);
// Whether an event's data passes a subscription's filters {agent_id?,
// stack_id?}: every filter set must equal the data's field, and data without
// the field (or with null) does not pass.
bool event_passes_filters(const Value& filters, const Value& data);

// Now plus `delay`, in now_timestamp()'s fixed-width form.
std::string timestamp_after(std::chrono::microseconds delay);

// ---- subscriptions --------------------------------------------------------

struct SubscriptionFields {
  std::string name;
  std::string url_encrypted;
  std::optional<std::string> auth_header_encrypted;
  std::optional<std::string> signing_secret_encrypted;
  std::vector<std::string> event_types;
  Value filters;  // null or {agent_id?, stack_id?}
  std::vector<std::string> target_labels;  // empty: the broker delivers
  bool enabled = true;
  int64_t max_retries = 5;
  int64_t timeout_seconds = 30;
};

// A subscription row as the handlers and the delivery pass need it: the
// answer's fields plus the encrypted secrets, which never leave the broker
// in clear except to a delivering agent.
struct Subscription {
  std::string id;
  SubscriptionFields fields;
  std::optional<std::string> created_by;
  std::string created_at;
  std::string updated_at;
};

ApiResult<Subscription> insert_subscription(store::Connection& connection, const SubscriptionFields& fields,
                                            const std::optional<std::string>& created_by);
// The live subscription `id`; 404 webhook_not_found otherwise.
ApiResult<Subscription> load_subscription(store::Connection& connection, std::string_view id);
// Every live subscription, oldest first.
ApiResult<std::vector<Subscription>> list_subscriptions(store::Connection& connection);
ApiResult<Subscription> update_subscription(store::Connection& connection, const Subscription& subscription);
// Soft-deletes the subscription; its open deliveries go dead (never sent).
ApiResult<Ok> delete_subscription(store::Connection& connection, std::string_view id);

// ---- deliveries -------------------------------------------------------------

// A delivery of a subscription's event, as WebhookDelivery shows it.
ApiResult<Value> list_deliveries(store::Connection& connection, std::string_view subscription_id,
                                 const std::optional<std::string>& status, int64_t limit, int64_t offset);

// A claimed delivery with what sending it takes.
struct ClaimedDelivery {
  std::string id;
  std::string subscription_id;
  std::string event_type;
  std::string payload;
  int64_t attempts = 0;  // before this one
};

// Claims up to `batch` deliveries the broker sends (no target labels) that
// are pending, failed and due, or acquired past their lease: one conditional
// statement, so brokers sharing a database never claim one twice.
ApiResult<std::vector<ClaimedDelivery>> claim_broker_deliveries(store::Connection& connection, int64_t batch,
                                                                std::chrono::microseconds lease);
// Claims for `agent_id` up to `batch` deliveries whose subscription's target
// labels are all among the agent's labels.
ApiResult<std::vector<ClaimedDelivery>> claim_agent_deliveries(store::Connection& connection,
                                                               std::string_view agent_id, int64_t batch,
                                                               std::chrono::microseconds lease);

// The delivery `id` as WebhookDelivery; 404 delivery_not_found (Brokkr's code).
ApiResult<Value> load_delivery(store::Connection& connection, std::string_view id);

// Both count an attempt of an acquired delivery and answer false when it was
// no longer acquired (its subscription deleted meanwhile).
ApiResult<bool> mark_delivery_succeeded(store::Connection& connection, std::string_view id);
// Failed, claimable again after `retry_delay`, or with `dead` dead for good.
ApiResult<bool> mark_delivery_failed(store::Connection& connection, std::string_view id, std::string_view error,
                                     bool dead, std::chrono::microseconds retry_delay);
// Keeps the broker's claim on `id` until `until` (a timeout longer than the
// lease).
ApiResult<Ok> extend_delivery_lease(store::Connection& connection, std::string_view id, std::string_view until);

// Deletes finished (success, dead) deliveries created before now minus
// `age`; answers how many.
ApiResult<int64_t> delete_deliveries_older_than(store::Connection& connection, std::chrono::microseconds age);

// ---- key check ----------------------------------------------------------------

// The stored check value of the encryption key, if any broker stored one.
ApiResult<std::optional<std::string>> load_key_check(store::Connection& connection);
// Stores the check value unless one is there; answers the one stored.
ApiResult<std::string> store_key_check(store::Connection& connection, std::string_view check_value);

}  // namespace sindri::broker::db
