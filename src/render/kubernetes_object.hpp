#pragma once
// The one rule of what a Kubernetes object is, for every stage that takes
// manifests: a mapping with non-empty string apiVersion and kind, and where
// the caller says so (objects written to files or applied by name) a
// non-empty string metadata.name. Each caller words the problem its own way.

#include <string>

#include "value/value.hpp"

namespace sindri::render {

enum class NameRule { Optional, Required };

struct ObjectProblem {
  enum class Kind { None, NotMapping, MissingString };
  Kind kind = Kind::None;
  std::string field;          // MissingString: "apiVersion", "kind" or "metadata.name"
  const char* document_kind = nullptr;  // NotMapping: what the document is (Value::kind_name)

  explicit operator bool() const { return kind != Kind::None; }
};

ObjectProblem find_object_problem(const Value& document, NameRule names);

}  // namespace sindri::render
