// Webhook subscriptions (admin only), their deliveries, a synchronous test,
// and the two operations through which an agent delivers label-targeted
// webhooks from inside its cluster. URLs, auth headers and signing secrets
// are stored encrypted and never answered, except to the delivering agent.

#include <algorithm>

#include "broker/api/query_params.hpp"
#include "broker/api/request_body.hpp"
#include "broker/api/routes.hpp"
#include "broker/db/agents.hpp"
#include "broker/db/webhooks.hpp"
#include "broker/ids.hpp"
#include "broker/webhook_crypto.hpp"
#include "broker/webhook_delivery.hpp"
#include "value/json.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker {
namespace {

// Brokkr's event types, and health.changed (beyond Brokkr).
constexpr std::string_view kEventTypes[] = {
    "agent.registered",     "agent.deregistered",    "stack.created",       "stack.deleted",
    "deployment.created",   "deployment.applied",    "deployment.failed",   "deployment.deleted",
    "workorder.created",    "workorder.claimed",     "workorder.completed", "workorder.failed",
    "health.changed",
};

// What one agent claims per poll (Brokkr's number).
constexpr int64_t kAgentBatch = 10;

constexpr TextRule kUrlRule{2048, false, false, false, true};
constexpr TextRule kHeaderRule{4096, false, true, false, true};
constexpr TextRule kSecretRule{1024, false, false};
constexpr TextRule kPatternRule{128, false, false};

ApiError unprocessable(std::string code, std::string message, std::string_view pointer) {
  return ApiError{422, std::move(code), std::move(message), make_object({{"pointer", Value(pointer)}}), {}};
}

// Brokkr's 422 for fields it removed, naming the replacement.
ApiError removed_field(std::string_view field, std::string message, std::string_view use_instead) {
  return ApiError{422, "unsupported_field", std::move(message),
                  make_object({{"field", Value(field)}, {"use_instead", Value(use_instead)}}), {}};
}

ApiResult<WebhookKey> webhook_key(const Call& call) {
  const std::optional<WebhookKey>& key = call.services.webhook_key;
  if (!key) return ApiError{503, "webhook_key_unavailable", "the webhook encryption key is not loaded", Value(), {}};
  return *key;
}

// WebhookResponse, and has_signing_secret (beyond Brokkr).
Value webhook_response(const db::Subscription& subscription) {
  const db::SubscriptionFields& fields = subscription.fields;
  Value out = make_object({
      {"id", Value(subscription.id)},
      {"name", Value(fields.name)},
      {"has_url", Value(!fields.url_encrypted.empty())},
      {"has_auth_header", Value(fields.auth_header_encrypted.has_value())},
      {"has_signing_secret", Value(fields.signing_secret_encrypted.has_value())},
      {"event_types", string_array(fields.event_types)},
      {"target_labels", fields.target_labels.empty() ? Value() : string_array(fields.target_labels)},
      {"enabled", Value(fields.enabled)},
      {"max_retries", Value(fields.max_retries)},
      {"timeout_seconds", Value(fields.timeout_seconds)},
      {"created_by", subscription.created_by ? Value(*subscription.created_by) : Value()},
      {"created_at", Value(subscription.created_at)},
      {"updated_at", Value(subscription.updated_at)},
  });
  if (fields.filters.is_object()) out.set("filters", fields.filters);
  return out;
}

ApiResult<Ok> check_url(std::string_view url) {
  const auto lower_starts = [&](std::string_view prefix) {
    return url.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), url.begin(), [](char a, char b) {
             return a == std::tolower(static_cast<unsigned char>(b));
           });
  };
  const size_t scheme = lower_starts("https://") ? 8 : lower_starts("http://") ? 7 : 0;
  if (scheme == 0) {
    return ApiError{400, "invalid_url_scheme", "/url must start with http:// or https://",
                    make_object({{"pointer", Value("/url")}}), {}};
  }
  if (scheme == url.size() || url[scheme] == '/' || url[scheme] == '?' || url[scheme] == ':') {
    return field_error("invalid_field", "/url names no host", "/url");
  }
  return Ok{};
}

ApiResult<Ok> check_pattern(const std::string& pattern, std::string_view pointer) {
  const size_t star = pattern.find('*');
  const bool valid = star == std::string::npos || pattern == "*" ||
                     (star == pattern.size() - 1 && pattern.size() > 2 && pattern[star - 1] == '.');
  if (!valid) {
    return field_error("invalid_field",
                       std::string(pointer) + ": \"" + pattern + "\" is not an event type, \"*\" or \"prefix.*\"",
                       pointer);
  }
  return Ok{};
}

ApiResult<std::vector<std::string>> parse_event_types(BodyObject& body) {
  SINDRI_TRY(types, body.optional_string_array("event_types", kPatternRule));
  if (types.empty()) return field_error("invalid_webhook", "/event_types needs at least one event type", "/event_types");
  for (size_t i = 0; i < types.size(); ++i) {
    SINDRI_CHECK(check_pattern(types[i], "/event_types/" + std::to_string(i)));
  }
  return types;
}

// WebhookFilters: null or {agent_id?, stack_id?}, each a UUID or null; the
// removed `labels` key is Brokkr's 422.
ApiResult<Value> parse_filters(const Value& filters) {
  if (filters.is_null()) return Value();
  if (!filters.is_object()) {
    return field_error("invalid_field", std::string("/filters must be an object or null, got ") + filters.kind_name(),
                       "/filters");
  }
  if (filters.find("labels") != nullptr) {
    return removed_field("filters.labels",
                         "filters.labels is no longer accepted: it was never evaluated; use target_labels to route "
                         "deliveries by label, or filters.agent_id / filters.stack_id",
                         "target_labels");
  }
  Object kept;
  for (const Member& member : filters.get_object()) {
    const std::string key(member.key.get_string());
    const std::string pointer = "/filters/" + key;
    if (key != "agent_id" && key != "stack_id") {
      return field_error("unknown_field", pointer + " is not a field of WebhookFilters", pointer);
    }
    if (member.value.is_null()) continue;
    if (!member.value.is_string()) {
      return field_error("invalid_field", pointer + " must be a UUID or null", pointer);
    }
    SINDRI_CHECK(check_text(member.value.get_string(), kUuidRule, pointer));
    kept.push_back({Value(key), member.value});
  }
  return kept.empty() ? Value() : Value(std::move(kept));
}

ApiResult<std::optional<int64_t>> int_in_range(BodyObject& body, std::string_view key, int64_t low, int64_t high) {
  SINDRI_TRY(number, body.optional_int(key));
  if (number && (*number < low || *number > high)) {
    const std::string pointer = "/" + std::string(key);
    return unprocessable("invalid_webhook",
                         std::string(key) + " must be between " + std::to_string(low) + " and " +
                             std::to_string(high) + ", got " + std::to_string(*number),
                         pointer);
  }
  return number;
}

// A body of CreateWebhookRequest or UpdateWebhookRequest applied to `fields`
// (the defaults, or the stored subscription): absent fields stay, null
// leaves the required ones and clears the optional ones (auth header,
// signing secret, filters, target labels).
ApiResult<Ok> apply_body(BodyObject& body, bool create, const WebhookKey& key, db::SubscriptionFields& fields) {
  if (create && body.has("validate")) {
    return removed_field("validate",
                         "validate is no longer accepted: it never sent a test request; create the subscription, "
                         "then call POST /webhooks/{id}/test",
                         "POST /webhooks/{id}/test");
  }
  if (body.has("filters")) {
    SINDRI_TRY(raw_filters, body.required_value("filters"));
    SINDRI_TRY(filters, parse_filters(raw_filters));
    fields.filters = std::move(filters);
  }
  if (create) {
    SINDRI_TRY(name, body.required_string("name", kNameRule));
    fields.name = std::move(name);
    SINDRI_TRY(url, body.required_string("url", kUrlRule));
    SINDRI_CHECK(check_url(url));
    fields.url_encrypted = encrypt_secret(key, url);
    SINDRI_TRY(event_types, parse_event_types(body));
    fields.event_types = std::move(event_types);
  } else {
    SINDRI_TRY(name, body.optional_string("name", kNameRule));
    if (name) fields.name = std::move(*name);
    SINDRI_TRY(url, body.optional_string("url", kUrlRule));
    if (url) {
      SINDRI_CHECK(check_url(*url));
      fields.url_encrypted = encrypt_secret(key, *url);
    }
    if (body.has("event_types") && !body.required_value("event_types")->is_null()) {
      SINDRI_TRY(event_types, parse_event_types(body));
      fields.event_types = std::move(event_types);
    } else {
      body.ignore("event_types");
    }
  }
  if (body.has("auth_header")) {
    SINDRI_TRY(auth_header, body.optional_string("auth_header", kHeaderRule));
    fields.auth_header_encrypted = auth_header ? std::optional(encrypt_secret(key, *auth_header)) : std::nullopt;
  }
  if (body.has("signing_secret")) {
    SINDRI_TRY(secret, body.optional_string("signing_secret", kSecretRule));
    fields.signing_secret_encrypted = secret ? std::optional(encrypt_secret(key, *secret)) : std::nullopt;
  }
  if (body.has("target_labels")) {
    SINDRI_TRY(labels, body.optional_string_array("target_labels", kTagRule));
    std::sort(labels.begin(), labels.end());
    labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
    fields.target_labels = std::move(labels);
  }
  SINDRI_TRY(enabled, body.optional_bool("enabled"));
  if (enabled) fields.enabled = *enabled;
  SINDRI_TRY(max_retries, int_in_range(body, "max_retries", 0, 10));
  if (max_retries) fields.max_retries = *max_retries;
  SINDRI_TRY(timeout, int_in_range(body, "timeout_seconds", 1, 300));
  if (timeout) fields.timeout_seconds = *timeout;
  return body.finish();
}

ApiResult<http::Response> list_webhooks(Call& call) {
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(subscriptions, db::list_subscriptions(connection));
    Array items;
    for (const db::Subscription& subscription : subscriptions) items.push_back(webhook_response(subscription));
    return json_response(200, Value(std::move(items)));
  });
}

ApiResult<http::Response> list_event_types(Call&) {
  Array items;
  for (std::string_view type : kEventTypes) items.push_back(Value(type));
  return json_response(200, Value(std::move(items)));
}

ApiResult<http::Response> create_webhook(Call& call) {
  SINDRI_TRY(key, webhook_key(call));
  SINDRI_TRY(body, BodyObject::parse(call.request, "CreateWebhookRequest"));
  db::SubscriptionFields fields;
  SINDRI_CHECK(apply_body(body, true, key, fields));
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(subscription, db::insert_subscription(connection, fields, std::string("admin")));
    SINDRI_CHECK(audit(call, connection, "webhook.created", "webhook_subscription", subscription.id,
                       make_object({{"name", Value(fields.name)},
                                    {"event_types", string_array(fields.event_types)}})));
    return json_response(201, webhook_response(subscription));
  });
}

ApiResult<http::Response> get_webhook(Call& call) {
  SINDRI_TRY(id, call.id_param());
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(subscription, db::load_subscription(connection, id));
    return json_response(200, webhook_response(subscription));
  });
}

ApiResult<http::Response> update_webhook(Call& call) {
  SINDRI_TRY(id, call.id_param());
  SINDRI_TRY(key, webhook_key(call));
  SINDRI_TRY(parsed_body, BodyObject::parse(call.request, "UpdateWebhookRequest"));
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BodyObject body = parsed_body;  // the transaction may run again
    SINDRI_TRY(subscription, db::load_subscription(connection, id));
    SINDRI_CHECK(apply_body(body, false, key, subscription.fields));
    SINDRI_TRY(updated, db::update_subscription(connection, subscription));
    SINDRI_CHECK(audit(call, connection, "webhook.updated", "webhook_subscription", id,
                       make_object({{"name", Value(updated.fields.name)},
                                    {"enabled", Value(updated.fields.enabled)}})));
    return json_response(200, webhook_response(updated));
  });
}

ApiResult<http::Response> delete_webhook(Call& call) {
  SINDRI_TRY(id, call.id_param());
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(subscription, db::load_subscription(connection, id));
    SINDRI_CHECK(db::delete_subscription(connection, id));
    SINDRI_CHECK(audit(call, connection, "webhook.deleted", "webhook_subscription", id,
                       make_object({{"name", Value(subscription.fields.name)}})));
    return empty_response(204);
  });
}

ApiResult<http::Response> list_deliveries(Call& call) {
  SINDRI_TRY(id, call.id_param());
  std::optional<std::string> status;
  if (const std::string* text = call.request.query_param("status")) {
    constexpr std::string_view kStatuses[] = {"pending", "acquired", "success", "failed", "dead"};
    if (std::find(std::begin(kStatuses), std::end(kStatuses), *text) == std::end(kStatuses)) {
      return bad_request("invalid_query_parameter",
                         "status must be pending, acquired, success, failed or dead, got \"" + *text + "\"");
    }
    status = *text;
  }
  SINDRI_TRY(limit, optional_int_query(call.request, "limit", 1, 1000));
  SINDRI_TRY(offset, optional_int_query(call.request, "offset", 0, INT64_MAX));
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_CHECK(db::load_subscription(connection, id));
    SINDRI_TRY(deliveries, db::list_deliveries(connection, id, status, limit.value_or(50), offset.value_or(0)));
    return json_response(200, deliveries);
  });
}

ApiResult<http::Response> test_webhook(Call& call) {
  SINDRI_TRY(id, call.id_param());
  SINDRI_TRY(key, webhook_key(call));
  SINDRI_TRY(subscription, in_read<db::Subscription>(call.db(), [&](store::Connection& connection) {
               return db::load_subscription(connection, id);
             }));
  auto target = decrypt_target(key, subscription);
  if (!target.ok()) {
    return ApiError{500, "webhook_key", "the subscription's secrets do not decrypt: " + target.error().message,
                    Value(), {}};
  }
  const std::string payload = to_json(make_object(
      {{"id", Value(new_uuid())},
       {"event_type", Value("webhook.test")},
       {"timestamp", Value(now_timestamp())},
       {"data", make_object({{"message", Value("This is a test webhook delivery from Sindri")},
                             {"subscription_id", Value(id)}})}}));
  const AttemptOutcome outcome = send_webhook(*target, "webhook.test", new_uuid(), payload);
  if (outcome.delivered) {
    return json_response(200, make_object({{"success", Value(true)},
                                           {"status_code", Value(*outcome.status_code)},
                                           {"message", Value("Test delivery successful")}}));
  }
  Value details = make_object({{"body", Value(outcome.body)}});
  if (outcome.status_code) details.set("status_code", Value(*outcome.status_code));
  return ApiError{400, "webhook_test_failed",
                  outcome.status_code ? "endpoint returned HTTP " + std::to_string(*outcome.status_code)
                                      : "request failed: " + outcome.error,
                  std::move(details), {}};
}

// PendingWebhookDelivery, with the URL and auth header decrypted for the
// agent that sends it; a delivery whose secrets do not decrypt goes dead.
ApiResult<std::optional<Value>> pending_delivery(store::Connection& connection, const WebhookKey& key,
                                                 const db::ClaimedDelivery& delivery,
                                                 std::chrono::microseconds backoff_unit) {
  auto subscription = db::load_subscription(connection, delivery.subscription_id);
  if (!subscription.ok()) {
    if (subscription.error().status != 404) return std::move(subscription).error();
    SINDRI_CHECK(db::mark_delivery_failed(connection, delivery.id, "subscription not found", true, {}));
    return std::optional<Value>();
  }
  auto target = decrypt_target(key, *subscription);
  if (!target.ok()) {
    SINDRI_CHECK(record_attempt(connection, *subscription, delivery.id, delivery.attempts,
                                {false, false, std::nullopt, target.error().message, ""}, backoff_unit, ""));
    return std::optional<Value>();
  }
  return std::optional<Value>(make_object({
      {"id", Value(delivery.id)},
      {"subscription_id", Value(delivery.subscription_id)},
      {"event_type", Value(delivery.event_type)},
      {"payload", Value(delivery.payload)},
      {"url", Value(target->url)},
      {"auth_header", target->auth_header ? Value(*target->auth_header) : Value()},
      {"timeout_seconds", Value(target->timeout_seconds)},
      {"max_retries", Value(subscription->fields.max_retries)},
      {"attempts", Value(delivery.attempts)},
  }));
}

ApiResult<http::Response> pending_agent_webhooks(Call& call) {
  SINDRI_TRY(agent_id, call.id_param("agent_id"));
  if (!call.caller.is_admin() && !call.caller.is_agent(agent_id)) {
    return forbidden("agent_pak_mismatch", "an agent may only claim its own webhook deliveries");
  }
  SINDRI_TRY(key, webhook_key(call));
  const DeliverySettings settings = delivery_settings(*call.services.config.current());
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_CHECK(db::load_agent(connection, agent_id));
    SINDRI_TRY(claimed, db::claim_agent_deliveries(connection, agent_id, kAgentBatch, settings.lease));
    Array items;
    for (const db::ClaimedDelivery& delivery : claimed) {
      SINDRI_TRY(item, pending_delivery(connection, key, delivery, settings.backoff_unit));
      if (item) items.push_back(std::move(*item));
    }
    return json_response(200, Value(std::move(items)));
  });
}

ApiResult<http::Response> report_delivery_result(Call& call) {
  SINDRI_TRY(id, call.id_param());
  SINDRI_TRY(body, BodyObject::parse(call.request, "DeliveryResultRequest"));
  SINDRI_TRY(success, body.optional_bool("success"));
  if (!success) return field_error("missing_field", "/success is required by DeliveryResultRequest", "/success");
  SINDRI_TRY(status_code, body.optional_int("status_code"));
  if (status_code && (*status_code < 100 || *status_code > 599)) {
    return field_error("invalid_field", "/status_code must be an HTTP status (100 to 599)", "/status_code");
  }
  SINDRI_TRY(error, body.optional_string("error", TextRule{65536, true, true, false}));
  SINDRI_TRY(duration_ms, body.optional_int("duration_ms"));
  if (duration_ms && *duration_ms < 0) {
    return field_error("invalid_field", "/duration_ms must not be negative", "/duration_ms");
  }
  SINDRI_CHECK(body.finish());
  const auto backoff_unit = delivery_settings(*call.services.config.current()).backoff_unit;
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(delivery, db::load_delivery(connection, id));
    const Value* acquired_by = delivery.find("acquired_by");
    if (delivery.find("status")->get_string() != "acquired" || acquired_by == nullptr ||
        !acquired_by->is_string() || acquired_by->get_string() != call.caller.id) {
      return forbidden("delivery_not_acquired_by_agent", "delivery " + id + " is not acquired by this agent");
    }
    SINDRI_TRY(subscription, db::load_subscription(connection, delivery.find("subscription_id")->get_string()));
    AttemptOutcome outcome;
    outcome.delivered = *success;
    outcome.status_code = status_code ? std::optional<int>(static_cast<int>(*status_code)) : std::nullopt;
    // No status is a transport failure on the agent's side: worth a retry.
    outcome.retryable = !status_code || is_retryable_status(static_cast<int>(*status_code));
    outcome.error = error.value_or(status_code ? "HTTP " + std::to_string(*status_code) : "delivery failed");
    SINDRI_TRY(state, record_attempt(connection, subscription, id, delivery.find("attempts")->get_int(), outcome,
                                     backoff_unit, call.caller.id));
    SINDRI_TRY(updated, db::load_delivery(connection, id));
    return json_response(200, make_object({{"status", Value(state)},
                                           {"delivery_id", Value(id)},
                                           {"attempts", *updated.find("attempts")},
                                           {"next_retry_at", *updated.find("next_retry_at")}}));
  });
}

}  // namespace

void add_webhook_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"GET", "/webhooks", Allow::Admin, list_webhooks});
  routes.push_back({"POST", "/webhooks", Allow::Admin, create_webhook});
  routes.push_back({"GET", "/webhooks/event-types", Allow::Admin, list_event_types});
  routes.push_back({"GET", "/webhooks/{id}", Allow::Admin, get_webhook});
  routes.push_back({"PUT", "/webhooks/{id}", Allow::Admin, update_webhook});
  routes.push_back({"DELETE", "/webhooks/{id}", Allow::Admin, delete_webhook});
  routes.push_back({"GET", "/webhooks/{id}/deliveries", Allow::Admin, list_deliveries});
  routes.push_back({"POST", "/webhooks/{id}/test", Allow::Admin, test_webhook});
  routes.push_back({"GET", "/agents/{agent_id}/webhooks/pending", Allow::Admin | Allow::Agent, pending_agent_webhooks});
  routes.push_back({"POST", "/webhook-deliveries/{id}/result", Allow::Agent, report_delivery_result});
}

}  // namespace sindri::broker
