#include "broker/manifests.hpp"

#include "value/object_literal.hpp"

namespace sindri::broker {

ApiError manifest_error(const render::ManifestError& error, std::string_view pointer) {
  return ApiError{400, "invalid_yaml", render::describe(error, pointer.empty() ? "the body" : pointer),
                  make_object({{"pointer", Value(pointer)},
                               {"document", Value(static_cast<int64_t>(error.document + 1))},
                               {"line", Value(static_cast<int64_t>(error.line))},
                               {"column", Value(static_cast<int64_t>(error.column))}}),
                  std::nullopt};
}

ApiResult<Ok> check_manifests(std::string_view yaml, std::string_view pointer) {
  auto checked = render::check_manifests(yaml);
  if (!checked.ok()) return manifest_error(checked.error(), pointer);
  return Ok{};
}

}  // namespace sindri::broker
