#include "agent/documents.hpp"

#include <algorithm>

#include "value/yaml/yaml.hpp"
#include "value/members.hpp"

namespace sindri::agent {

namespace {

// Applied before everything else: the objects that the others live in or are
// instances of.
bool goes_first(std::string_view kind) { return kind == "Namespace" || kind == "CustomResourceDefinition"; }

}  // namespace

std::string PreparedDocument::describe() const {
  return "document " + std::to_string(index) + " (" + api_version + " " + kind + " " +
         (namespace_.empty() ? name : namespace_ + "/" + name) + ")";
}

std::string_view annotation_of(const Value& object, std::string_view key) {
  const Value* metadata = object.find("metadata");
  const Value* annotations = metadata && metadata->is_object() ? metadata->find("annotations") : nullptr;
  const Value* value = annotations && annotations->is_object() ? annotations->find(key) : nullptr;
  return value && value->is_string() ? value->get_string() : std::string_view();
}

Result<std::vector<PreparedDocument>> prepare_documents(const DeploymentObject& object, std::string_view owner_id) {
  auto parsed = parse_yaml_stream(object.yaml);
  if (!parsed.ok()) {
    const YamlError& error = parsed.error();
    return make_error("deployment object " + object.id + ": document " + std::to_string(error.document + 1) +
                      ": unparseable YAML at line " + std::to_string(error.line) + ", column " +
                      std::to_string(error.column) + ": " + error.message);
  }
  std::vector<PreparedDocument> documents;
  for (size_t i = 0; i < parsed->size(); ++i) {
    const Value& document = (*parsed)[i].value;
    if (document.is_null()) continue;
    std::string where = "deployment object " + object.id + ": document " + std::to_string(i + 1);
    if (!document.is_object()) {
      return make_error(where + ": a YAML " + std::string(document.kind_name()) +
                        ", not a Kubernetes object (a mapping)");
    }
    PreparedDocument prepared;
    prepared.index = i + 1;
    prepared.api_version = string_member(document, "apiVersion");
    prepared.kind = string_member(document, "kind");
    const Value* metadata = document.find("metadata");
    if (metadata && !metadata->is_object()) return make_error(where + ": metadata is not a mapping");
    if (metadata) {
      prepared.name = string_member(*metadata, "name");
      prepared.namespace_ = string_member(*metadata, "namespace");
    }
    if (prepared.api_version.empty()) return make_error(where + ": no apiVersion");
    if (prepared.kind.empty()) return make_error(where + ": no kind");
    if (prepared.name.empty()) return make_error(where + " (" + prepared.kind + "): no metadata.name");

    Value new_metadata = metadata ? *metadata : Value(Object{});
    const Value* given = new_metadata.find("annotations");
    if (given && !given->is_object() && !given->is_null()) {
      return make_error(where + " (" + prepared.kind + " " + prepared.name +
                        "): metadata.annotations is not a mapping");
    }
    Value annotations = given && given->is_object() ? *given : Value(Object{});
    annotations.set(kStackAnnotation, object.stack_id);
    annotations.set(kChecksumAnnotation, object.checksum);
    annotations.set(kDeploymentObjectIdAnnotation, object.id);
    annotations.set(kLastConfigAnnotation, object.checksum);
    annotations.set(kOwnerAnnotation, owner_id);
    new_metadata.set("annotations", std::move(annotations));
    prepared.object = document;
    prepared.object.set("metadata", std::move(new_metadata));
    documents.push_back(std::move(prepared));
  }
  std::stable_partition(documents.begin(), documents.end(),
                        [](const PreparedDocument& document) { return goes_first(document.kind); });
  return documents;
}

}  // namespace sindri::agent
