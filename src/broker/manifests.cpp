#include "broker/manifests.hpp"

namespace sindri::broker {

ApiError manifest_error(const render::ManifestError& error, std::string_view pointer) {
  Object details;
  details.push_back({Value("pointer"), Value(pointer)});
  details.push_back({Value("document"), Value(static_cast<int64_t>(error.document + 1))});
  details.push_back({Value("line"), Value(static_cast<int64_t>(error.line))});
  details.push_back({Value("column"), Value(static_cast<int64_t>(error.column))});
  return ApiError{400, "invalid_yaml", render::describe(error, pointer.empty() ? "the body" : pointer),
                  Value(std::move(details)), std::nullopt};
}

ApiResult<Ok> check_manifests(std::string_view yaml, std::string_view pointer) {
  auto checked = render::check_manifests(yaml);
  if (!checked.ok()) return manifest_error(checked.error(), pointer);
  return Ok{};
}

}  // namespace sindri::broker
