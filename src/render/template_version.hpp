#pragma once
// A stored template version (seed 000: Tera text and a JSON Schema for its
// parameters) checked, compiled and rendered the same way by the broker's
// creation, instantiation and dry run and by `sindri reconstruct`. The
// template is rendered alone and isolated: no other template, no clock, no
// randomness, no environment, so that its output follows from the
// parameters alone.

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "render/failure.hpp"

namespace sindri::render {

struct TemplateVersion {
  std::string_view name;  // the template's name
  int64_t version = 0;
  std::string_view content;            // Tera source
  std::string_view parameters_schema;  // JSON Schema as JSON text
};

// At creation: the Tera syntax, unknown filters, tests and functions
// included, no call of now, get_random or get_env, and no other template
// named by extends, import or include without `ignore missing`
// (TemplateSyntax). The compiled template stays in the cache that rendering
// uses.
Rendered<Ok> check_template_content(std::string_view name, std::string_view content);
// Every problem check_template_content refuses, in order; a syntax error
// stops the parse, so it is then the only one.
std::vector<tera::TemplateError> template_content_problems(std::string_view name, std::string_view content);
// At creation: JSON text without a key given twice, holding a valid JSON
// Schema whose root accepts an object (the Schema* kinds).
Rendered<Ok> check_parameters_schema(std::string_view schema_text);

// A version ready to render: its template and schema compiled (taken from
// caches keyed by the SHA-256 of their text), immutable and shareable
// between threads.
struct CompiledTemplateVersion {
  std::shared_ptr<const tera::Template> tpl;
  std::shared_ptr<const schema::CompiledSchema> parameters_schema;
  std::string display_name;  // "NAME vVERSION", for errors
};
// A syntax error names the template by its display name.
Rendered<CompiledTemplateVersion> compile_template_version(const TemplateVersion& version);

// What a stored version renders under, in the broker as in reconstruct.
struct RenderLimits {
  size_t max_output_bytes = tera::RenderOptions{}.max_output_bytes;
  uint64_t max_steps = tera::RenderOptions{}.max_steps;
  // A backstop behind the render's step limit, which already bounds any
  // template's work to about two seconds of one core: no render holds a
  // broker's worker thread longer, whatever work the steps undercount.
  std::chrono::milliseconds max_duration{5000};
  // A stop's cancellation (tera::RenderOptions::cancel); none when null.
  const std::atomic<bool>* cancel = nullptr;
  // Every violation would be listed: a large body against a recursive
  // schema could make millions.
  size_t max_violations = 100;
};
// render_values (pipeline.hpp) with the version's schema, checking the
// output's manifests.
Rendered<std::string> render_compiled(const CompiledTemplateVersion& version, const Value& parameters,
                                      const RenderLimits& limits);
// Which of the limits stopped a render that failed (a TemplateRender
// failure); None when none did.
enum class LimitReached { None, Steps, Duration, OutputBytes, Cancelled };
LimitReached limit_reached(const Failure& failure);

// compile_template_version, then render_compiled.
Rendered<std::string> render_template_version(const TemplateVersion& version, const Value& parameters,
                                              const RenderLimits& limits = {});

}  // namespace sindri::render
