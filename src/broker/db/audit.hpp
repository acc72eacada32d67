#pragma once
// The audit_logs table (seed 002): who changed what, when and from where.
// An entry about a change is written in the change's own transaction, so
// that a crash loses neither or both.

#include <optional>
#include <string>
#include <string_view>

#include "broker/api_error.hpp"
#include "store/database.hpp"

namespace sindri::broker::db {

struct AuditEntry {
  std::string actor_type;  // admin, agent, generator or system
  std::string actor_id;    // empty for the system and the unauthenticated
  std::string action;      // e.g. "stack.created", "auth.failed"
  std::string resource_type;
  std::string resource_id;  // empty when the action names no one resource
  Value details;            // null or any JSON
  std::string ip_address;
  std::string user_agent;
};

ApiResult<Ok> record_audit(store::Connection& connection, const AuditEntry& entry);

struct AuditQuery {
  std::optional<std::string> actor_type, actor_id, resource_type, resource_id;
  std::optional<std::string> action;  // a trailing * matches a prefix
  // The fixed-width form of now_timestamp(): `from` inclusive, `to` exclusive.
  std::optional<std::string> from, to;
  int64_t limit = 100;
  int64_t offset = 0;
};
// {logs, total, count, limit, offset}, newest first; each entry has the
// actor's name (actor_name): a generator's or an agent's name, "admin" or
// "system", null when the generator or agent is no more.
ApiResult<Value> query_audit(store::Connection& connection, const AuditQuery& query);

// Deletes up to `limit` entries older than `cutoff` (RFC 3339); answers how
// many. The caller repeats while it deletes `limit`, a transaction each, so
// that a first pass over a large table holds neither a huge transaction nor
// every id in memory.
ApiResult<int64_t> delete_audit_before(store::Connection& connection, std::string_view cutoff, int64_t limit);

}  // namespace sindri::broker::db
