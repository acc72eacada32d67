// sindri lint TEMPLATE [--schema SCHEMA] [--templates DIR]
//
// Checks what can be checked without values: the template's syntax and
// names (as `check` does); the schema against its meta-schema; and, with a
// schema, that every top-level variable the template reads is a property
// of the schema (an error, at the read's line and column: usually a typo)
// and that every property is read somewhere (a warning); without one, a
// template without errors gets a note saying what was not checked. With
// --templates every template of the directory is checked and counts as
// reading.
// Exit 1 when there is an error, 0 otherwise (warnings allowed).

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cli/errors.hpp"
#include "cli/io.hpp"
#include "cli/parameters.hpp"
#include "cli/template_files.hpp"
#include "cli/verbs.hpp"
#include "schema/schema.hpp"
#include "tera/tera.hpp"
#include "tera/variables.hpp"
#include "value/pointer.hpp"

namespace sindri::cli {

namespace {

struct LintArgs {
  std::string tpl;
  std::string schema;
  std::string templates;
};

void print_line(const std::string& line) {
  const std::string text = line + "\n";
  std::fwrite(text.data(), 1, text.size(), stderr);
}

// The top-level properties a schema declares: its own `properties`, and
// those of the schemas it is made of (a local `$ref`, `allOf`, `anyOf`,
// `oneOf`, `if`/`then`/`else`), so that a schema split into parts is read
// as a whole.
void collect_properties(const Value& root, const Value& node, std::set<std::string>& out, int depth = 0) {
  if (!node.is_object() || depth > 32) return;
  if (const Value* props = node.find("properties"); props && props->is_object()) {
    for (const Member& m : props->get_object()) out.insert(std::string(m.key.get_string()));
  }
  if (const Value* ref = node.find("$ref"); ref && ref->is_string() && ref->get_string().starts_with("#")) {
    if (const Value* target = follow_pointer(root, ref->get_string().substr(1))) {
      collect_properties(root, *target, out, depth + 1);
    }
  }
  for (const char* list : {"allOf", "anyOf", "oneOf"}) {
    if (const Value* parts = node.find(list); parts && parts->is_array()) {
      for (const Value& part : parts->get_array()) collect_properties(root, part, out, depth + 1);
    }
  }
  for (const char* branch : {"if", "then", "else"}) {
    if (const Value* part = node.find(branch)) collect_properties(root, *part, out, depth + 1);
  }
}

int run_lint(const LintArgs& args) {
  auto set = load_templates(args.tpl, args.templates);
  if (!set) {
    print_error(set.error().message);
    return 1;
  }
  bool failed = false;
  std::vector<std::pair<std::string, tera::VariableRead>> reads;  // (template, read)
  for (const TemplateFile& file : set->files) {
    auto problems = tera::check(file.name, file.source);
    print_errors(problems);
    failed |= !problems.empty();
    if (auto compiled = tera::compile(file.name, file.source)) {
      for (auto& read : tera::context_variables(**compiled)) reads.emplace_back(file.name, std::move(read));
    }
  }
  // Linking finds missing parents, imports and includes; with a template
  // that does not parse it would only repeat that template's errors.
  if (!args.templates.empty() && !failed) {
    const auto link_errors = link_problems(*set);
    print_errors(link_errors);
    failed = !link_errors.empty();
  }
  if (args.schema.empty()) {
    if (failed) return 1;
    print_note("checked the syntax and names of " + set->main +
               " only: the variables it reads were not checked against a schema (pass --schema SCHEMA)");
    return 0;
  }

  auto schema = read_schema_file(args.schema);
  if (!schema) {
    print_error(schema.error().message);
    return 1;
  }
  const auto problems = schema::check_schema(*schema);
  for (const auto& p : problems) print_line(args.schema + ": error: " + p.describe());
  if (!problems.empty()) return 1;

  std::set<std::string> properties;
  collect_properties(*schema, *schema, properties);
  std::set<std::string> read_names;
  for (const auto& [name, read] : reads) {
    read_names.insert(read.name);
    if (properties.count(read.name)) continue;
    print_line(name + ":" + std::to_string(read.location.line) + ":" + std::to_string(read.location.column) +
               ": error: " + (read.path == read.name ? "" : "`" + read.path + "` reads ") + "`" + read.name +
               "`, which is not a property of the schema " + args.schema);
    failed = true;
  }
  for (const std::string& property : properties) {
    if (read_names.count(property)) continue;
    print_line(args.schema + ": warning: property `" + property + "` is never read by " + set->main);
  }
  return failed ? 1 : 0;
}

}  // namespace

Verb add_lint(CLI::App& app) {
  auto args = std::make_shared<LintArgs>();
  CLI::App* cmd = app.add_subcommand("lint", "Check a template, its schema, and the variables it reads");
  cmd->add_option("TEMPLATE", args->tpl, "Template file (or, with --templates, a template name)")->required();
  cmd->add_option("-s,--schema", args->schema, "The parameters' JSON Schema (JSON or YAML)");
  cmd->add_option("-t,--templates", args->templates,
                  "Directory whose files are all loaded as templates and checked together");
  return Verb{cmd, [args] { return run_lint(*args); }};
}

}  // namespace sindri::cli
