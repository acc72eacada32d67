#include "render/template_version.hpp"

#include <optional>

#include "render/bounded_cache.hpp"
#include "render/pipeline.hpp"
#include "value/digest.hpp"
#include "value/json.hpp"

namespace sindri::render {
namespace {

Failure failure_of(Failure::Kind kind) {
  Failure failure;
  failure.kind = kind;
  return failure;
}

Failure syntax_failure(tera::TemplateError error) {
  Failure failure = failure_of(Failure::Kind::TemplateSyntax);
  failure.template_error = std::move(error);
  return failure;
}

// `strict` (a new schema) refuses a key given twice, as request bodies do:
// the second `properties` of an object would silently replace the first.
// Stored schemas are read as they were accepted.
Rendered<Value> parse_schema_text(std::string_view text, bool strict) {
  auto parsed = parse_json(text, JsonOptions{.reject_duplicate_keys = strict});
  if (parsed.ok()) return std::move(parsed).value();
  Failure failure = failure_of(Failure::Kind::SchemaNotJson);
  failure.message = parsed.error().describe();
  failure.line = parsed.error().line;
  failure.column = parsed.error().column;
  return failure;
}

// Parameters are the template's context, a JSON object: a schema whose root
// type leaves objects out could never be satisfied.
Rendered<Ok> check_root_accepts_objects(const Value& document) {
  const Value* type = document.is_object() ? document.find("type") : nullptr;
  if (type == nullptr) return Ok{};
  bool object = type->is_string() && type->get_string() == "object";
  if (type->is_array()) {
    for (const Value& item : type->get_array()) object = object || (item.is_string() && item.get_string() == "object");
  }
  if (object) return Ok{};
  Failure failure = failure_of(Failure::Kind::SchemaRootNotObject);
  failure.root_type = *type;
  return failure;
}

// Compiled parameter schemas by the SHA-256 of their text; the versions of a
// template and the templates of a broker share few distinct schemas.
Rendered<std::shared_ptr<const schema::CompiledSchema>> compiled_schema(std::string_view text) {
  static BoundedCache<schema::CompiledSchema> cache;
  const std::string key = sha256_hex(text);
  if (auto cached = cache.find(key)) return cached;
  SINDRI_TRY(document, parse_schema_text(text, false));
  auto compiled = schema::compile_schema(document);
  if (!compiled.ok()) {
    Failure failure = failure_of(Failure::Kind::SchemaUncompilable);
    failure.message = compiled.error().describe();
    return failure;
  }
  auto shared = std::make_shared<const schema::CompiledSchema>(std::move(compiled).value());
  cache.add(key, shared);
  return shared;
}

tera::TemplateCache& template_cache() {
  static tera::TemplateCache cache(1024);
  return cache;
}

std::string display_name(const TemplateVersion& version) {
  return std::string(version.name) + " v" + std::to_string(version.version);
}

// A stored template is rendered alone (tera::render), so another template it
// names is never there: extends and imports fail (Tera refuses them when it
// loads a template), and so does an include that does not ignore a missing
// template.
std::optional<tera::TemplateError> unreachable_reference(const tera::Template& tpl, std::string_view name) {
  for (const tera::TemplateReference& reference : tera::referenced_templates(tpl)) {
    if (reference.ignore_missing) continue;
    const char* verb = reference.kind == tera::TemplateReference::Kind::Extends  ? "extend"
                       : reference.kind == tera::TemplateReference::Kind::Import ? "import"
                                                                                 : "include";
    tera::TemplateError error;
    error.template_name = std::string(name);
    error.location = reference.location;
    error.message = "a broker template stands alone: `" + reference.name + "` is not a template it can " + verb;
    return error;
  }
  return std::nullopt;
}

// The problems of a template as compiled (or not).
std::vector<tera::TemplateError> problems_of(const Result<tera::TemplatePtr, tera::TemplateError>& compiled,
                                             std::string_view name) {
  if (!compiled.ok()) return {compiled.error()};
  auto problems = tera::check(**compiled, tera::CheckOptions{.isolated = true});
  if (auto unreachable = unreachable_reference(**compiled, name)) problems.push_back(std::move(*unreachable));
  return problems;
}

}  // namespace

// Not through the cache: each keystroke of an editor's checks would push out
// templates that are rendered.
std::vector<tera::TemplateError> template_content_problems(std::string_view name, std::string_view content) {
  return problems_of(tera::compile(name, content), name);
}

Rendered<Ok> check_template_content(std::string_view name, std::string_view content) {
  auto problems = problems_of(template_cache().get_or_compile(name, content), name);
  if (!problems.empty()) return syntax_failure(std::move(problems.front()));
  return Ok{};
}

Rendered<Ok> check_parameters_schema(std::string_view schema_text) {
  SINDRI_TRY(document, parse_schema_text(schema_text, true));
  auto problems = schema::check_schema(document);
  if (problems.empty()) return check_root_accepts_objects(document);
  Failure failure = failure_of(Failure::Kind::SchemaInvalid);
  failure.violations = std::move(problems);
  return failure;
}

Rendered<CompiledTemplateVersion> compile_template_version(const TemplateVersion& version) {
  SINDRI_TRY(parameters_schema, compiled_schema(version.parameters_schema));
  // Compiled under the bare name, as at creation, so that creation's parse
  // is the only one.
  auto tpl = template_cache().get_or_compile(version.name, version.content);
  if (!tpl.ok()) {
    tera::TemplateError error = tpl.error();
    error.template_name = display_name(version);
    return syntax_failure(std::move(error));
  }
  return CompiledTemplateVersion{std::move(tpl).value(), std::move(parameters_schema), display_name(version)};
}

Rendered<std::string> render_compiled(const CompiledTemplateVersion& version, const Value& parameters,
                                      const RenderLimits& limits) {
  const tera::RenderOptions options{.max_output_bytes = limits.max_output_bytes,
                                    .max_steps = limits.max_steps,
                                    .max_duration = limits.max_duration,
                                    .cancel = limits.cancel,
                                    .isolated = true,
                                    .name = version.display_name};
  const Steps steps{version.parameters_schema.get(), limits.max_violations,
                    [&](const Value& context) { return tera::render(*version.tpl, context, options); }, true};
  return render_values(parameters, steps);
}

LimitReached limit_reached(const Failure& failure) {
  if (failure.kind != Failure::Kind::TemplateRender) return LimitReached::None;
  // The renderer's words for each limit (tera/renderer/frames.cpp); the
  // tests of each limit keep them in step.
  const std::string& message = failure.template_error.message;
  if (message.starts_with("rendering took more than ")) return LimitReached::Steps;
  if (message.starts_with("rendering took longer than ")) return LimitReached::Duration;
  if (message.starts_with("rendering was cancelled")) return LimitReached::Cancelled;
  if (message.starts_with("the output is larger than the limit of ") ||
      message.starts_with("a value being built passed the limit of ")) {
    return LimitReached::OutputBytes;
  }
  return LimitReached::None;
}

Rendered<std::string> render_template_version(const TemplateVersion& version, const Value& parameters,
                                              const RenderLimits& limits) {
  SINDRI_TRY(compiled, compile_template_version(version));
  return render_compiled(compiled, parameters, limits);
}

}  // namespace sindri::render
