#pragma once
// The column lists each resource answers with, in brokkr-v1.json's shapes,
// and the lookups several resource files share.

#include <string_view>

#include "broker/context.hpp"

// String literals, so that statements built from them stay literals.
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

namespace sindri::broker {

Value generator_object(const store::Rows& rows, size_t index);
Value deployment_object_object(const store::Rows& rows, size_t index);
Value agent_object(const store::Rows& rows, size_t index);

// Live (not soft-deleted) records by id; 404 when missing or deleted.
ApiResult<Value> load_generator(store::Connection& connection, std::string_view id);
ApiResult<Value> load_stack(store::Connection& connection, std::string_view id);
ApiResult<Value> load_agent(store::Connection& connection, std::string_view id);
ApiResult<Value> load_template(store::Connection& connection, std::string_view id);
// A generator a request body names must exist and be live: a 400 naming the
// field at `pointer` otherwise.
ApiResult<Ok> check_named_generator(store::Connection& connection, std::string_view id, std::string_view pointer);

// What an object rendered from a template records of it (seed 000's
// rendered_deployment_objects row).
struct Provenance {
  std::string_view template_id;
  int64_t template_version = 0;
  std::string_view parameters_json;
};

// Deletes a live stack, soft as always: a deletion marker repeating its
// newest object tells its agents to remove what they applied, and no
// template targets it any more. The caller touches the target state.
ApiResult<Ok> retire_stack(store::Connection& connection, std::string_view stack_id, const std::string& now);

// A new deployment object in a live stack, answered as the API shows it,
// with its provenance row when `provenance` is given; 404 when the stack is
// gone, with `owner` not empty belongs to another generator than `owner`,
// or with `provenance` its template is not live or does not match the
// stack's labels and annotations (the caller tells these apart when it
// matters).
ApiResult<Value> insert_deployment_object(store::Connection& connection, std::string_view stack_id,
                                          const std::string& yaml, const std::string& checksum, bool deletion_marker,
                                          std::string_view owner = {}, const Provenance* provenance = nullptr);

ApiResult<bool> agent_targets_stack(store::Connection& connection, std::string_view agent_id,
                                    std::string_view stack_id);

enum class StackAccess { Manage, Read };
// Admins may do anything to a stack, its owning generator may manage it, and
// for Read an agent that targets it may read it. Anyone else gets 403.
ApiResult<Ok> check_stack_access(store::Connection& connection, const Identity& caller, const Value& stack,
                                 StackAccess access);

// A system template (no owner) only an admin may change; a generator's, that
// generator or an admin. Admins and generators may read any template.
ApiResult<Ok> check_template_change(const Identity& caller, const Value& tpl);
// Versions of one (owner, name) are numbered, retired and relabelled one
// writer at a time. SQLite has a single writer anyway; on PostgreSQL (READ
// COMMITTED) a transaction-scoped advisory lock makes concurrent brokers wait
// for each other, and the statements after it see what the winner committed.
ApiResult<Ok> lock_template_name(store::Connection& connection, const Value& owner, std::string_view name);
// The live template `id`, which the caller may change, read again under its
// name's lock: of two concurrent changes of one version the second finds it
// retired (404).
ApiResult<Value> load_template_for_change(store::Connection& connection, const Identity& caller, std::string_view id);
// Loads the live template `id` (404) and checks the caller may read it or,
// with `change`, change it (taking the name's lock).
ApiResult<Ok> check_template_access(store::Connection& connection, const Identity& caller, std::string_view id,
                                    bool change);

// A string member of a record object.
std::string_view field(const Value& record, std::string_view name);

}  // namespace sindri::broker
