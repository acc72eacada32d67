#pragma once
// The deployment_objects table, immutable YAML snapshots of a stack's desired
// state numbered by a sequence id that only grows, and the provenance of
// those rendered from a template (rendered_deployment_objects).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/api_error.hpp"
#include "store/database.hpp"

namespace sindri::broker::db {

// What an object rendered from a template records of it (seed 000's
// rendered_deployment_objects row).
struct Provenance {
  std::string_view template_id;
  int64_t template_version = 0;
  std::string_view parameters_json;
};

// A new deployment object in a live stack, answered as the API shows it,
// with its provenance row when `provenance` is given, and the target state
// touched; 404 when the stack is gone, with `owner` not empty belongs to
// another generator than `owner`, or with `provenance` its template is not
// live or does not match the stack's labels and annotations (the caller
// tells these apart when it matters).
ApiResult<Value> insert_deployment_object(store::Connection& connection, std::string_view stack_id,
                                          const std::string& yaml, const std::string& checksum, bool deletion_marker,
                                          std::string_view owner = {}, const Provenance* provenance = nullptr);

// The live objects of a stack, oldest first.
ApiResult<Value> list_deployment_objects(store::Connection& connection, std::string_view stack_id);
// The live object `id`; 404 when missing or deleted.
ApiResult<Value> load_deployment_object(store::Connection& connection, std::string_view id);
ApiResult<bool> deployment_object_exists(store::Connection& connection, std::string_view id);

struct RecordedProvenance {
  Value template_id;
  Value template_version;
  std::string parameters_json;
  Value created_at;
};
// The provenance of the object numbered `sequence_id`; none when it was not
// rendered from a template.
ApiResult<std::optional<RecordedProvenance>> load_provenance(store::Connection& connection, const Value& sequence_id);

struct ObjectProvenance {
  Value deployment_object_id;
  Value template_name;
  RecordedProvenance recorded;
};
// The provenance of every live object of stack `stack_id` rendered from a
// template, oldest first, with the name of the template version it records.
ApiResult<std::vector<ObjectProvenance>> list_stack_provenance(store::Connection& connection,
                                                               std::string_view stack_id);

// What an agent's target state holds: the newest live object of every stack
// it targets (for a deleted stack, its deletion marker), oldest first, as a
// JSON array. `incremental` leaves out those it reported applied.
ApiResult<std::string> target_state_json(store::Connection& connection, std::string_view agent_id, bool incremental);

}  // namespace sindri::broker::db
