#pragma once
// A placeholder root over a tree of data with declared fields: the common
// shape of a root that publishes a handful of named values.
//
// Each field is a dotted path into the tree. A declared field resolves to
// its value; `FIELD.kcl` resolves to the same value written as KCL (a
// kcl::expression). A missing required field is an error; a missing
// optional field gives the empty value of its kind ("", {}, [], 0, 0.0,
// false, null). Any other path is an unknown field.

#include <string>
#include <string_view>
#include <vector>

#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::placeholder {

struct Field {
  std::string path;  // dotted, relative to the root
  bool required = false;
  Value::Kind kind = Value::Kind::String;
  bool kcl_only = false;  // only FIELD.kcl is published (the value holds expressions)
};

class TreeRoot {
 public:
  TreeRoot(Value tree, std::vector<Field> fields) : tree_(std::move(tree)), fields_(std::move(fields)) {}

  Result<Value> lookup(std::string_view rest) const;

 private:
  const Value* find(std::string_view dotted) const;

  Value tree_;
  std::vector<Field> fields_;
};

Value empty_of_kind(Value::Kind kind);

}  // namespace sindri::placeholder
