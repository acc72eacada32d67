#pragma once
// Values files and schemas for the `sindri` verbs: read, parsed and checked
// by src/params and src/schema, with errors that name the file; and the
// values a verb gathers from -f, --set and --set-string (render, template
// render, instantiate).

#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "schema/schema.hpp"
#include "value/result.hpp"
#include "value/value.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::cli {

// A values file (YAML or JSON, by content) holding a mapping. Errors read
// "cannot read values file PATH: REASON" or "PATH:LINE:COLUMN: MESSAGE".
Result<YamlDocument> read_values_file(const std::string& path);

// A schema file (JSON or YAML, by content), not yet checked, except that a
// file with no JSON Schema keyword at its top level (a values file, likely)
// is warned about on stderr: it would constrain nothing.
Result<Value> read_schema_file(const std::string& path);

// A schema file that is a valid schema, as JSON text: a JSON file as it is
// written, a YAML file serialised. Errors and the warning as load_schema's.
Result<std::string> read_schema_as_json(const std::string& path);

// A schema file that is a valid schema and compiles. Problems with the
// schema itself come back one per line: "PATH: /ptr: MESSAGE (schema ...)";
// a file without keywords is warned about as by read_schema_file.
Result<schema::CompiledSchema> load_schema(const std::string& path);

// One line per violation, "POINTER: MESSAGE (schema LOCATION)", prefixed
// with "FILE:LINE:COLUMN: " when `source` holds a position for the
// instance location or, failing that, for its nearest ancestor.
std::string describe_violation(const schema::Violation& violation, const std::string& file,
                               const YamlDocument* source);

// Where values come from, in Helm's order: the context object (render's
// --context; empty for none), each values file deep-merged over the ones
// before, every --set, then every --set-string.
struct ValuesSources {
  std::string context;
  std::vector<std::string> files;
  std::vector<std::string> sets;
  std::vector<std::string> set_strings;
};

// -f/--values, --set and --set-string, each taking one argument per use.
void add_values_options(CLI::App& command, ValuesSources& sources);

struct ValuesFile {
  std::string path;
  YamlDocument document;  // for positions in error messages
};

// The merged values (an empty mapping when no source is given); `files`
// receives each values file read, in order.
Result<Value> gather_values(const ValuesSources& sources, std::vector<ValuesFile>& files);

// The violation's position in the last values file that holds the failing
// value as it is in the end (the file a user would edit), else the pointer
// alone: the value came from --set, --context or a default.
std::string locate_violation(const schema::Violation& violation, const Value& values,
                             const std::vector<ValuesFile>& files);

}  // namespace sindri::cli
