#include "cli/parameters.hpp"

#include <charconv>

#include "cli/io.hpp"
#include "params/values.hpp"

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

const Value* value_at(const Value& root, std::string_view pointer) {
  const Value* at = &root;
  while (at && !pointer.empty()) {
    pointer.remove_prefix(1);  // the `/`
    const size_t end = pointer.find('/');
    std::string token(pointer.substr(0, end));
    pointer = end == std::string_view::npos ? std::string_view() : pointer.substr(end);
    for (size_t i; (i = token.find("~1")) != std::string::npos;) token.replace(i, 2, "/");
    for (size_t i; (i = token.find("~0")) != std::string::npos;) token.replace(i, 2, "~");
    if (at->is_array()) {
      size_t index = 0;
      auto [p, ec] = std::from_chars(token.data(), token.data() + token.size(), index);
      at = ec == std::errc() && p == token.data() + token.size() ? at->at(index) : nullptr;
    } else {
      at = at->find(token);
    }
  }
  return at;
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
