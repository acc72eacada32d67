#include "broker/provenance.hpp"

#include <string>
#include <utility>

#include "broker/access.hpp"
#include "value/json.hpp"

namespace sindri::broker {

ApiResult<Value> recorded_parameters(const db::RecordedProvenance& recorded, std::string_view id) {
  auto parameters = parse_json(recorded.parameters_json);
  if (!parameters.ok()) {
    return ApiError{500, "corrupt_provenance", "the recorded parameters of " + std::string(id) + " are not JSON",
                    Value(), std::nullopt};
  }
  return std::move(parameters).value();
}

ApiResult<ReadableProvenance> load_readable_provenance(store::Connection& connection, const Identity& caller,
                                                       std::string_view id) {
  SINDRI_TRY(object, load_readable_object(connection, caller, id));
  SINDRI_TRY(recorded, db::load_provenance(connection, *object.find("sequence_id")));
  if (!recorded) {
    return ApiError{404, "provenance_not_found",
                    "deployment object " + std::string(id) + " was not rendered from a template", Value(),
                    std::nullopt};
  }
  SINDRI_TRY(parameters, recorded_parameters(*recorded, id));
  return ReadableProvenance{std::move(object), std::move(*recorded), std::move(parameters)};
}

}  // namespace sindri::broker
