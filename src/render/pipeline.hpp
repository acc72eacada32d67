#pragma once
// The one pipeline from values to output, for `sindri render`, the broker's
// instantiation and dry run, and reconstruction: the schema's defaults
// filled in, the result validated, the template rendered, and the output
// checked to be Kubernetes objects.

#include <functional>
#include <string>

#include "render/failure.hpp"

namespace sindri::render {

struct Steps {
  const schema::CompiledSchema* schema = nullptr;  // none: no defaults, no validation
  size_t max_violations = 0;                       // 0: every violation
  // The render proper, given the context (the values with the defaults).
  std::function<Result<std::string, tera::TemplateError>(const Value& context)> render;
  bool check_manifests = false;
};

// The template's context from the values: with a schema, its defaults
// filled in and the result validated (Parameters). The values must be an
// object: they are the context, whatever the schema allows.
Rendered<Value> context_from(const Value& values, const schema::CompiledSchema* schema, size_t max_violations);

// context_from, the render, and the manifest check when asked.
Rendered<std::string> render_values(const Value& values, const Steps& steps);

}  // namespace sindri::render
