#pragma once
// Checking the YAML of a deployment object before it is stored
// (render/manifest_check.hpp), its failure a 400 invalid_yaml naming the
// document (from 1), line and column.

#include <string_view>

#include "broker/api_error.hpp"
#include "render/manifest_check.hpp"

namespace sindri::broker {

// `pointer` names the body field holding the YAML ("/yaml_content"), or ""
// when the YAML is the whole body.
ApiResult<Ok> check_manifests(std::string_view yaml, std::string_view pointer);
ApiError manifest_error(const render::ManifestError& error, std::string_view pointer);

}  // namespace sindri::broker
