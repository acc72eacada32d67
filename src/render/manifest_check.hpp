#pragma once
// Checking rendered or submitted YAML before it is stored or applied: it must
// parse, and every non-empty document must be a Kubernetes object
// (kubernetes_object.hpp; names are not required: the API takes objects
// named by a generateName), at least one of them, so that an agent never
// receives something it cannot apply. Reads only the top of each document.

#include <string>
#include <string_view>

#include "render/kubernetes_object.hpp"
#include "value/result.hpp"

namespace sindri::render {

struct ManifestError {
  enum class Kind { Yaml, NotObject, NoObject };
  Kind kind = Kind::Yaml;
  std::string yaml_message;  // Yaml: the parser's words
  ObjectProblem problem;     // NotObject
  size_t document = 0;       // from 0
  size_t line = 1;
  size_t column = 1;
};

Result<Ok, ManifestError> check_manifests(std::string_view yaml);

// "document N line L column C: " and the problem; `where` names the text
// ("the body", "/yaml_content") before it.
std::string describe(const ManifestError& error, std::string_view where);

}  // namespace sindri::render
