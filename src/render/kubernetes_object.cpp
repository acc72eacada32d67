#include "render/kubernetes_object.hpp"

namespace sindri::render {
namespace {

bool has_string(const Value& object, std::string_view key) {
  const Value* found = object.find(key);
  return found != nullptr && found->is_string() && !found->get_string().empty();
}

}  // namespace

ObjectProblem find_object_problem(const Value& document, NameRule names) {
  if (!document.is_object()) return {ObjectProblem::Kind::NotMapping, {}, document.kind_name()};
  for (const char* required : {"apiVersion", "kind"}) {
    if (!has_string(document, required)) return {ObjectProblem::Kind::MissingString, required, nullptr};
  }
  if (names == NameRule::Required) {
    const Value* metadata = document.find("metadata");
    if (metadata == nullptr || !has_string(*metadata, "name")) {
      return {ObjectProblem::Kind::MissingString, "metadata.name", nullptr};
    }
  }
  return {};
}

}  // namespace sindri::render
