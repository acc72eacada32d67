#include "render/manifest_check.hpp"

#include "value/yaml/outline.hpp"

namespace sindri::render {

Result<Ok, ManifestError> check_manifests(std::string_view yaml) {
  static constexpr std::string_view kTopLevel[] = {"apiVersion", "kind"};
  // Only the top of each document matters here; nested content is not built.
  auto documents = outline_yaml_stream(yaml, kTopLevel);
  if (!documents.ok()) {
    const YamlError& error = documents.error();
    return ManifestError{ManifestError::Kind::Yaml, error.message, {}, error.document, error.line, error.column};
  }
  size_t objects = 0;
  for (size_t index = 0; index < documents->size(); ++index) {
    const YamlDocumentOutline& document = (*documents)[index];
    if (document.top.is_null()) continue;
    if (ObjectProblem problem = find_object_problem(document.top, NameRule::Optional)) {
      return ManifestError{ManifestError::Kind::NotObject, {}, std::move(problem), index, document.line, 1};
    }
    ++objects;
  }
  if (objects == 0) return ManifestError{ManifestError::Kind::NoObject, {}, {}, 0, 1, 1};
  return Ok{};
}

std::string describe(const ManifestError& error, std::string_view where) {
  std::string text = std::string(where) + ": document " + std::to_string(error.document + 1) + " line " +
                     std::to_string(error.line) + " column " + std::to_string(error.column) + ": ";
  switch (error.kind) {
    case ManifestError::Kind::Yaml: return text + error.yaml_message;
    case ManifestError::Kind::NoObject: return text + "no Kubernetes object in the YAML";
    case ManifestError::Kind::NotObject: break;
  }
  if (error.problem.kind == ObjectProblem::Kind::NotMapping) {
    return text + "a Kubernetes object must be a mapping, got " + error.problem.document_kind;
  }
  return text + "a Kubernetes object needs a string `" + error.problem.field + "`";
}

}  // namespace sindri::render
