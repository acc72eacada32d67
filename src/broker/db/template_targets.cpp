#include "broker/db/template_targets.hpp"

#include "broker/db/rows.hpp"
#include "broker/ids.hpp"

namespace sindri::broker::db {
namespace {

#define SINDRI_FROM_LIVE_MATCHING_PAIRS \
  "FROM stack_templates t, stacks s WHERE " SINDRI_LIVE_IN("t") " AND " SINDRI_LIVE_IN("s") " AND " SINDRI_STACK_MATCHES_TEMPLATE

// `stale` deletes the targets that no longer hold, `missing` selects the
// (template id, stack id) pairs to add; both take the id as $1. Each insert
// checks the match again, since a broker's periodic pass may race a label
// change on another, and another broker may add the same pair at the same
// moment, hence DO NOTHING.
ApiResult<Ok> sync(store::Connection& connection, std::string_view id, const char* stale, const char* missing) {
  const Value key(id);
  SINDRI_CHECK(connection.query(stale, {key}));
  SINDRI_TRY(pairs, connection.query(missing, {key}));
  const Value now(now_timestamp());
  for (const auto& row : pairs.rows) {
    SINDRI_CHECK(connection.query("INSERT INTO template_targets (id, template_id, stack_id, created_at) "
                                  "SELECT $1, t.id, s.id, $4 " SINDRI_FROM_LIVE_MATCHING_PAIRS
                                  " AND t.id = $2 AND s.id = $3 ON CONFLICT (template_id, stack_id) DO NOTHING",
                                  {Value(new_uuid()), row[0], row[1], now}));
  }
  return Ok{};
}

}  // namespace

ApiResult<Ok> sync_template_targets_for_template(store::Connection& connection, std::string_view template_id) {
  return sync(connection, template_id,
              "DELETE FROM template_targets WHERE template_id = $1 AND stack_id NOT IN "
              "(SELECT s.id " SINDRI_FROM_LIVE_MATCHING_PAIRS " AND t.id = $1)",
              "SELECT t.id, s.id " SINDRI_FROM_LIVE_MATCHING_PAIRS " AND t.id = $1 AND NOT EXISTS "
              "(SELECT 1 FROM template_targets tt WHERE tt.template_id = t.id AND tt.stack_id = s.id)");
}

ApiResult<Ok> sync_template_targets_for_stack(store::Connection& connection, std::string_view stack_id) {
  return sync(connection, stack_id,
              "DELETE FROM template_targets WHERE stack_id = $1 AND template_id NOT IN "
              "(SELECT t.id " SINDRI_FROM_LIVE_MATCHING_PAIRS " AND s.id = $1)",
              "SELECT t.id, s.id " SINDRI_FROM_LIVE_MATCHING_PAIRS " AND s.id = $1 AND NOT EXISTS "
              "(SELECT 1 FROM template_targets tt WHERE tt.template_id = t.id AND tt.stack_id = s.id)");
}

ApiResult<Ok> drop_dead_template_targets(store::Connection& connection) {
  SINDRI_CHECK(connection.query(
      "DELETE FROM template_targets WHERE template_id IN (SELECT id FROM stack_templates WHERE deleted_at IS NOT NULL) "
      "OR stack_id IN (SELECT id FROM stacks WHERE deleted_at IS NOT NULL)"));
  return Ok{};
}

ApiResult<Value> list_template_targets(store::Connection& connection, std::string_view template_id,
                                       std::string_view generator_id) {
  SINDRI_TRY(rows, generator_id.empty()
                       ? connection.query("SELECT tt.id, tt.template_id, tt.stack_id, tt.created_at "
                                          "FROM template_targets tt WHERE tt.template_id = $1 "
                                          "ORDER BY tt.created_at, tt.stack_id",
                                          {Value(template_id)})
                       : connection.query("SELECT tt.id, tt.template_id, tt.stack_id, tt.created_at "
                                          "FROM template_targets tt JOIN stacks s ON s.id = tt.stack_id "
                                          "WHERE tt.template_id = $1 AND s.generator_id = $2 "
                                          "ORDER BY tt.created_at, tt.stack_id",
                                          {Value(template_id), Value(generator_id)}));
  return rows_array(rows);
}

ApiResult<TemplateMismatch> template_mismatch(store::Connection& connection, std::string_view template_id,
                                              std::string_view stack_id) {
  TemplateMismatch mismatch;
  SINDRI_TRY(labels, connection.query("SELECT tl.label FROM template_labels tl WHERE tl.template_id = $1 "
                                      "AND NOT EXISTS (SELECT 1 FROM stack_labels sl WHERE sl.stack_id = $2 "
                                      "AND sl.label = tl.label) ORDER BY tl.label",
                                      {Value(template_id), Value(stack_id)}));
  for (const auto& row : labels.rows) mismatch.missing_labels.emplace_back(row[0].get_string());
  SINDRI_TRY(annotations,
             connection.query("SELECT ta.key, ta.value FROM template_annotations ta WHERE ta.template_id = $1 "
                              "AND NOT EXISTS (SELECT 1 FROM stack_annotations sa WHERE sa.stack_id = $2 "
                              "AND sa.key = ta.key AND sa.value = ta.value) ORDER BY ta.key",
                              {Value(template_id), Value(stack_id)}));
  for (const auto& row : annotations.rows) {
    mismatch.missing_annotations.emplace_back(row[0].get_string(), row[1].get_string());
  }
  return mismatch;
}

}  // namespace sindri::broker::db
