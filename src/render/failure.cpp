#include "render/failure.hpp"

#include "value/json.hpp"

namespace sindri::render {
namespace {

std::string schema_problems(const std::vector<schema::Violation>& problems) {
  std::string message = "not a valid JSON Schema:";
  for (const schema::Violation& problem : problems) {
    message += "\n  " + (problem.instance_location.empty() ? std::string("(root)") : problem.instance_location) +
               ": " + problem.message;
  }
  return message;
}

std::string parameter_violations(const std::vector<schema::Violation>& violations) {
  std::string message = "the parameters do not satisfy the template's schema:";
  for (const schema::Violation& violation : violations) {
    message += "\n  /parameters" + violation.instance_location + ": " + violation.message;
  }
  return message;
}

}  // namespace

std::string describe(const Failure& failure) {
  using Kind = Failure::Kind;
  switch (failure.kind) {
    case Kind::SchemaNotJson: return "/parameters_schema: not JSON: " + failure.message;
    case Kind::SchemaInvalid: return "/parameters_schema: " + schema_problems(failure.violations);
    case Kind::SchemaRootNotObject:
      return "/parameters_schema: /type: the parameters are a JSON object, which a schema of type " +
             to_json(failure.root_type) + " never accepts";
    case Kind::SchemaUncompilable: return "/parameters_schema: " + failure.message;
    case Kind::TemplateSyntax:
    case Kind::TemplateRender: return failure.template_error.describe();
    case Kind::Parameters: return parameter_violations(failure.violations);
    case Kind::Manifests:
      return "the rendered template is not Kubernetes YAML: " + describe(failure.manifest_error, "the body");
  }
  return "unknown render failure";
}

}  // namespace sindri::render
