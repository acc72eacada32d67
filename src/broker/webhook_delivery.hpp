#pragma once
// Sending webhook deliveries: one HTTP POST per attempt with the event's
// headers (and a signature when the subscription has a signing secret), and
// the broker's periodic pass, which claims due deliveries, sends them and
// records each outcome: success, failed (retried after backoff unit x
// 2^attempts) or dead (a 4xx other than 408, 425 and 429, or the attempts
// used up; written to the audit log).

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "broker/api_error.hpp"
#include "broker/config.hpp"
#include "broker/db/webhooks.hpp"
#include "broker/jobs.hpp"
#include "broker/log.hpp"
#include "broker/webhook_crypto.hpp"
#include "store/database.hpp"

namespace sindri::broker {

// Where and how to send: a subscription's secrets, decrypted.
struct WebhookTarget {
  std::string url;
  std::optional<std::string> auth_header;  // sent as Authorization
  std::optional<std::string> signing_secret;
  int64_t timeout_seconds = 30;
};

// A subscription's secrets decrypted; fails when they do not decrypt.
Result<WebhookTarget> decrypt_target(const WebhookKey& key, const db::Subscription& subscription);

struct AttemptOutcome {
  bool delivered = false;  // a 2xx answer
  bool retryable = false;  // worth another attempt when not delivered
  std::optional<int> status_code;
  std::string error;  // "HTTP 503: <body start>" or the transport's words
  std::string body;   // the start of the receiver's answer
};

// Whether a failure with this HTTP status may succeed later: 408, 425, 429,
// 3xx and 5xx (and anything that is not a 4xx).
bool is_retryable_status(int status);

// One attempt: POST `payload` to the target with Content-Type,
// X-Brokkr-Event-Type, X-Brokkr-Delivery-Id, the auth header and
// X-Sindri-Signature, waiting at most the target's timeout.
AttemptOutcome send_webhook(const WebhookTarget& target, std::string_view event_type, std::string_view delivery_id,
                            std::string_view payload);

struct DeliverySettings {
  int64_t batch_size = 50;
  std::chrono::microseconds lease = std::chrono::seconds(60);
  std::chrono::microseconds backoff_unit = std::chrono::seconds(1);
};

// The webhooks.delivery_batch_size, delivery_lease and backoff_unit
// settings.
DeliverySettings delivery_settings(const BrokerConfig& config);

// The delay before the next attempt after `attempts` failed ones.
std::chrono::microseconds retry_delay(std::chrono::microseconds backoff_unit, int64_t attempts);

// One pass: claims up to a batch of due deliveries the broker sends (those
// without target labels), sends them at once and records the outcomes.
// Answers how many it attempted.
ApiResult<size_t> deliver_due_webhooks(store::Database& db, const WebhookKey& key, const DeliverySettings& settings,
                                       Logger& log);

// Records an attempt's outcome for a delivery acquired by the broker or an
// agent (`agent_id`, empty for the broker): success, failed and due again
// after the backoff, or dead with an audit entry. Answers the delivery's
// status afterwards ("success", "failed", "dead"), or "" when the delivery
// was no longer acquired.
ApiResult<std::string> record_attempt(store::Connection& connection, const db::Subscription& subscription,
                                      std::string_view delivery_id, int64_t attempts_before,
                                      const AttemptOutcome& outcome, std::chrono::microseconds backoff_unit,
                                      std::string_view agent_id);

// The cleanup pass: deletes finished deliveries older than `retention_days`.
ApiResult<int64_t> delete_old_webhook_deliveries(store::Database& db, int64_t retention_days);

// The two periodic passes, for the broker's JobRunner: delivery
// (webhooks.delivery_interval, batch size, lease and backoff unit read at
// each round; every broker runs it, as its claims never overlap) and
// clean-up (webhooks.cleanup_interval and retention_days; one broker).
// Delivery does nothing until `key` is set.
std::vector<PeriodicJob> webhook_jobs(store::Database& db, Logger& log, const LiveConfig& config,
                                     const std::optional<WebhookKey>& key);

}  // namespace sindri::broker
