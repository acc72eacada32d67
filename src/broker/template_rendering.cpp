#include "broker/template_rendering.hpp"

#include <chrono>
#include <memory>
#include <optional>

#include "broker/bounded_cache.hpp"
#include "broker/manifests.hpp"
#include "schema/schema.hpp"
#include "tera/tera.hpp"
#include "value/digest.hpp"
#include "value/json.hpp"

namespace sindri::broker {
namespace {

// A backstop behind the render's step limit, which already bounds any
// template's work to about two seconds of one core: no render holds a
// worker thread for longer, whatever work the steps undercount.
constexpr std::chrono::milliseconds kRenderTimeLimit{5000};

// `shown_name`, when given, names the template in place of the name it was
// compiled under (the cache shares one compiled template among versions).
ApiError template_error(const char* code, tera::TemplateError error, std::string_view pointer,
                        std::string_view shown_name = {}) {
  if (!shown_name.empty()) error.template_name = std::string(shown_name);
  Object details;
  if (!pointer.empty()) details.push_back({Value("pointer"), Value(pointer)});
  details.push_back({Value("template"), Value(error.template_name)});
  details.push_back({Value("line"), Value(static_cast<int64_t>(error.location.line))});
  details.push_back({Value("column"), Value(static_cast<int64_t>(error.location.column))});
  if (!error.expression.empty()) details.push_back({Value("expression"), Value(error.expression)});
  return ApiError{400, code, error.describe(), Value(std::move(details)), std::nullopt};
}

ApiError schema_text_error(std::string message, Value details) {
  return ApiError{400, "invalid_parameters_schema", "/parameters_schema: " + std::move(message), std::move(details),
                  std::nullopt};
}

// `strict` (a new schema) refuses a key given twice, as request bodies do:
// the second `properties` of an object would silently replace the first.
// Stored schemas are read as they were accepted.
ApiResult<Value> parse_schema_text(std::string_view text, bool strict) {
  auto parsed = parse_json(text, JsonOptions{.reject_duplicate_keys = strict});
  if (!parsed.ok()) {
    Object details;
    details.push_back({Value("pointer"), Value("/parameters_schema")});
    details.push_back({Value("line"), Value(static_cast<int64_t>(parsed.error().line))});
    details.push_back({Value("column"), Value(static_cast<int64_t>(parsed.error().column))});
    return schema_text_error("not JSON: " + parsed.error().describe(), Value(std::move(details)));
  }
  return std::move(parsed).value();
}

// Parameters are the template's context, a JSON object: a schema whose root
// type leaves objects out could never be satisfied.
ApiResult<Ok> check_root_accepts_objects(const Value& document) {
  const Value* type = document.is_object() ? document.find("type") : nullptr;
  if (type == nullptr) return Ok{};
  bool object = type->is_string() && type->get_string() == "object";
  if (type->is_array()) {
    for (const Value& item : type->get_array()) object = object || (item.is_string() && item.get_string() == "object");
  }
  if (object) return Ok{};
  Object details;
  details.push_back({Value("pointer"), Value("/parameters_schema/type")});
  return schema_text_error("/type: the parameters are a JSON object, which a schema of type " + to_json(*type) +
                               " never accepts",
                           Value(std::move(details)));
}

// Compiled parameter schemas by the SHA-256 of their text; the versions of a
// template and the templates of a broker share few distinct schemas.
ApiResult<std::shared_ptr<const schema::CompiledSchema>> compiled_schema(std::string_view text) {
  static BoundedCache<schema::CompiledSchema> cache;
  const std::string key = sha256_hex(text);
  if (auto cached = cache.find(key)) return cached;
  BROKER_TRY(document, parse_schema_text(text, false));
  auto compiled = schema::compile_schema(document);
  if (!compiled.ok()) return schema_text_error(compiled.error().describe(), Value());
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

ApiError parameter_violations(const std::vector<schema::Violation>& violations) {
  Array items;
  std::string message = "the parameters do not satisfy the template's schema:";
  for (const schema::Violation& violation : violations) {
    const std::string pointer = "/parameters" + violation.instance_location;
    Object item;
    item.push_back({Value("pointer"), Value(pointer)});
    item.push_back({Value("schema_pointer"), Value(violation.schema_location)});
    item.push_back({Value("message"), Value(violation.message)});
    items.push_back(Value(std::move(item)));
    message += "\n  " + pointer + ": " + violation.message;
  }
  Object details;
  details.push_back({Value("violations"), Value(std::move(items))});
  return ApiError{400, "invalid_parameters", std::move(message), Value(std::move(details)), std::nullopt};
}

// The broker renders each template alone (tera::render), so another
// template it names is never there: extends and imports fail (Tera refuses
// them when it loads a template), and so does an include that does not
// ignore a missing template.
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

}  // namespace

ApiResult<Ok> check_template_content(std::string_view name, std::string_view content) {
  auto compiled = template_cache().get_or_compile(name, content);
  if (!compiled.ok()) return template_error("template_syntax_error", compiled.error(), "/template_content");
  const auto problems = tera::check(**compiled, tera::CheckOptions{.isolated = true});
  if (!problems.empty()) return template_error("template_syntax_error", problems.front(), "/template_content");
  if (auto unreachable = unreachable_reference(**compiled, name)) {
    return template_error("template_syntax_error", *unreachable, "/template_content");
  }
  return Ok{};
}

ApiResult<Ok> check_parameters_schema(std::string_view schema_text) {
  BROKER_TRY(document, parse_schema_text(schema_text, true));
  const auto problems = schema::check_schema(document);
  if (problems.empty()) return check_root_accepts_objects(document);
  Array items;
  std::string message = "not a valid JSON Schema:";
  for (const schema::Violation& problem : problems) {
    Object item;
    item.push_back({Value("schema_pointer"), Value(problem.instance_location)});
    item.push_back({Value("message"), Value(problem.message)});
    items.push_back(Value(std::move(item)));
    message += "\n  " + (problem.instance_location.empty() ? std::string("(root)") : problem.instance_location) +
               ": " + problem.message;
  }
  Object details;
  details.push_back({Value("pointer"), Value("/parameters_schema")});
  details.push_back({Value("violations"), Value(std::move(items))});
  return schema_text_error(std::move(message), Value(std::move(details)));
}

ApiResult<CompiledTemplateVersion> compile_template_version(const TemplateVersion& version) {
  BROKER_TRY(parameters_schema, compiled_schema(version.parameters_schema));
  // Compiled under the bare name, as at creation, so that creation's parse
  // is the only one.
  auto tpl = template_cache().get_or_compile(version.name, version.content);
  if (!tpl.ok()) return template_error("template_syntax_error", tpl.error(), "", display_name(version));
  return CompiledTemplateVersion{std::move(tpl).value(), std::move(parameters_schema), display_name(version)};
}

ApiResult<std::string> render_compiled(const CompiledTemplateVersion& version, const Value& parameters,
                                       size_t max_bytes) {
  // They are the template's context, whatever its schema allows.
  if (!parameters.is_object()) {
    const std::string got = parameters.kind_name();
    return parameter_violations({schema::Violation{"", "", "must be an object (the template's context), got " + got}});
  }
  const Value context = schema::apply_defaults(*version.parameters_schema, parameters);
  // Every violation would be listed in the answer: a large body against a
  // recursive schema could make millions.
  const auto violations = schema::validate(*version.parameters_schema, context, {.max_violations = 100});
  if (!violations.empty()) return parameter_violations(violations);
  // Templates come from any generator and their objects must be
  // reproducible: no clock, no randomness, and no reading the broker's
  // environment, which holds its database URL.
  const tera::RenderOptions options{.max_output_bytes = max_bytes,
                                    .max_duration = kRenderTimeLimit,
                                    .isolated = true,
                                    .name = version.display_name};
  auto rendered = tera::render(*version.tpl, context, options);
  if (!rendered.ok()) return template_error("template_render_error", rendered.error(), "");
  auto manifests = check_manifests(*rendered, "");
  if (!manifests.ok()) {
    ApiError error = std::move(manifests).error();
    error.code = "rendered_yaml_invalid";
    error.message = "the rendered template is not Kubernetes YAML: " + error.message;
    return error;
  }
  return std::move(rendered).value();
}

ApiResult<std::string> render_template_version(const TemplateVersion& version, const Value& parameters) {
  BROKER_TRY(compiled, compile_template_version(version));
  return render_compiled(compiled, parameters, tera::RenderOptions{}.max_output_bytes);
}

}  // namespace sindri::broker
