#include "broker/db/targeting.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "broker/db/counters.hpp"
#include "broker/db/rows.hpp"
#include "broker/ids.hpp"

namespace sindri::broker::db {
namespace {

// Does agent `a` (by alias) carry every label and annotation of stack `s`?
#define SINDRI_AGENT_MATCHES_STACK                                                                     \
  "(EXISTS (SELECT 1 FROM stack_labels WHERE stack_id = s.id) "                                        \
  "  OR EXISTS (SELECT 1 FROM stack_annotations WHERE stack_id = s.id)) "                              \
  "AND NOT EXISTS (SELECT 1 FROM stack_labels sl WHERE sl.stack_id = s.id AND NOT EXISTS "             \
  "  (SELECT 1 FROM agent_labels al WHERE al.agent_id = a.id AND al.label = sl.label)) "               \
  "AND NOT EXISTS (SELECT 1 FROM stack_annotations sa WHERE sa.stack_id = s.id AND NOT EXISTS "        \
  "  (SELECT 1 FROM agent_annotations aa WHERE aa.agent_id = a.id AND aa.key = sa.key AND aa.value = sa.value))"

// Rows one statement inserts at most (three parameters each).
constexpr size_t kRowsPerInsert = 300;

// Inserts the (agent id, stack id) pairs as the engine's targets, a
// statement per kRowsPerInsert of them, with their history; answers the
// targets {id, agent_id, stack_id}. A label that matches a fleet is one
// change of thousands of targets.
ApiResult<Array> insert_matched_targets(store::Connection& connection, const store::Rows& pairs) {
  Array added;
  for (size_t first = 0; first < pairs.size(); first += kRowsPerInsert) {
    const size_t count = std::min(kRowsPerInsert, pairs.size() - first);
    std::string targets = "INSERT INTO agent_targets (id, agent_id, stack_id, matched_by_labels) VALUES ";
    std::string history = "INSERT INTO agent_target_history (agent_id, stack_id) VALUES ";
    std::vector<Value> target_params, history_params;
    for (size_t i = 0; i < count; ++i) {
      const auto& row = pairs.rows[first + i];
      const std::string n = std::to_string(3 * i + 1), m = std::to_string(2 * i + 1);
      targets += (i ? ", ($" : "($") + n + ", $" + std::to_string(3 * i + 2) + ", $" + std::to_string(3 * i + 3) +
                 ", TRUE)";
      history += (i ? ", ($" : "($") + m + ", $" + std::to_string(2 * i + 2) + ")";
      target_params.insert(target_params.end(), {Value(new_uuid()), row[0], row[1]});
      history_params.insert(history_params.end(), {row[0], row[1]});
    }
    SINDRI_TRY(inserted, connection.query(targets + " RETURNING id, agent_id, stack_id", target_params));
    for (size_t i = 0; i < inserted.size(); ++i) added.push_back(row_object(inserted, i));
    SINDRI_CHECK(connection.query(history + " ON CONFLICT DO NOTHING", history_params));
  }
  return added;
}

// Drops the engine's targets that no longer match, adds the missing ones, and
// tells cached target states that something changed. `stale` deletes
// (returning id, agent id, stack id), `missing` selects (agent id, stack id)
// pairs; both take the id as $1.
ApiResult<Value> sync_targets(store::Connection& connection, std::string_view id, const char* stale,
                              const char* missing) {
  const Value key(id);
  SINDRI_TRY(dropped, connection.query(stale, {key}));
  Array changed;
  for (size_t i = 0; i < dropped.size(); ++i) changed.push_back(row_object(dropped, i));
  SINDRI_TRY(pairs, connection.query(missing, {key}));
  SINDRI_TRY(added, insert_matched_targets(connection, pairs));
  for (Value& target : added) changed.push_back(std::move(target));
  SINDRI_CHECK(touch_target_state(connection));
  return Value(std::move(changed));
}

}  // namespace

ApiResult<Value> sync_targets_for_stack(store::Connection& connection, std::string_view stack_id) {
  return sync_targets(
      connection, stack_id,
      "DELETE FROM agent_targets WHERE stack_id = $1 AND matched_by_labels AND agent_id NOT IN "
      "(SELECT a.id FROM agents a, stacks s WHERE s.id = $1 AND " SINDRI_LIVE_IN("a") " AND " SINDRI_AGENT_MATCHES_STACK ") "
      "RETURNING id, agent_id, stack_id",
      "SELECT a.id, s.id FROM agents a, stacks s WHERE s.id = $1 AND " SINDRI_LIVE_IN("s")
      " AND " SINDRI_LIVE_IN("a") " AND " SINDRI_AGENT_MATCHES_STACK
      " AND NOT EXISTS (SELECT 1 FROM agent_targets t WHERE t.agent_id = a.id AND t.stack_id = s.id)");
}

ApiResult<Value> sync_targets_for_agent(store::Connection& connection, std::string_view agent_id) {
  return sync_targets(
      connection, agent_id,
      "DELETE FROM agent_targets WHERE agent_id = $1 AND matched_by_labels AND stack_id NOT IN "
      "(SELECT s.id FROM agents a, stacks s WHERE a.id = $1 AND " SINDRI_AGENT_MATCHES_STACK ") "
      "RETURNING id, agent_id, stack_id",
      "SELECT a.id, s.id FROM agents a, stacks s WHERE a.id = $1 AND " SINDRI_LIVE_IN("a")
      " AND " SINDRI_LIVE_IN("s") " AND " SINDRI_AGENT_MATCHES_STACK
      " AND NOT EXISTS (SELECT 1 FROM agent_targets t WHERE t.agent_id = a.id AND t.stack_id = s.id)");
}

}  // namespace sindri::broker::db
