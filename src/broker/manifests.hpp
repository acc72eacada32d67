#pragma once
// Checking the YAML of a deployment object before it is stored: it must parse,
// and every non-empty document must be a Kubernetes object (a mapping with
// string apiVersion and kind), so that an agent never receives something it
// cannot apply. Errors name the document (from 1), line and column.

#include <string_view>

#include "broker/api_error.hpp"

namespace sindri::broker {

// `pointer` names the body field holding the YAML ("/yaml_content"), or ""
// when the YAML is the whole body.
ApiResult<Ok> check_manifests(std::string_view yaml, std::string_view pointer);

}  // namespace sindri::broker
