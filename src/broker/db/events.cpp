#include "broker/db/events.hpp"

#include "broker/db/rows.hpp"
#include "broker/db/webhooks.hpp"
#include "broker/ids.hpp"
#include "value/json.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker::db {
namespace {

// JSON text of a column, or null when it is null or not JSON.
Value parsed_column(const Value& cell) {
  if (!cell.is_string()) return Value();
  auto parsed = parse_json(cell.get_string());
  return parsed.ok() ? std::move(parsed).value() : Value();
}

bool any_pattern_matches(const Value& patterns, std::string_view event_type) {
  if (!patterns.is_array()) return false;
  for (const Value& pattern : patterns.get_array()) {
    if (pattern.is_string() && event_type_matches(pattern.get_string(), event_type)) return true;
  }
  return false;
}

}  // namespace

bool event_type_matches(std::string_view pattern, std::string_view event_type) {
  if (pattern == "*" || pattern == event_type) return true;
  if (!pattern.ends_with(".*")) return false;
  const std::string_view prefix = pattern.substr(0, pattern.size() - 1);  // keeps the dot
  return event_type.size() > prefix.size() && event_type.starts_with(prefix);
}

bool event_passes_filters(const Value& filters, const Value& data) {
  if (!filters.is_object()) return true;
  for (std::string_view field : {"agent_id", "stack_id"}) {
    const Value* wanted = filters.find(field);
    if (wanted == nullptr || wanted->is_null()) continue;
    const Value* carried = data.find(field);
    if (carried == nullptr || !(*carried == *wanted)) return false;
  }
  return true;
}

ApiResult<Ok> emit_event(store::Connection& connection, std::string_view event_type, const Value& data) {
  SINDRI_TRY(subscriptions, connection.query("SELECT id, event_types, filters, target_labels FROM "
                                             "webhook_subscriptions WHERE enabled = TRUE AND " SINDRI_LIVE));
  if (subscriptions.empty()) return Ok{};
  const std::string event_id = new_uuid();
  const std::string now = now_timestamp();
  std::optional<std::string> payload;
  for (const auto& row : subscriptions.rows) {
    if (!any_pattern_matches(parsed_column(row[1]), event_type)) continue;
    if (!event_passes_filters(parsed_column(row[2]), data)) continue;
    if (!payload) {
      payload = to_json(make_object({{"id", Value(event_id)},
                                     {"event_type", Value(event_type)},
                                     {"timestamp", Value(now)},
                                     {"data", data}}));
    }
    SINDRI_CHECK(connection.query(
        "INSERT INTO webhook_deliveries (id, subscription_id, event_type, event_id, payload, target_labels, status, "
        "attempts, next_retry_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, 'pending', 0, $7, $7)",
        {Value(new_uuid()), row[0], Value(event_type), Value(event_id), Value(*payload), row[3], Value(now)}));
  }
  return Ok{};
}

}  // namespace sindri::broker::db
