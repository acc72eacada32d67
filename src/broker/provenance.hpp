#pragma once
// The provenance of a deployment object rendered from a template (the
// template version and the parameters it was rendered with), as the API
// reads it: for whoever may read the object, its parameters parsed.

#include <string_view>

#include "broker/context.hpp"
#include "broker/db/deployment_objects.hpp"

namespace sindri::broker {

// The recorded parameters of object `id` as JSON: they were stored as the
// request sent them, so a failure is a corrupt row (500 corrupt_provenance).
ApiResult<Value> recorded_parameters(const db::RecordedProvenance& recorded, std::string_view id);

struct ReadableProvenance {
  Value object;  // as load_readable_object answers it
  db::RecordedProvenance recorded;
  Value parameters;  // recorded.parameters_json, parsed
};
// Object `id`, which the caller may read, and its provenance; 404
// provenance_not_found when it was not rendered from a template.
ApiResult<ReadableProvenance> load_readable_provenance(store::Connection& connection, const Identity& caller,
                                                       std::string_view id);

}  // namespace sindri::broker
