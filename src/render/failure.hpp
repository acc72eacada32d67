#pragma once
// Why a template version could not be checked, compiled or rendered: a value
// the CLI prints and the broker turns into its API error.

#include <string>
#include <vector>

#include "render/manifest_check.hpp"
#include "schema/schema.hpp"
#include "tera/tera.hpp"
#include "value/value.hpp"

namespace sindri::render {

struct Failure {
  enum class Kind {
    SchemaNotJson,        // the parameter schema's text: `message` at `line`:`column`
    SchemaInvalid,        // not a valid JSON Schema: `violations` (instance_location is in the schema)
    SchemaRootNotObject,  // its root `type` (`root_type`) never accepts the parameters' object
    SchemaUncompilable,   // `message`
    TemplateSyntax,       // `template_error`
    Parameters,           // the values against the schema: `violations`
    TemplateRender,       // `template_error`
    Manifests,            // the output is not Kubernetes YAML: `manifest_error`
  };
  Kind kind = Kind::TemplateRender;
  std::string message;
  size_t line = 0;
  size_t column = 0;
  Value root_type;
  std::vector<schema::Violation> violations;
  tera::TemplateError template_error;
  ManifestError manifest_error;
};

template <class T>
using Rendered = Result<T, Failure>;

// What is wrong, for a person; the broker's error messages are these words.
std::string describe(const Failure& failure);

}  // namespace sindri::render
