#include "broker/records.hpp"

#include <span>
#include <vector>

#include "broker/ids.hpp"
#include "broker/template_targets.hpp"

namespace sindri::broker {

Value generator_object(const store::Rows& rows, size_t index) {
  return row_object(rows, index, {"is_active", "is_system"});
}

Value deployment_object_object(const store::Rows& rows, size_t index) {
  return row_object(rows, index, {"is_deletion_marker"});
}

Value agent_object(const store::Rows& rows, size_t index) { return row_object(rows, index, {"k8s_reachable"}); }

ApiResult<Value> load_generator(store::Connection& connection, std::string_view id) {
  BROKER_TRY(rows, connection.query("SELECT " SINDRI_GENERATOR_COLUMNS
                                    " FROM generators WHERE id = $1 AND deleted_at IS NULL",
                                    {Value(id)}));
  if (rows.empty()) return not_found("generator", id);
  return generator_object(rows, 0);
}

ApiResult<Value> load_stack(store::Connection& connection, std::string_view id) {
  BROKER_TRY(rows, connection.query("SELECT " SINDRI_STACK_COLUMNS " FROM stacks WHERE id = $1 AND deleted_at IS NULL",
                                    {Value(id)}));
  if (rows.empty()) return not_found("stack", id);
  return row_object(rows, 0);
}

ApiResult<Value> load_agent(store::Connection& connection, std::string_view id) {
  BROKER_TRY(rows, connection.query("SELECT " SINDRI_AGENT_COLUMNS " FROM agents WHERE id = $1 AND deleted_at IS NULL",
                                    {Value(id)}));
  if (rows.empty()) return not_found("agent", id);
  return agent_object(rows, 0);
}

ApiResult<Value> load_template(store::Connection& connection, std::string_view id) {
  BROKER_TRY(rows, connection.query("SELECT " SINDRI_TEMPLATE_COLUMNS
                                    " FROM stack_templates WHERE id = $1 AND deleted_at IS NULL",
                                    {Value(id)}));
  if (rows.empty()) return not_found("template", id);
  return row_object(rows, 0);
}

ApiResult<Ok> check_named_generator(store::Connection& connection, std::string_view id, std::string_view pointer) {
  auto generator = load_generator(connection, id);
  if (generator.ok()) return Ok{};
  if (generator.error().status != 404) return std::move(generator).error();
  return field_error("invalid_field", std::string(pointer) + ": generator " + std::string(id) + " does not exist",
                     pointer);
}

// $1-$6: the object's columns; $7: the owner ('' for any); $8: the template.
#define SINDRI_INSERT_DEPLOYMENT_OBJECT                                                   \
  "INSERT INTO deployment_objects (id, stack_id, yaml_content, yaml_checksum, "          \
  "is_deletion_marker, submitted_at, created_at, updated_at) "                           \
  "SELECT $1, $2, $3, $4, CAST($5 AS BOOLEAN), $6, $6, $6 "                               \
  "WHERE EXISTS (SELECT 1 FROM stacks s WHERE s.id = $2 AND s.deleted_at IS NULL "       \
  "AND (CAST($7 AS TEXT) = '' OR s.generator_id = $7)"
#define SINDRI_INSERT_RENDERED_DEPLOYMENT_OBJECT                                           \
  SINDRI_INSERT_DEPLOYMENT_OBJECT                                                         \
  " AND EXISTS (SELECT 1 FROM stack_templates t WHERE t.id = $8 AND t.deleted_at IS NULL " \
  "AND " SINDRI_STACK_MATCHES_TEMPLATE ")"
// Only what the database makes: the rest of the object is the request's, and
// sending the YAML back would double what crosses the wire.
#define SINDRI_RETURNING_DEPLOYMENT_OBJECT ") RETURNING sequence_id"

namespace {

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

ApiResult<Ok> retire_stack(store::Connection& connection, std::string_view stack_id, const std::string& now) {
  BROKER_TRY(latest, connection.query("SELECT yaml_content, yaml_checksum FROM deployment_objects "
                                      "WHERE stack_id = $1 AND deleted_at IS NULL "
                                      "ORDER BY sequence_id DESC LIMIT 1",
                                      {Value(stack_id)}));
  if (!latest.empty()) {
    BROKER_CHECK(connection.query(
        "INSERT INTO deployment_objects (id, stack_id, yaml_content, yaml_checksum, is_deletion_marker, "
        "submitted_at, created_at, updated_at) VALUES ($1, $2, $3, $4, TRUE, $5, $5, $5)",
        {Value(new_uuid()), Value(stack_id), latest.rows[0][0], latest.rows[0][1], Value(now)}));
  }
  BROKER_CHECK(connection.query("UPDATE stacks SET deleted_at = $2, updated_at = $2 WHERE id = $1",
                                {Value(stack_id), Value(now)}));
  return sync_template_targets_for_stack(connection, stack_id);
}

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
  BROKER_TRY(rows, connection.query(sql, std::span<const Value>(params).first(statement_params)));
  if (rows.empty()) return not_found("stack", stack_id);
  if (!postgres) {
    if (provenance) {
      BROKER_CHECK(connection.query(
          "INSERT INTO rendered_deployment_objects (deployment_object_sequence_id, template_id, template_version, "
          "template_parameters, created_at) VALUES ($1, $2, $3, $4, $5)",
          {rows.rows[0][0], params[7], params[8], params[9], params[5]}));
    }
    BROKER_CHECK(touch_target_state(connection));
  }
  Object object;
  object.reserve(10);
  object.push_back({Value("id"), std::move(params[0])});
  object.push_back({Value("sequence_id"), std::move(rows.rows[0][0])});
  object.push_back({Value("stack_id"), std::move(params[1])});
  object.push_back({Value("yaml_content"), std::move(params[2])});
  object.push_back({Value("yaml_checksum"), std::move(params[3])});
  object.push_back({Value("is_deletion_marker"), std::move(params[4])});
  object.push_back({Value("submitted_at"), params[5]});
  object.push_back({Value("created_at"), params[5]});
  object.push_back({Value("updated_at"), std::move(params[5])});
  object.push_back({Value("deleted_at"), Value()});
  return Value(std::move(object));
}

ApiResult<bool> agent_targets_stack(store::Connection& connection, std::string_view agent_id,
                                    std::string_view stack_id) {
  BROKER_TRY(rows, connection.query("SELECT 1 FROM agent_targets WHERE agent_id = $1 AND stack_id = $2",
                                    {Value(agent_id), Value(stack_id)}));
  return !rows.empty();
}

ApiResult<Ok> check_stack_access(store::Connection& connection, const Identity& caller, const Value& stack,
                                 StackAccess access) {
  if (caller.is_admin()) return Ok{};
  const std::string_view stack_id = field(stack, "id");
  if (caller.kind == Identity::Kind::Generator) {
    if (caller.is_generator(field(stack, "generator_id"))) return Ok{};
    return forbidden("stack " + std::string(stack_id) + " belongs to another generator");
  }
  if (access == StackAccess::Read) {
    BROKER_TRY(targeted, agent_targets_stack(connection, caller.id, stack_id));
    if (targeted) return Ok{};
    return forbidden("agent " + caller.id + " does not target stack " + std::string(stack_id));
  }
  return forbidden("agents cannot change stacks");
}

ApiResult<Ok> check_template_change(const Identity& caller, const Value& tpl) {
  if (caller.is_admin()) return Ok{};
  const Value* owner = tpl.find("generator_id");
  const std::string id(field(tpl, "id"));
  if (owner == nullptr || !owner->is_string()) {
    return forbidden("template " + id + " is a system template: only an admin may change it");
  }
  if (caller.is_generator(owner->get_string())) return Ok{};
  return forbidden("template " + id + " belongs to another generator");
}

ApiResult<Ok> lock_template_name(store::Connection& connection, const Value& owner, std::string_view name) {
  if (connection.dialect() != store::Dialect::Postgres) return Ok{};
  std::string key = "stack_templates\n";
  key += owner.is_string() ? owner.get_string() : std::string_view();
  key += '\n';
  key += name;
  BROKER_CHECK(connection.query("SELECT 1 FROM pg_advisory_xact_lock(hashtextextended($1, 0))", {Value(key)}));
  return Ok{};
}

ApiResult<Value> load_template_for_change(store::Connection& connection, const Identity& caller, std::string_view id) {
  BROKER_TRY(tpl, load_template(connection, id));
  BROKER_CHECK(check_template_change(caller, tpl));
  BROKER_CHECK(lock_template_name(connection, *tpl.find("generator_id"), field(tpl, "name")));
  return load_template(connection, id);
}

ApiResult<Ok> check_template_access(store::Connection& connection, const Identity& caller, std::string_view id,
                                    bool change) {
  if (change) {
    BROKER_CHECK(load_template_for_change(connection, caller, id));
    return Ok{};
  }
  BROKER_TRY(tpl, load_template(connection, id));
  if (caller.kind == Identity::Kind::Agent) return forbidden("agents cannot read templates");
  return Ok{};
}

std::string_view field(const Value& record, std::string_view name) {
  const Value* value = record.find(name);
  return value != nullptr && value->is_string() ? value->get_string() : std::string_view();
}

}  // namespace sindri::broker
