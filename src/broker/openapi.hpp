#pragma once
// The OpenAPI document the broker serves at /api/v1/openapi.json: Brokkr's
// v1 API (api/brokkr-v1.json), which Sindri speaks shape for shape.

#include <string_view>

namespace sindri::broker {

std::string_view openapi_document();

}  // namespace sindri::broker
