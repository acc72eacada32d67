#include "cli/parameters.hpp"

#include "cli/io.hpp"
#include "params/values.hpp"
#include "value/pointer.hpp"

namespace sindri::cli {

Result<YamlDocument> read_values_file(const std::string& path) {
  auto text = read_file(path, "values file");
  if (!text) return std::move(text).error();
  return params::parse_values(*text, path);
}

Result<Value> read_schema_file(const std::string& path) {
  auto text = read_file(path, "schema file");
  if (!text) return std::move(text).error();
  auto doc = params::parse_document(*text, path);
  if (!doc) return std::move(doc).error();
  return std::move(doc->value);
}

Result<schema::CompiledSchema> load_schema(const std::string& path) {
  auto document = read_schema_file(path);
  if (!document) return std::move(document).error();
  const auto problems = schema::check_schema(*document);
  if (!problems.empty()) {
    std::string message = path + " is not a valid JSON Schema:";
    for (const auto& p : problems) message += "\n  " + path + ": " + p.describe();
    return make_error(message);
  }
  auto compiled = schema::compile_schema(*document);
  if (!compiled) return make_error(path + ": " + compiled.error().describe());
  return std::move(compiled).value();
}

std::string describe_violation(const schema::Violation& violation, const std::string& file,
                               const YamlDocument* source) {
  std::string prefix;
  if (source) {
    std::string_view pointer = violation.instance_location;
    const YamlPosition* at = source->position_of(pointer);
    while (!at && !pointer.empty()) {
      pointer = pointer.substr(0, pointer.rfind('/'));
      at = source->position_of(pointer);
    }
    if (at) prefix = file + ":" + std::to_string(at->line) + ":" + std::to_string(at->column) + ": ";
  }
  if (prefix.empty() && !file.empty()) prefix = file + ": ";
  return prefix + violation.describe();
}

}  // namespace sindri::cli
