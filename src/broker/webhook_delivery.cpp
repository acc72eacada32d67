#include "broker/webhook_delivery.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>
#include <vector>

#include "broker/context.hpp"
#include "broker/db/audit.hpp"
#include "http/client.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker {
namespace {

constexpr size_t kBodyExcerpt = 500;
// Deliveries sent at once by one pass: a slow receiver holds back no other,
// and a batch of 1000 starts no more threads than this.
constexpr size_t kSenders = 16;

// The client's words for a transport failure name the URL, which may carry
// a secret in its path (a chat service's token): keep them out.
std::string without_url(std::string message, std::string_view url) {
  for (size_t at; !url.empty() && (at = message.find(url)) != std::string::npos;) {
    message.replace(at, url.size(), "<webhook URL>");
  }
  return message;
}

// "https://host:port/path?query" as the client's base URL and the request
// target, so that the path keeps a trailing slash and a bare "?query" gets
// its "/".
std::pair<std::string, std::string> split_url(std::string_view url) {
  url = url.substr(0, url.find('#'));
  const size_t scheme_end = url.find("://");
  const size_t path_start = scheme_end == std::string_view::npos ? 0 : url.find_first_of("/?", scheme_end + 3);
  if (path_start == std::string_view::npos) return {std::string(url), "/"};
  std::string target(url.substr(path_start));
  if (target.front() == '?') target.insert(target.begin(), '/');
  return {std::string(url.substr(0, path_start)), target};
}

Result<std::optional<std::string>> decrypt_optional(const WebhookKey& key, const std::optional<std::string>& stored) {
  if (!stored) return std::optional<std::string>();
  SINDRI_TRY(plain, decrypt_secret(key, *stored));
  return std::optional<std::string>(std::move(plain));
}

struct Claimed {
  db::ClaimedDelivery delivery;
  std::optional<db::Subscription> subscription;
  // When this broker's claim runs out: past it another broker may take the
  // delivery, so an attempt that could end later is not begun.
  std::chrono::steady_clock::time_point lease_end;
};

// Claims a batch and reads each delivery's subscription; a timeout longer
// than the lease extends that delivery's claim, so that no other broker
// takes it while it is being sent.
ApiResult<std::vector<Claimed>> claim_batch(store::Connection& connection, const DeliverySettings& settings) {
  const auto claimed_at = std::chrono::steady_clock::now();
  SINDRI_TRY(deliveries, db::claim_broker_deliveries(connection, settings.batch_size, settings.lease));
  std::map<std::string, std::optional<db::Subscription>> subscriptions;
  std::vector<Claimed> out;
  for (db::ClaimedDelivery& delivery : deliveries) {
    auto found = subscriptions.find(delivery.subscription_id);
    if (found == subscriptions.end()) {
      auto loaded = db::load_subscription(connection, delivery.subscription_id);
      if (!loaded.ok() && loaded.error().status != 404) return std::move(loaded).error();
      found = subscriptions
                  .emplace(delivery.subscription_id,
                           loaded.ok() ? std::optional<db::Subscription>(std::move(loaded).value()) : std::nullopt)
                  .first;
    }
    std::chrono::steady_clock::duration lease = settings.lease;
    if (found->second) {
      const auto attempt_time = std::chrono::seconds(found->second->fields.timeout_seconds + 5);
      if (attempt_time > settings.lease) {
        SINDRI_CHECK(db::extend_delivery_lease(connection, delivery.id, db::timestamp_after(attempt_time)));
        lease = attempt_time;
      }
    }
    out.push_back({std::move(delivery), found->second, claimed_at + lease});
  }
  return out;
}

AttemptOutcome attempt(const WebhookKey& key, const Claimed& claimed) {
  if (!claimed.subscription) return {false, false, std::nullopt, "subscription not found", ""};
  auto target = decrypt_target(key, *claimed.subscription);
  if (!target.ok()) return {false, false, std::nullopt, target.error().message, ""};
  return send_webhook(*target, claimed.delivery.event_type, claimed.delivery.id, claimed.delivery.payload);
}

}  // namespace

Result<WebhookTarget> decrypt_target(const WebhookKey& key, const db::Subscription& subscription) {
  WebhookTarget target;
  SINDRI_TRY(url, decrypt_secret(key, subscription.fields.url_encrypted));
  target.url = std::move(url);
  SINDRI_TRY(auth_header, decrypt_optional(key, subscription.fields.auth_header_encrypted));
  target.auth_header = std::move(auth_header);
  SINDRI_TRY(signing_secret, decrypt_optional(key, subscription.fields.signing_secret_encrypted));
  target.signing_secret = std::move(signing_secret);
  target.timeout_seconds = subscription.fields.timeout_seconds;
  return target;
}

bool is_retryable_status(int status) {
  if (status == 408 || status == 425 || status == 429) return true;
  return status < 400 || status >= 500;
}

AttemptOutcome send_webhook(const WebhookTarget& target, std::string_view event_type, std::string_view delivery_id,
                            std::string_view payload) {
  auto [base, path] = split_url(target.url);
  http::Client client(base);
  client.set_timeout_ms(std::max<int64_t>(target.timeout_seconds, 1) * 1000);
  if (target.auth_header) client.set_authorization(*target.auth_header);
  std::vector<http::Header> headers = {{"X-Brokkr-Event-Type", std::string(event_type)},
                                       {"X-Brokkr-Delivery-Id", std::string(delivery_id)}};
  if (target.signing_secret) {
    headers.push_back({"X-Sindri-Signature", "sha256=" + hmac_sha256_hex(*target.signing_secret, payload)});
  }
  client.set_headers(std::move(headers));
  auto response = client.request("POST", path, payload, "application/json");
  AttemptOutcome outcome;
  if (!response.ok()) {
    outcome.retryable = true;
    outcome.error = without_url(without_url(response.error().message, target.url), base + path);
    return outcome;
  }
  outcome.status_code = response->status;
  outcome.body = response->body.substr(0, kBodyExcerpt);
  outcome.delivered = response->status >= 200 && response->status < 300;
  if (!outcome.delivered) {
    outcome.retryable = is_retryable_status(response->status);
    outcome.error = "HTTP " + std::to_string(response->status);
    if (!outcome.body.empty()) outcome.error += ": " + outcome.body;
  }
  return outcome;
}

std::chrono::microseconds retry_delay(std::chrono::microseconds backoff_unit, int64_t attempts) {
  // 2^20 units is days at the default unit: far past any max_retries (10).
  return backoff_unit * (int64_t{1} << std::clamp<int64_t>(attempts, 0, 20));
}

ApiResult<std::string> record_attempt(store::Connection& connection, const db::Subscription& subscription,
                                      std::string_view delivery_id, int64_t attempts_before,
                                      const AttemptOutcome& outcome, std::chrono::microseconds backoff_unit,
                                      std::string_view agent_id) {
  if (outcome.delivered) {
    SINDRI_TRY(updated, db::mark_delivery_succeeded(connection, delivery_id));
    return std::string(updated ? "success" : "");
  }
  const int64_t attempts = attempts_before + 1;
  const bool dead = !outcome.retryable || attempts >= subscription.fields.max_retries;
  SINDRI_TRY(updated, db::mark_delivery_failed(connection, delivery_id, outcome.error, dead,
                                               retry_delay(backoff_unit, attempts)));
  if (!updated) return std::string();
  if (dead) {
    Value details = make_object({{"delivery_id", Value(delivery_id)},
                                 {"attempts", Value(attempts)},
                                 {"error", Value(outcome.error)},
                                 {"retryable", Value(outcome.retryable)},
                                 {"status_code", outcome.status_code ? Value(*outcome.status_code) : Value()}});
    if (!agent_id.empty()) details.set("delivered_by_agent", Value(agent_id));
    SINDRI_CHECK(db::record_audit(connection, {"system", "", "webhook.delivery_failed", "webhook_subscription",
                                               subscription.id, std::move(details), "", ""}));
  }
  return std::string(dead ? "dead" : "failed");
}

namespace {

// Sends one claimed delivery and records its outcome at once.
void deliver(store::Database& db, const WebhookKey& key, const Claimed& claimed, const DeliverySettings& settings,
             Logger& log) {
  const auto timeout = std::chrono::seconds(claimed.subscription ? claimed.subscription->fields.timeout_seconds : 0);
  if (std::chrono::steady_clock::now() + timeout > claimed.lease_end) return;  // the next pass claims it again
  const AttemptOutcome outcome = attempt(key, claimed);
  db::Subscription missing;
  missing.id = claimed.delivery.subscription_id;
  const db::Subscription& subscription = claimed.subscription ? *claimed.subscription : missing;
  auto recorded = in_write<std::string>(db, [&](store::Connection& connection) {
    return record_attempt(connection, subscription, claimed.delivery.id, claimed.delivery.attempts, outcome,
                          settings.backoff_unit, "");
  });
  if (!recorded.ok()) {
    log.error("recording a webhook delivery failed",
              {{"delivery_id", Value(claimed.delivery.id)}, {"error", Value(recorded.error().message)}});
  } else if (*recorded == "dead") {
    log.warn("webhook delivery dead", {{"delivery_id", Value(claimed.delivery.id)},
                                       {"subscription_id", Value(subscription.id)},
                                       {"error", Value(outcome.error)}});
  }
}

}  // namespace

ApiResult<size_t> deliver_due_webhooks(store::Database& db, const WebhookKey& key, const DeliverySettings& settings,
                                       Logger& log) {
  SINDRI_TRY(batch, in_write<std::vector<Claimed>>(
                        db, [&](store::Connection& connection) { return claim_batch(connection, settings); }));
  if (batch.empty()) return size_t{0};
  std::atomic<size_t> next{0};
  const auto send_next = [&] {
    for (size_t i; (i = next.fetch_add(1)) < batch.size();) deliver(db, key, batch[i], settings, log);
  };
  std::vector<std::thread> senders;
  const size_t count = std::min(batch.size(), kSenders);
  senders.reserve(count);
  for (size_t i = 0; i < count; ++i) senders.emplace_back(send_next);
  for (std::thread& sender : senders) sender.join();
  return batch.size();
}

ApiResult<int64_t> delete_old_webhook_deliveries(store::Database& db, int64_t retention_days) {
  return in_write<int64_t>(db, [&](store::Connection& connection) {
    return db::delete_deliveries_older_than(connection, std::chrono::hours(24 * retention_days));
  });
}

DeliverySettings delivery_settings(const BrokerConfig& config) {
  const auto seconds = [](double value) {
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::duration<double>(value));
  };
  return {config.webhooks_delivery_batch_size, seconds(config.webhooks_delivery_lease),
          seconds(config.webhooks_backoff_unit)};
}

std::vector<PeriodicJob> webhook_jobs(store::Database& db, Logger& log, const LiveConfig& config,
                                     const std::optional<WebhookKey>& key) {
  std::vector<PeriodicJob> jobs;
  jobs.push_back({"webhook_delivery",
                  [](const BrokerConfig& current) { return current.webhooks_delivery_interval; }, false,
                  [&db, &log, &config, &key]() -> ApiResult<size_t> {
                    if (!key) return size_t{0};
                    return deliver_due_webhooks(db, *key, delivery_settings(*config.current()), log);
                  }});
  jobs.push_back({"webhook_cleanup", [](const BrokerConfig& current) { return current.webhooks_cleanup_interval; },
                  true, [&db, &config]() -> ApiResult<size_t> {
                    SINDRI_TRY(deleted, delete_old_webhook_deliveries(db, config.current()->webhooks_retention_days));
                    return static_cast<size_t>(deleted);
                  }});
  return jobs;
}

}  // namespace sindri::broker
