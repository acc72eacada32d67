#pragma once
// The OpenAPI document the broker serves at /api/v1/openapi.json: Brokkr's
// v1 API (api/brokkr-v1.json), which Sindri speaks shape for shape, with
// api/sindri-extensions.json merged over it (RFC 7386): the operations and
// fields Sindri adds, each operation marked `x-sindri: true`.

#include <string>

namespace sindri::broker {

const std::string& openapi_document();

}  // namespace sindri::broker
