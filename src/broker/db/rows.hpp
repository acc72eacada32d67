#pragma once
// What every statement of the data layer shares: the soft-delete rule, the
// column lists each resource answers with (in brokkr-v1.json's shapes), and
// rows turned into the API's objects.

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "broker/api_error.hpp"
#include "store/database.hpp"

// Soft delete everywhere: a row is live while its deleted_at is null. String
// literals, so that statements built from them stay literals.
#define SINDRI_LIVE "deleted_at IS NULL"
#define SINDRI_LIVE_IN(alias) alias "." SINDRI_LIVE

#define SINDRI_GENERATOR_COLUMNS \
  "id, name, description, is_active, is_system, last_active_at, created_at, updated_at, deleted_at"
#define SINDRI_STACK_COLUMNS "id, name, description, generator_id, created_at, updated_at, deleted_at"
#define SINDRI_DEPLOYMENT_OBJECT_COLUMNS                                                                  \
  "id, sequence_id, stack_id, yaml_content, yaml_checksum, is_deletion_marker, submitted_at, created_at, " \
  "updated_at, deleted_at"
#define SINDRI_AGENT_COLUMNS                                                                            \
  "id, name, cluster_name, status, last_heartbeat, k8s_reachable, k8s_api_latency_ms, k8s_reported_at, " \
  "created_at, updated_at, deleted_at"
#define SINDRI_TEMPLATE_COLUMNS                                                                           \
  "id, generator_id, name, description, version, template_content, parameters_schema, checksum, created_at, " \
  "updated_at, deleted_at"
#define SINDRI_AGENT_EVENT_COLUMNS \
  "id, agent_id, deployment_object_id, event_type, status, message, created_at, updated_at, deleted_at"

namespace sindri::broker::db {

// Row `index` as a JSON object keyed by column name. SQLite has no boolean
// type: the columns named in `booleans` turn from 0/1 into false/true.
Value row_object(const store::Rows& rows, size_t index, std::initializer_list<std::string_view> booleans = {});
Value rows_array(const store::Rows& rows, std::initializer_list<std::string_view> booleans = {});

Value generator_object(const store::Rows& rows, size_t index);
Value deployment_object_object(const store::Rows& rows, size_t index);
Value agent_object(const store::Rows& rows, size_t index);

// A statement parameter: the text, or NULL when there is none.
inline Value nullable_text(const std::optional<std::string>& text) { return text ? Value(*text) : Value(); }

// SQLite answers a comparison with 0/1, PostgreSQL with a boolean.
bool is_true(const Value& cell);

// Whether a write failed on a UNIQUE constraint (the caller answers 409 with
// its own code).
bool is_unique_violation(const ApiError& error);

}  // namespace sindri::broker::db
