#include "broker/db/deployment_objects.hpp"

#include <span>
#include <vector>

#include "broker/db/counters.hpp"
#include "broker/db/events.hpp"
#include "broker/db/rows.hpp"
#include "broker/db/template_targets.hpp"
#include "broker/ids.hpp"
#include "value/json.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker::db {
namespace {

// $1-$6: the object's columns; $7: the owner ('' for any); $8: the template.
#define SINDRI_INSERT_DEPLOYMENT_OBJECT                                                   \
  "INSERT INTO deployment_objects (id, stack_id, yaml_content, yaml_checksum, "          \
  "is_deletion_marker, submitted_at, created_at, updated_at) "                           \
  "SELECT $1, $2, $3, $4, CAST($5 AS BOOLEAN), $6, $6, $6 "                               \
  "WHERE EXISTS (SELECT 1 FROM stacks s WHERE s.id = $2 AND " SINDRI_LIVE_IN("s")        \
  " AND (CAST($7 AS TEXT) = '' OR s.generator_id = $7)"
#define SINDRI_INSERT_RENDERED_DEPLOYMENT_OBJECT                                              \
  SINDRI_INSERT_DEPLOYMENT_OBJECT                                                            \
  " AND EXISTS (SELECT 1 FROM stack_templates t WHERE t.id = $8 AND " SINDRI_LIVE_IN("t") \
  " AND " SINDRI_STACK_MATCHES_TEMPLATE ")"
// Only what the database makes: the rest of the object is the request's, and
// sending the YAML back would double what crosses the wire.
#define SINDRI_RETURNING_DEPLOYMENT_OBJECT ") RETURNING sequence_id"

// On PostgreSQL the object, its provenance and the target-state bump are one
// statement (data-modifying WITH): one round trip instead of three. The
// other rows are written only when the object was.
constexpr std::string_view kInsertObjectPostgres =
    "WITH o AS (" SINDRI_INSERT_DEPLOYMENT_OBJECT ") RETURNING sequence_id), "
    "g AS (UPDATE target_state_generations SET generation = generation + 1 "
    "WHERE shard = $8 AND EXISTS (SELECT 1 FROM o)) "
    "SELECT sequence_id FROM o";
constexpr std::string_view kInsertRenderedObjectPostgres =
    "WITH o AS (" SINDRI_INSERT_RENDERED_DEPLOYMENT_OBJECT ") RETURNING sequence_id, created_at), "
    "p AS (INSERT INTO rendered_deployment_objects (deployment_object_sequence_id, template_id, template_version, "
    "template_parameters, created_at) SELECT o.sequence_id, $8, CAST($9 AS INTEGER), $10, o.created_at FROM o), "
    "g AS (UPDATE target_state_generations SET generation = generation + 1 "
    "WHERE shard = $11 AND EXISTS (SELECT 1 FROM o)) "
    "SELECT sequence_id FROM o";

}  // namespace

ApiResult<Value> insert_deployment_object(store::Connection& connection, std::string_view stack_id,
                                          const std::string& yaml, const std::string& checksum, bool deletion_marker,
                                          std::string_view owner, const Provenance* provenance) {
  const std::string now = now_timestamp();
  const bool postgres = connection.dialect() == store::Dialect::Postgres;
  std::vector<Value> params = {Value(new_uuid()), Value(stack_id), Value(yaml), Value(checksum),
                               Value(deletion_marker), Value(now), Value(owner)};
  if (provenance) {
    params.insert(params.end(), {Value(provenance->template_id), Value(provenance->template_version),
                                 Value(provenance->parameters_json)});
  }
  if (postgres) params.push_back(Value(target_state_shard()));
  const std::string_view sql =
      postgres ? (provenance ? kInsertRenderedObjectPostgres : kInsertObjectPostgres)
               : (provenance ? std::string_view(SINDRI_INSERT_RENDERED_DEPLOYMENT_OBJECT SINDRI_RETURNING_DEPLOYMENT_OBJECT)
                             : std::string_view(SINDRI_INSERT_DEPLOYMENT_OBJECT SINDRI_RETURNING_DEPLOYMENT_OBJECT));
  const size_t statement_params = postgres ? params.size() : (provenance ? 8 : 7);
  SINDRI_TRY(rows, connection.query(sql, std::span<const Value>(params).first(statement_params)));
  if (rows.empty()) return not_found("stack", stack_id);
  if (!postgres) {
    if (provenance) {
      SINDRI_CHECK(connection.query(
          "INSERT INTO rendered_deployment_objects (deployment_object_sequence_id, template_id, template_version, "
          "template_parameters, created_at) VALUES ($1, $2, $3, $4, $5)",
          {rows.rows[0][0], params[7], params[8], params[9], params[5]}));
    }
    SINDRI_CHECK(touch_target_state(connection));
  }
  SINDRI_CHECK(emit_event(connection, "deployment.created",
                          make_object({{"deployment_object_id", params[0]},
                                       {"stack_id", params[1]},
                                       {"sequence_id", rows.rows[0][0]},
                                       {"created_at", params[5]}})));
  return make_object({{"id", std::move(params[0])},
                      {"sequence_id", std::move(rows.rows[0][0])},
                      {"stack_id", std::move(params[1])},
                      {"yaml_content", std::move(params[2])},
                      {"yaml_checksum", std::move(params[3])},
                      {"is_deletion_marker", std::move(params[4])},
                      {"submitted_at", params[5]},
                      {"created_at", params[5]},
                      {"updated_at", std::move(params[5])},
                      {"deleted_at", Value()}});
}

ApiResult<Value> list_deployment_objects(store::Connection& connection, std::string_view stack_id) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_DEPLOYMENT_OBJECT_COLUMNS
                                    " FROM deployment_objects WHERE stack_id = $1 AND " SINDRI_LIVE
                                    " ORDER BY sequence_id",
                                    {Value(stack_id)}));
  return rows_array(rows, {"is_deletion_marker"});
}

ApiResult<Value> load_deployment_object(store::Connection& connection, std::string_view id) {
  SINDRI_TRY(rows, connection.query("SELECT " SINDRI_DEPLOYMENT_OBJECT_COLUMNS
                                    " FROM deployment_objects WHERE id = $1 AND " SINDRI_LIVE,
                                    {Value(id)}));
  if (rows.empty()) return not_found("deployment_object", id);
  return deployment_object_object(rows, 0);
}

ApiResult<bool> deployment_object_exists(store::Connection& connection, std::string_view id) {
  SINDRI_TRY(rows, connection.query("SELECT 1 FROM deployment_objects WHERE id = $1 AND " SINDRI_LIVE, {Value(id)}));
  return !rows.empty();
}

ApiResult<std::optional<RecordedProvenance>> load_provenance(store::Connection& connection, const Value& sequence_id) {
  SINDRI_TRY(rows, connection.query("SELECT template_id, template_version, template_parameters, created_at "
                                    "FROM rendered_deployment_objects WHERE deployment_object_sequence_id = $1",
                                    {sequence_id}));
  if (rows.empty()) return std::optional<RecordedProvenance>();
  auto& row = rows.rows[0];
  return std::optional<RecordedProvenance>(
      RecordedProvenance{std::move(row[0]), std::move(row[1]), std::string(row[2].get_string()), std::move(row[3])});
}

ApiResult<std::vector<ObjectProvenance>> list_stack_provenance(store::Connection& connection,
                                                               std::string_view stack_id) {
  SINDRI_TRY(rows, connection.query("SELECT d.id, t.name, r.template_id, r.template_version, r.template_parameters, "
                                    "r.created_at FROM deployment_objects d JOIN rendered_deployment_objects r "
                                    "ON r.deployment_object_sequence_id = d.sequence_id "
                                    "JOIN stack_templates t ON t.id = r.template_id "
                                    "WHERE d.stack_id = $1 AND " SINDRI_LIVE_IN("d") " ORDER BY d.sequence_id",
                                    {Value(stack_id)}));
  std::vector<ObjectProvenance> found;
  found.reserve(rows.size());
  for (auto& row : rows.rows) {
    found.push_back(ObjectProvenance{
        std::move(row[0]), std::move(row[1]),
        RecordedProvenance{std::move(row[2]), std::move(row[3]), std::string(row[4].get_string()), std::move(row[5])}});
  }
  return found;
}

ApiResult<std::string> target_state_json(store::Connection& connection, std::string_view agent_id, bool incremental) {
  SINDRI_TRY(rows, incremental
                       ? connection.query("SELECT " SINDRI_DEPLOYMENT_OBJECT_COLUMNS
                                          " FROM deployment_objects d WHERE sequence_id IN "
                                          "(SELECT max(o.sequence_id) FROM agent_targets t JOIN deployment_objects o "
                                          "ON o.stack_id = t.stack_id AND " SINDRI_LIVE_IN("o") " "
                                          "WHERE t.agent_id = $1 GROUP BY t.stack_id) "
                                          "AND NOT EXISTS (SELECT 1 FROM agent_events e WHERE e.agent_id = $1 "
                                          "AND e.deployment_object_id = d.id AND e.status = 'SUCCESS' "
                                          "AND " SINDRI_LIVE_IN("e") ") ORDER BY sequence_id",
                                          {Value(agent_id)})
                       : connection.query("SELECT " SINDRI_DEPLOYMENT_OBJECT_COLUMNS
                                          " FROM deployment_objects WHERE sequence_id IN "
                                          "(SELECT max(o.sequence_id) FROM agent_targets t JOIN deployment_objects o "
                                          "ON o.stack_id = t.stack_id AND " SINDRI_LIVE_IN("o") " "
                                          "WHERE t.agent_id = $1 GROUP BY t.stack_id) ORDER BY sequence_id",
                                          {Value(agent_id)}));
  std::string json = "[";
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i != 0) json += ',';
    append_json(json, deployment_object_object(rows, i));
  }
  json += ']';
  return json;
}

}  // namespace sindri::broker::db
