#include "render/pipeline.hpp"

namespace sindri::render {
namespace {

Failure parameters_failure(std::vector<schema::Violation> violations) {
  Failure failure;
  failure.kind = Failure::Kind::Parameters;
  failure.violations = std::move(violations);
  return failure;
}

}  // namespace

Rendered<Value> context_from(const Value& values, const schema::CompiledSchema* schema, size_t max_violations) {
  if (!values.is_object()) {
    return parameters_failure({schema::Violation{
        "", "", std::string("must be an object (the template's context), got ") + values.kind_name()}});
  }
  if (schema == nullptr) return values;
  Value context = schema::apply_defaults(*schema, values);
  auto violations = schema::validate(*schema, context, {.max_violations = max_violations});
  if (!violations.empty()) return parameters_failure(std::move(violations));
  return context;
}

Rendered<std::string> render_values(const Value& values, const Steps& steps) {
  SINDRI_TRY(context, context_from(values, steps.schema, steps.max_violations));
  auto rendered = steps.render(context);
  Failure failure;
  if (!rendered.ok()) {
    failure.kind = Failure::Kind::TemplateRender;
    failure.template_error = std::move(rendered).error();
    return failure;
  }
  if (steps.check_manifests) {
    auto manifests = check_manifests(*rendered);
    if (!manifests.ok()) {
      failure.kind = Failure::Kind::Manifests;
      failure.manifest_error = std::move(manifests).error();
      return failure;
    }
  }
  return std::move(rendered).value();
}

}  // namespace sindri::render
