#include "broker/db/audit.hpp"

#include "broker/db/rows.hpp"
#include "broker/ids.hpp"
#include "value/json.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker::db {
namespace {

Value text_or_null(std::string_view text) { return text.empty() ? Value() : Value(text); }

// One statement text for every combination of filters (a null parameter
// filters nothing), so that each connection prepares it once.
#define SINDRI_AUDIT_FILTER                                                                  \
  " WHERE (CAST($1 AS TEXT) IS NULL OR a.actor_type = $1)"                                    \
  " AND (CAST($2 AS TEXT) IS NULL OR a.actor_id = $2)"                                        \
  " AND (CAST($3 AS TEXT) IS NULL OR a.action = $3)"                                          \
  " AND (CAST($4 AS TEXT) IS NULL OR substr(a.action, 1, length($4)) = $4)"                   \
  " AND (CAST($5 AS TEXT) IS NULL OR a.resource_type = $5)"                                   \
  " AND (CAST($6 AS TEXT) IS NULL OR a.resource_id = $6)"                                     \
  " AND (CAST($7 AS TEXT) IS NULL OR a.timestamp >= $7)"                                      \
  " AND (CAST($8 AS TEXT) IS NULL OR a.timestamp < $8)"

}  // namespace

ApiResult<Ok> record_audit(store::Connection& connection, const AuditEntry& entry) {
  const std::string now = now_timestamp();
  SINDRI_CHECK(connection.query(
      "INSERT INTO audit_logs (id, timestamp, actor_type, actor_id, action, resource_type, resource_id, details, "
      "ip_address, user_agent, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $2)",
      {Value(new_uuid()), Value(now), Value(entry.actor_type), text_or_null(entry.actor_id), Value(entry.action),
       Value(entry.resource_type), text_or_null(entry.resource_id),
       entry.details.is_null() ? Value() : Value(to_json(entry.details)), text_or_null(entry.ip_address),
       text_or_null(entry.user_agent)}));
  return Ok{};
}

ApiResult<Value> query_audit(store::Connection& connection, const AuditQuery& query) {
  std::optional<std::string> exact_action, action_prefix;
  if (query.action && query.action->ends_with('*')) {
    action_prefix = query.action->substr(0, query.action->size() - 1);
  } else {
    exact_action = query.action;
  }
  const std::vector<Value> filter = {nullable_text(query.actor_type),    nullable_text(query.actor_id),
                                     nullable_text(exact_action),        nullable_text(action_prefix),
                                     nullable_text(query.resource_type), nullable_text(query.resource_id),
                                     nullable_text(query.from),          nullable_text(query.to)};
  SINDRI_TRY(total, connection.query("SELECT COUNT(*) FROM audit_logs a" SINDRI_AUDIT_FILTER, filter));
  std::vector<Value> page = filter;
  page.push_back(Value(query.limit));
  page.push_back(Value(query.offset));
  SINDRI_TRY(rows, connection.query(
                       "SELECT a.id, a.timestamp, a.actor_type, a.actor_id, "
                       "CASE a.actor_type WHEN 'generator' THEN g.name WHEN 'agent' THEN ag.name ELSE a.actor_type END "
                       "AS actor_name, a.action, a.resource_type, a.resource_id, "
                       "a.details, a.ip_address, a.user_agent, a.created_at FROM audit_logs a "
                       "LEFT JOIN generators g ON a.actor_type = 'generator' AND g.id = a.actor_id "
                       "LEFT JOIN agents ag ON a.actor_type = 'agent' AND ag.id = a.actor_id" SINDRI_AUDIT_FILTER
                       " ORDER BY a.sequence_id DESC LIMIT $9 OFFSET $10",
                       page));
  Array logs;
  for (size_t i = 0; i < rows.size(); ++i) {
    Value entry = row_object(rows, i);
    for (Member& member : entry.mutable_object()) {
      if (member.key.get_string() != "details" || !member.value.is_string()) continue;
      auto parsed = parse_json(member.value.get_string());
      member.value = parsed.ok() ? std::move(parsed).value() : Value();
    }
    logs.push_back(std::move(entry));
  }
  const auto count = static_cast<int64_t>(logs.size());
  return make_object({{"logs", Value(std::move(logs))},
                      {"total", total.rows[0][0]},
                      {"count", Value(count)},
                      {"limit", Value(query.limit)},
                      {"offset", Value(query.offset)}});
}

ApiResult<int64_t> delete_audit_before(store::Connection& connection, std::string_view cutoff, int64_t limit) {
  SINDRI_TRY(rows, connection.query("DELETE FROM audit_logs WHERE sequence_id IN (SELECT sequence_id FROM audit_logs "
                                    "WHERE timestamp < $1 LIMIT $2) RETURNING 1",
                                    {Value(cutoff), Value(limit)}));
  return static_cast<int64_t>(rows.size());
}

}  // namespace sindri::broker::db
