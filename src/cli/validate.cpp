// sindri validate --schema SCHEMA VALUES...
//
// Checks each values file (YAML or JSON) against the schema, after filling
// in the schema's defaults as `render` does. Exit 0: every file is valid.
// Exit 2: violations, one line each in the order of the file,
// "FILE:LINE:COLUMN: POINTER: MESSAGE (schema LOCATION)" (the position is
// left out for JSON files). Exit 1: the schema is not a valid schema, or a
// file cannot be read or parsed; the other files are still checked.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cli/errors.hpp"
#include "cli/parameters.hpp"
#include "cli/verbs.hpp"

namespace sindri::cli {

namespace {

struct ValidateArgs {
  std::string schema;
  std::vector<std::string> values_files;
};

// Top to bottom, as the file reads (the validator goes in schema order);
// violations without a position keep their order, first.
void sort_by_position(std::vector<schema::Violation>& violations, const YamlDocument& source) {
  const auto position = [&](const schema::Violation& violation) {
    const YamlPosition* at = source.nearest_position_of(violation.instance_location);
    return at ? std::pair(at->line, at->column) : std::pair(uint32_t{0}, uint32_t{0});
  };
  std::stable_sort(violations.begin(), violations.end(),
                   [&](const schema::Violation& a, const schema::Violation& b) { return position(a) < position(b); });
}

int run_validate(const ValidateArgs& args) {
  auto schema = load_schema(args.schema);
  if (!schema) {
    print_error(schema.error().message);
    return 1;
  }
  bool unreadable = false;
  bool invalid = false;
  for (const std::string& path : args.values_files) {
    auto doc = read_values_file(path);
    if (!doc) {
      print_error(doc.error().message);
      unreadable = true;
      continue;
    }
    auto violations = schema::validate(*schema, schema::apply_defaults(*schema, doc->value));
    sort_by_position(violations, *doc);
    for (const auto& v : violations) print_error(describe_violation(v, path, &*doc));
    invalid |= !violations.empty();
  }
  return unreadable ? 1 : invalid ? 2 : 0;
}

}  // namespace

Verb add_validate(CLI::App& app) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* cmd = app.add_subcommand("validate", "Check values files against a JSON Schema");
  cmd->add_option("-s,--schema", args->schema, "The JSON Schema (JSON or YAML)")->required();
  cmd->add_option("VALUES", args->values_files, "Values files (YAML or JSON)")->required();
  return Verb{cmd, [args] { return run_validate(*args); }};
}

}  // namespace sindri::cli
