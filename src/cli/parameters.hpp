#pragma once
// Values files and schemas for the `sindri` verbs: read, parsed and checked
// by src/params and src/schema, with errors that name the file.

#include <string>
#include <string_view>
#include <vector>

#include "schema/schema.hpp"
#include "value/result.hpp"
#include "value/value.hpp"
#include "value/yaml.hpp"

namespace sindri::cli {

// A values file (YAML or JSON, by content) holding a mapping. Errors read
// "cannot read values file PATH: REASON" or "PATH:LINE:COLUMN: MESSAGE".
Result<YamlDocument> read_values_file(const std::string& path);

// A schema file (JSON or YAML, by content), not yet checked.
Result<Value> read_schema_file(const std::string& path);

// A schema file that is a valid schema and compiles. Problems with the
// schema itself come back one per line: "PATH: /ptr: MESSAGE (schema ...)".
Result<schema::CompiledSchema> load_schema(const std::string& path);


// One line per violation, "POINTER: MESSAGE (schema LOCATION)", prefixed
// with "FILE:LINE:COLUMN: " when `source` holds a position for the
// instance location or, failing that, for its nearest ancestor.
std::string describe_violation(const schema::Violation& violation, const std::string& file,
                               const YamlDocument* source);

}  // namespace sindri::cli
