#include "broker/template_targets.hpp"

#include "broker/ids.hpp"
#include "broker/records.hpp"
#include "broker/routes.hpp"

namespace sindri::broker {
namespace {

#define SINDRI_FROM_LIVE_MATCHING_PAIRS                                        \
  "FROM stack_templates t, stacks s WHERE t.deleted_at IS NULL " \
  "AND s.deleted_at IS NULL AND " SINDRI_STACK_MATCHES_TEMPLATE

// `stale` deletes the targets that no longer hold, `missing` selects the
// (template id, stack id) pairs to add; both take the id as $1. Each insert
// checks the match again, since a broker's periodic pass may race a label
// change on another, and another broker may add the same pair at the same
// moment, hence DO NOTHING.
ApiResult<Ok> sync(store::Connection& connection, std::string_view id, const char* stale, const char* missing) {
  const Value key(id);
  BROKER_CHECK(connection.query(stale, {key}));
  BROKER_TRY(pairs, connection.query(missing, {key}));
  const Value now(now_timestamp());
  for (const auto& row : pairs.rows) {
    BROKER_CHECK(connection.query("INSERT INTO template_targets (id, template_id, stack_id, created_at) "
                                  "SELECT $1, t.id, s.id, $4 " SINDRI_FROM_LIVE_MATCHING_PAIRS
                                  " AND t.id = $2 AND s.id = $3 ON CONFLICT (template_id, stack_id) DO NOTHING",
                                  {Value(new_uuid()), row[0], row[1], now}));
  }
  return Ok{};
}

ApiResult<http::Response> list_template_targets(Call& call) {
  BROKER_TRY(id, call.id_param());
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_CHECK(check_template_access(connection, call.caller, id, false));
    // A generator sees only its own stacks among the targets.
    BROKER_TRY(rows, call.caller.is_admin()
                         ? connection.query("SELECT tt.id, tt.template_id, tt.stack_id, tt.created_at "
                                            "FROM template_targets tt WHERE tt.template_id = $1 "
                                            "ORDER BY tt.created_at, tt.stack_id",
                                            {Value(id)})
                         : connection.query("SELECT tt.id, tt.template_id, tt.stack_id, tt.created_at "
                                            "FROM template_targets tt JOIN stacks s ON s.id = tt.stack_id "
                                            "WHERE tt.template_id = $1 AND s.generator_id = $2 "
                                            "ORDER BY tt.created_at, tt.stack_id",
                                            {Value(id), Value(call.caller.id)}));
    return json_response(200, rows_array(rows));
  });
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

ApiResult<TemplateMismatch> template_mismatch(store::Connection& connection, std::string_view template_id,
                                              std::string_view stack_id) {
  TemplateMismatch mismatch;
  BROKER_TRY(labels, connection.query("SELECT tl.label FROM template_labels tl WHERE tl.template_id = $1 "
                                      "AND NOT EXISTS (SELECT 1 FROM stack_labels sl WHERE sl.stack_id = $2 "
                                      "AND sl.label = tl.label) ORDER BY tl.label",
                                      {Value(template_id), Value(stack_id)}));
  for (const auto& row : labels.rows) mismatch.missing_labels.emplace_back(row[0].get_string());
  BROKER_TRY(annotations,
             connection.query("SELECT ta.key, ta.value FROM template_annotations ta WHERE ta.template_id = $1 "
                              "AND NOT EXISTS (SELECT 1 FROM stack_annotations sa WHERE sa.stack_id = $2 "
                              "AND sa.key = ta.key AND sa.value = ta.value) ORDER BY ta.key",
                              {Value(template_id), Value(stack_id)}));
  for (const auto& row : annotations.rows) {
    mismatch.missing_annotations.emplace_back(row[0].get_string(), row[1].get_string());
  }
  return mismatch;
}

ApiError mismatch_error(const TemplateMismatch& mismatch, std::string_view template_id, std::string_view stack_id) {
  std::string message = "template " + std::string(template_id) + " does not match stack " + std::string(stack_id) +
                        ": the stack lacks";
  Array labels;
  for (const std::string& label : mismatch.missing_labels) {
    labels.push_back(Value(label));
    message += " label \"" + label + "\",";
  }
  Array annotations;
  for (const auto& [key, value] : mismatch.missing_annotations) {
    Object annotation;
    annotation.push_back({Value("key"), Value(key)});
    annotation.push_back({Value("value"), Value(value)});
    annotations.push_back(Value(std::move(annotation)));
    message += " annotation " + key + "=" + value + ",";
  }
  message.pop_back();
  Object details;
  details.push_back({Value("template_id"), Value(template_id)});
  details.push_back({Value("stack_id"), Value(stack_id)});
  details.push_back({Value("missing_labels"), Value(std::move(labels))});
  details.push_back({Value("missing_annotations"), Value(std::move(annotations))});
  return ApiError{422, "template_labels_mismatch", std::move(message), Value(std::move(details)), std::nullopt};
}

void add_template_target_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"GET", "/templates/{id}/targets", true, true, false, list_template_targets});
}

}  // namespace sindri::broker
