#pragma once
// A JSON or YAML file read with the position of every node, so that any
// complaint about a value can name FILE:LINE:COLUMN.

#include <filesystem>
#include <string>
#include <string_view>

#include "value/result.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::repo {

struct LocatedDocument {
  std::string file;  // as messages name it
  YamlDocument document;

  const Value& value() const { return document.value; }
  // "FILE:LINE:COLUMN" of the node at `pointer`, or of its nearest ancestor
  // that has a position; "FILE" when none has.
  std::string where(std::string_view pointer) const;
};

// Strict JSON (values exactly as JSON means them); the positions come from
// reading the same text as YAML, of which JSON is a subset. Errors read
// "FILE:LINE:COLUMN: invalid JSON: MESSAGE".
Result<LocatedDocument> parse_located_json(std::string_view text, std::string file);

// One YAML document, duplicate keys refused. Errors as above.
Result<LocatedDocument> parse_located_yaml(std::string_view text, std::string file);

}  // namespace sindri::repo
