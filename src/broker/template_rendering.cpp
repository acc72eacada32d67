#include "broker/template_rendering.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "broker/manifests.hpp"
#include "value/object_literal.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::broker {
namespace {

Value template_details(const tera::TemplateError& error, std::string_view pointer) {
  Object details;
  if (!pointer.empty()) details.push_back({"pointer", Value(pointer)});
  details.push_back({"template", Value(error.template_name)});
  details.push_back({"line", Value(static_cast<int64_t>(error.location.line))});
  details.push_back({"column", Value(static_cast<int64_t>(error.location.column))});
  if (!error.expression.empty()) details.push_back({"expression", Value(error.expression)});
  return Value(std::move(details));
}

// Sindri's violations, and Brokkr's validation_errors (one string each)
// for clients written against Brokkr.
Value violations_details(const std::vector<schema::Violation>& violations) {
  Array items;
  Array messages;
  for (const schema::Violation& violation : violations) {
    const std::string pointer = "/parameters" + violation.instance_location;
    items.push_back(make_object({{"pointer", Value(pointer)},
                                 {"schema_pointer", Value(violation.schema_location)},
                                 {"message", Value(violation.message)}}));
    messages.push_back(Value(pointer + ": " + violation.message));
  }
  return make_object({{"violations", Value(std::move(items))}, {"validation_errors", Value(std::move(messages))}});
}

Value schema_problems_details(const std::vector<schema::Violation>& problems) {
  Array items;
  for (const schema::Violation& problem : problems) {
    items.push_back(
        make_object({{"schema_pointer", Value(problem.instance_location)}, {"message", Value(problem.message)}}));
  }
  return make_object({{"pointer", Value("/parameters_schema")}, {"violations", Value(std::move(items))}});
}

Value pointer_details(std::string_view pointer) { return make_object({{"pointer", Value(pointer)}}); }

// A 400 whose message is render::describe's; `content_pointer` names the
// field holding the template's text, when the request sent it.
ApiError api_error(const render::Failure& failure, std::string_view content_pointer = {}) {
  using Kind = render::Failure::Kind;
  ApiError error{400, "invalid_parameters_schema", render::describe(failure), Value(), std::nullopt};
  switch (failure.kind) {
    case Kind::SchemaNotJson: {
      error.details = make_object({{"pointer", Value("/parameters_schema")},
                                   {"line", Value(static_cast<int64_t>(failure.line))},
                                   {"column", Value(static_cast<int64_t>(failure.column))}});
      break;
    }
    case Kind::SchemaInvalid: error.details = schema_problems_details(failure.violations); break;
    case Kind::SchemaRootNotObject: error.details = pointer_details("/parameters_schema/type"); break;
    case Kind::SchemaUncompilable: break;
    case Kind::TemplateSyntax:
      error.code = "invalid_template_syntax";
      error.details = template_details(failure.template_error, content_pointer);
      break;
    case Kind::Parameters:
      error.code = "invalid_parameters";
      error.details = violations_details(failure.violations);
      break;
    case Kind::TemplateRender:
      error.code = "template_render_failed";
      error.details = template_details(failure.template_error, "");
      break;
    case Kind::Manifests:
      error.code = "invalid_deployment_object";
      error.details = manifest_error(failure.manifest_error, "").details;
      break;
  }
  return error;
}

std::string_view limit_setting(render::LimitReached limit) {
  switch (limit) {
    case render::LimitReached::Steps: return "render.max_steps";
    case render::LimitReached::Duration: return "render.max_duration";
    case render::LimitReached::OutputBytes: return "render.max_output_bytes";
    case render::LimitReached::Cancelled:
    case render::LimitReached::None: break;
  }
  return {};
}

Value problem(std::string_view field, std::string_view code, std::string_view message) {
  return make_object({{"field", Value(field)}, {"code", Value(code)}, {"message", Value(message)}});
}

void add_place(Value& problem, size_t line, size_t column) {
  if (line == 0) return;
  problem.mutable_object().push_back({"line", Value(static_cast<int64_t>(line))});
  problem.mutable_object().push_back({"column", Value(static_cast<int64_t>(column))});
}

int64_t line_of(const Value& problem) {
  const Value* line = problem.find("line");
  return line != nullptr ? line->get_int() : 0;
}

int64_t column_of(const Value& problem) {
  const Value* column = problem.find("column");
  return column != nullptr ? column->get_int() : 0;
}

// In the order of the text; those without a place first, as found.
void sort_by_place(Array& problems) {
  std::stable_sort(problems.begin(), problems.end(), [](const Value& a, const Value& b) {
    return std::pair(line_of(a), column_of(a)) < std::pair(line_of(b), column_of(b));
  });
}

// Where each pointer of the schema's text is: the text is JSON, which reads
// as YAML with every node's position.
class SchemaPlaces {
 public:
  explicit SchemaPlaces(std::string_view text) {
    YamlOptions options;
    options.record_positions = true;
    auto stream = parse_yaml_stream(text, "parameters_schema", options);
    if (stream.ok() && stream->size() == 1) document_ = std::move((*stream)[0]);
  }

  void add_to(Value& problem, std::string_view pointer) const {
    if (const YamlPosition* found = document_.nearest_position_of(pointer)) {
      add_place(problem, found->line, found->column);
    }
  }

 private:
  YamlDocument document_;
};

}  // namespace

Array template_content_problems(std::string_view name, std::string_view content) {
  Array problems;
  for (const tera::TemplateError& error : render::template_content_problems(name, content)) {
    Value found = problem("template_content", "invalid_template_syntax", error.message);
    add_place(found, error.location.line, error.location.column);
    if (!error.expression.empty()) found.mutable_object().push_back({"expression", Value(error.expression)});
    problems.push_back(std::move(found));
  }
  sort_by_place(problems);
  return problems;
}

Array parameters_schema_problems(std::string_view schema_text) {
  auto checked = render::check_parameters_schema(schema_text);
  if (checked.ok()) return {};
  const render::Failure& failure = checked.error();
  constexpr std::string_view kField = "parameters_schema";
  constexpr std::string_view kCode = "invalid_parameters_schema";
  Array problems;
  switch (failure.kind) {
    case render::Failure::Kind::SchemaNotJson: {
      Value found = problem(kField, kCode, "not JSON: " + failure.message);
      add_place(found, failure.line, failure.column);
      problems.push_back(std::move(found));
      break;
    }
    case render::Failure::Kind::SchemaInvalid: {
      const SchemaPlaces places(schema_text);
      for (const schema::Violation& violation : failure.violations) {
        Value found = problem(kField, kCode, violation.message);
        found.mutable_object().push_back({"pointer", Value(violation.instance_location)});
        places.add_to(found, violation.instance_location);
        problems.push_back(std::move(found));
      }
      sort_by_place(problems);
      break;
    }
    case render::Failure::Kind::SchemaRootNotObject: {
      Value found = problem(kField, kCode, render::describe(failure));
      found.mutable_object().push_back({"pointer", Value("/type")});
      SchemaPlaces(schema_text).add_to(found, "/type");
      problems.push_back(std::move(found));
      break;
    }
    default: problems.push_back(problem(kField, kCode, render::describe(failure))); break;
  }
  return problems;
}

ApiResult<Ok> check_template_content(std::string_view name, std::string_view content) {
  auto checked = render::check_template_content(name, content);
  if (!checked.ok()) return api_error(checked.error(), "/template_content");
  return Ok{};
}

ApiResult<Ok> check_parameters_schema(std::string_view schema_text) {
  auto checked = render::check_parameters_schema(schema_text);
  if (!checked.ok()) return api_error(checked.error());
  return Ok{};
}

ApiResult<render::CompiledTemplateVersion> compile_stored_version(const render::TemplateVersion& version) {
  auto compiled = render::compile_template_version(version);
  if (!compiled.ok()) return api_error(compiled.error());
  return std::move(compiled).value();
}

render::RenderLimits render_limits(const BrokerConfig& settings, const std::atomic<bool>* cancel) {
  // 0 is the operator's "no limit" (seed 000: trust template authors).
  const auto or_none = [](int64_t limit, auto none) { return limit > 0 ? decltype(none)(limit) : none; };
  return render::RenderLimits{
      .max_output_bytes = or_none(settings.render_max_output_bytes, std::numeric_limits<size_t>::max()),
      .max_steps = or_none(settings.render_max_steps, std::numeric_limits<uint64_t>::max()),
      .max_duration = std::chrono::milliseconds(static_cast<int64_t>(std::ceil(settings.render_max_duration * 1000))),
      .cancel = cancel,
  };
}

ApiResult<std::string> render_stored_version(const render::CompiledTemplateVersion& version, const Value& parameters,
                                             const BrokerConfig& settings, const std::atomic<bool>* cancel) {
  auto rendered = render::render_compiled(version, parameters, render_limits(settings, cancel));
  if (rendered.ok()) return std::move(rendered).value();
  if (render::limit_reached(rendered.error()) == render::LimitReached::Cancelled) {
    return ApiError{503, "shutting_down", "the broker is stopping and cancelled this render; try again later",
                    Value(), std::nullopt};
  }
  ApiError error = api_error(rendered.error());
  if (const std::string_view setting = limit_setting(render::limit_reached(rendered.error())); !setting.empty()) {
    error.message += " (the broker's " + std::string(setting) +
                     " setting stopped it: an operator may raise it, or set 0 for no limit)";
    error.details.mutable_object().push_back({"setting", Value(setting)});
  }
  return error;
}

}  // namespace sindri::broker
