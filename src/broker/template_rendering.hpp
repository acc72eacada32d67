#pragma once
// The broker's side of src/render/template_version.hpp: each step of checking,
// compiling and rendering a template version, its failure a 400 naming what
// is wrong and where.

#include <atomic>
#include <string>
#include <string_view>

#include "broker/api_error.hpp"
#include "broker/config.hpp"
#include "render/template_version.hpp"

namespace sindri::broker {

// 400 invalid_template_syntax at /template_content, with line and column.
ApiResult<Ok> check_template_content(std::string_view name, std::string_view content);
// 400 invalid_parameters_schema naming the problem.
ApiResult<Ok> check_parameters_schema(std::string_view schema_text);
// POST /templates/check: every problem of a template's text, or of a
// parameter schema's, as {field, code, message, line?, column?, pointer?,
// expression?}; a schema problem's line and column are those of the value at
// its pointer (or of the nearest ancestor that has one).
Array template_content_problems(std::string_view name, std::string_view content);
Array parameters_schema_problems(std::string_view schema_text);
ApiResult<render::CompiledTemplateVersion> compile_stored_version(const render::TemplateVersion& version);
// 400 invalid_parameters listing every violation with its pointer under
// /parameters, template_render_failed with line, column and expression, or
// invalid_deployment_object. Rendered within the render.max_* settings: a
// render one stopped names it (details.setting). A render stopped by
// `cancel` (a stop that does not wait for renders) is 503 shutting_down.
ApiResult<std::string> render_stored_version(const render::CompiledTemplateVersion& version, const Value& parameters,
                                             const BrokerConfig& settings,
                                             const std::atomic<bool>* cancel = nullptr);

}  // namespace sindri::broker
