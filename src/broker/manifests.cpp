#include "broker/manifests.hpp"

#include "value/yaml_outline.hpp"

namespace sindri::broker {
namespace {

ApiError manifest_error(std::string message, std::string_view pointer, size_t document, size_t line, size_t column) {
  Object details;
  details.push_back({Value("pointer"), Value(pointer)});
  details.push_back({Value("document"), Value(static_cast<int64_t>(document + 1))});
  details.push_back({Value("line"), Value(static_cast<int64_t>(line))});
  details.push_back({Value("column"), Value(static_cast<int64_t>(column))});
  const std::string where = (pointer.empty() ? std::string("the body") : std::string(pointer)) + ": document " +
                            std::to_string(document + 1) + " line " + std::to_string(line) + " column " +
                            std::to_string(column) + ": ";
  return ApiError{400, "invalid_yaml", where + message, Value(std::move(details)), std::nullopt};
}

}  // namespace

ApiResult<Ok> check_manifests(std::string_view yaml, std::string_view pointer) {
  static constexpr std::string_view kRequired[] = {"apiVersion", "kind"};
  // Only the top of each document matters here; nested content is not built.
  auto documents = outline_yaml_stream(yaml, kRequired);
  if (!documents.ok()) {
    const YamlError& error = documents.error();
    return manifest_error(error.message, pointer, error.document, error.line, error.column);
  }
  size_t objects = 0;
  for (size_t index = 0; index < documents->size(); ++index) {
    const YamlDocumentOutline& document = (*documents)[index];
    if (document.top.is_null()) continue;
    if (!document.top.is_object()) {
      return manifest_error(std::string("a Kubernetes object must be a mapping, got ") + document.top.kind_name(),
                            pointer, index, document.line, 1);
    }
    for (std::string_view required : kRequired) {
      const Value* member = document.top.find(required);
      if (member == nullptr || !member->is_string() || member->get_string().empty()) {
        return manifest_error("a Kubernetes object needs a string `" + std::string(required) + "`", pointer, index,
                              document.line, 1);
      }
    }
    ++objects;
  }
  if (objects == 0) return manifest_error("no Kubernetes object in the YAML", pointer, 0, 1, 1);
  return Ok{};
}

}  // namespace sindri::broker
