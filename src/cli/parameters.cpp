#include "cli/parameters.hpp"

#include <utility>

#include "cli/broker_client.hpp"
#include "cli/errors.hpp"
#include "cli/io.hpp"
#include "params/values.hpp"
#include "value/json.hpp"
#include "value/pointer.hpp"

namespace sindri::cli {

Result<YamlDocument> read_values_file(const std::string& path) {
  SINDRI_TRY(text, read_file(path, "values file"));
  return params::parse_values(text, path);
}

namespace {

// Unknown keywords are ignored, so a values file given for a schema would
// otherwise pass every check without a word.
void warn_unless_schema(const Value& document, const std::string& path) {
  // An empty schema says plainly that anything goes.
  if (schema::constrains_anything(document) || (document.is_object() && document.size() == 0)) return;
  print_warning(path +
                " has no JSON Schema keyword that constrains at its top level (type, properties, $ref, ...), so as "
                "a schema it accepts anything: is it a values file?");
}

Status check_schema_document(const Value& document, const std::string& path) {
  const auto problems = schema::check_schema(document);
  if (problems.empty()) return Ok{};
  std::string message = path + " is not a valid JSON Schema:";
  for (const auto& p : problems) message += "\n  " + path + ": " + p.describe();
  return make_error(message);
}

}  // namespace

Result<Value> read_schema_file(const std::string& path) {
  SINDRI_TRY(text, read_file(path, "schema file"));
  SINDRI_TRY(doc, params::parse_document(text, path));
  warn_unless_schema(doc.value, path);
  return std::move(doc.value);
}

Result<std::string> read_schema_as_json(const std::string& path) {
  SINDRI_TRY(text, read_file(path, "schema file"));
  SINDRI_TRY(document, params::parse_document(text, path));
  warn_unless_schema(document.value, path);
  if (auto valid = check_schema_document(document.value, path); !valid) return std::move(valid).error();
  if (params::looks_like_json(text)) return text;
  return to_json(document.value);
}

Result<schema::CompiledSchema> load_schema(const std::string& path) {
  SINDRI_TRY(document, read_schema_file(path));
  if (auto valid = check_schema_document(document, path); !valid) return std::move(valid).error();
  auto compiled = schema::compile_schema(document);
  if (!compiled) return make_error(path + ": " + compiled.error().describe());
  return std::move(compiled).value();
}

std::string describe_violation(const schema::Violation& violation, const std::string& file,
                               const YamlDocument* source) {
  std::string prefix;
  if (const YamlPosition* at = source ? source->nearest_position_of(violation.instance_location) : nullptr) {
    prefix = file + ":" + std::to_string(at->line) + ":" + std::to_string(at->column) + ": ";
  }
  if (prefix.empty() && !file.empty()) prefix = file + ": ";
  return prefix + violation.describe();
}

namespace {

// A --set argument that does not parse is a usage error, found before any
// file is read or request made.
CLI::Validator set_syntax(params::SetMode mode) {
  return CLI::Validator(
      [mode](std::string& argument) {
        Value scratch{Object{}};
        auto applied = params::apply_set(scratch, argument, mode);
        return applied ? std::string() : applied.error().describe();
      },
      "");
}

}  // namespace

void add_values_options(CLI::App& command, ValuesSources& sources) {
  command
      .add_option("-f,--values", sources.files,
                  "Values file (YAML or JSON); repeatable, later files deep-merged over earlier ones")
      ->allow_extra_args(false);  // one file per -f, so that positional arguments may follow
  command.add_option("--set", sources.sets, "Set values as Helm does: a.b=1,list={x,y},m[0].k=v (typed)")
      ->allow_extra_args(false)
      ->check(set_syntax(params::SetMode::Typed));
  command.add_option("--set-string", sources.set_strings, "Like --set, but every value is a string")
      ->allow_extra_args(false)
      ->check(set_syntax(params::SetMode::String));
}

Result<Value> gather_values(const ValuesSources& sources, std::vector<ValuesFile>& files) {
  Value values{Object{}};
  if (!sources.context.empty()) {
    auto loaded = read_context(sources.context);
    if (!loaded) return loaded;
    values = std::move(loaded).value();
  }
  for (const std::string& path : sources.files) {
    SINDRI_TRY(doc, read_values_file(path));
    values = params::merge_values(values, doc.value);
    files.push_back(ValuesFile{path, std::move(doc)});
  }
  const std::pair<const std::vector<std::string>*, params::SetMode> layers[] = {
      {&sources.sets, params::SetMode::Typed}, {&sources.set_strings, params::SetMode::String}};
  for (const auto& [arguments, mode] : layers) {
    for (const std::string& argument : *arguments) {
      auto applied = params::apply_set(values, argument, mode);
      if (!applied) {
        return make_error(std::string("invalid ") + (mode == params::SetMode::Typed ? "--set " : "--set-string ") +
                          applied.error().describe());
      }
    }
  }
  return values;
}

std::string locate_violation(const schema::Violation& violation, const Value& values,
                             const std::vector<ValuesFile>& files) {
  const Value* failing = follow_pointer(values, violation.instance_location);
  for (auto it = files.rbegin(); it != files.rend(); ++it) {
    const Value* written = follow_pointer(it->document.value, violation.instance_location);
    if (failing && written && *written == *failing && it->document.position_of(violation.instance_location)) {
      return describe_violation(violation, it->path, &it->document);
    }
  }
  return "values " + violation.describe();
}

}  // namespace sindri::cli
