#pragma once
// A template version and its parameters turned into YAML, the same way for
// instantiation, the dry run and reconstruction: the parameter schema's
// defaults filled in, the result validated, the template rendered by the
// engine from its compiled-template cache (parsed once per source), and the
// output checked to be Kubernetes objects. Each step's failure is a 400
// naming what is wrong and where.

#include <memory>
#include <string>
#include <string_view>

#include "broker/api_error.hpp"
#include "value/value.hpp"

namespace sindri::tera {
class Template;
}
namespace sindri::schema {
class CompiledSchema;
}

namespace sindri::broker {

struct TemplateVersion {
  std::string_view name;               // the template's name
  int64_t version = 0;
  std::string_view content;            // Tera source
  std::string_view parameters_schema;  // JSON Schema as JSON text
};

// At creation: the Tera syntax, unknown filters, tests and functions
// included, no call of now, get_random or get_env (the output must follow
// from the parameters alone), and no other template named by extends,
// import or include without `ignore missing` (400 template_syntax_error
// with line and column). The compiled template stays in the cache that
// rendering uses.
ApiResult<Ok> check_template_content(std::string_view name, std::string_view content);
// At creation: JSON text holding a valid JSON Schema (400
// invalid_parameters_schema naming the problem).
ApiResult<Ok> check_parameters_schema(std::string_view schema_text);

// A version ready to render: its template and schema compiled (taken from
// caches keyed by the SHA-256 of their text), immutable and shareable
// between threads.
struct CompiledTemplateVersion {
  std::shared_ptr<const tera::Template> tpl;
  std::shared_ptr<const schema::CompiledSchema> parameters_schema;
  std::string display_name;  // "NAME vVERSION", for errors
};
ApiResult<CompiledTemplateVersion> compile_template_version(const TemplateVersion& version);

// Defaults, validation (400 invalid_parameters listing every violation with
// its pointer under /parameters), rendering (400 template_render_error with
// line, column and expression) and the manifest check (400
// rendered_yaml_invalid). Output past `max_bytes` is a render error.
ApiResult<std::string> render_compiled(const CompiledTemplateVersion& version, const Value& parameters,
                                       size_t max_bytes);
// compile_template_version, then render_compiled.
ApiResult<std::string> render_template_version(const TemplateVersion& version, const Value& parameters);

}  // namespace sindri::broker
