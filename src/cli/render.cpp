// sindri render TEMPLATE [-f VALUES]... [--context FILE.json] [--set PATH=V]...
//                [--set-string PATH=V]... [--schema SCHEMA] [-o raw|yaml|json]
//                [--output-dir DIR] [--templates DIR]
//
// The values are, in order: the --context object, each -f file deep-merged
// over the ones before, every --set, then every --set-string (Helm's order).
// With --schema, the schema's defaults fill absent properties and the result
// must validate: every violation is printed and the exit code is 2.
// -o raw prints the rendered text exactly (no newline added). -o yaml and
// -o json read it as a stream of Kubernetes manifests (empty documents are
// dropped), check each has apiVersion, kind and metadata.name, and print them
// re-emitted: a YAML stream, or JSON (one manifest as itself, several as a
// kubectl-style List). --output-dir writes each manifest to
// DIR/<kind>-<name>.yaml instead and prints the paths written.
// Any other error exits 1.

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cli/io.hpp"
#include "cli/parameters.hpp"
#include "cli/templates.hpp"
#include "cli/verbs.hpp"
#include "tera/tera.hpp"
#include "value/json.hpp"
#include "value/yaml.hpp"
#include "value/pointer.hpp"

namespace sindri::cli {

namespace {

namespace fs = std::filesystem;

struct RenderArgs {
  std::string tpl;
  std::string templates;
  ValuesSources values;
  std::string schema;
  std::string output = "raw";
  std::string output_dir;
};

const Value* string_at(const Value& v, std::string_view key) {
  const Value* found = v.find(key);
  return found && found->is_string() && !found->get_string().empty() ? found : nullptr;
}

// Every non-empty document of the rendered text, each checked to be a
// Kubernetes object.
Result<std::vector<Value>> read_manifests(const std::string& text, const std::string& template_name) {
  const std::string source = template_name + " (rendered)";
  auto stream = parse_yaml_stream(text, source);
  if (!stream) return make_error(stream.error().describe());
  std::vector<Value> manifests;
  for (size_t i = 0; i < stream->size(); ++i) {
    const YamlDocument& doc = (*stream)[i];
    if (doc.value.is_null()) continue;
    std::string problem;
    if (!doc.value.is_object()) {
      problem = std::string("is ") + (doc.value.is_array() ? "a list" : doc.value.kind_name()) + ", not a mapping";
    } else if (!string_at(doc.value, "apiVersion")) {
      problem = "has no `apiVersion` string";
    } else if (!string_at(doc.value, "kind")) {
      problem = "has no `kind` string";
    } else if (const Value* meta = doc.value.find("metadata"); !meta || !string_at(*meta, "name")) {
      problem = "has no `metadata.name` string";
    }
    if (!problem.empty()) {
      return make_error(source + ":" + std::to_string(doc.line) + ": document " + std::to_string(i + 1) + " " +
                        problem);
    }
    manifests.push_back(doc.value);
  }
  return manifests;
}

std::string manifests_as_json(const std::vector<Value>& manifests) {
  if (manifests.size() == 1) return to_json_pretty(manifests[0]) + "\n";
  Value list{Object{}};
  list.set("apiVersion", "v1");
  list.set("kind", "List");
  list.set("items", Value(Array(manifests.begin(), manifests.end())));
  return to_json_pretty(list) + "\n";
}

// `<kind>-<name>.yaml` in lower case; characters a file name should not
// hold (`/`, `:` of RBAC names, ...) become `_`.
std::string manifest_file_name(const Value& manifest) {
  std::string name = std::string(manifest.find("kind")->get_string()) + "-" +
                     std::string(manifest.find("metadata")->find("name")->get_string());
  for (char& c : name) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.' && c != '_') c = '_';
  }
  return name + ".yaml";
}

// Two manifests with the same file name are an error rather than an
// overwrite or a numbered suffix: in one namespace the second would replace
// the first when applied, which is almost always a template bug.
Result<Ok> write_manifests(const std::vector<Value>& manifests, const std::string& dir) {
  std::vector<std::string> names;
  for (size_t i = 0; i < manifests.size(); ++i) {
    names.push_back(manifest_file_name(manifests[i]));
    auto first = std::find(names.begin(), names.end() - 1, names.back());
    if (first != names.end() - 1) {
      return make_error("manifests " + std::to_string(first - names.begin() + 1) + " and " + std::to_string(i + 1) +
                        " would both be written to " + (fs::path(dir) / names.back()).string());
    }
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return make_error("cannot create output directory " + dir + ": " + ec.message());
  std::string written;
  for (size_t i = 0; i < manifests.size(); ++i) {
    const fs::path path = fs::path(dir) / names[i];
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << to_yaml(manifests[i]);
    if (!out.flush()) return make_error("cannot write " + path.string());
    written += path.string() + "\n";
  }
  if (!write_stdout(written)) return make_error("cannot write the output");
  return Ok{};
}

int run_render(const RenderArgs& args) {
  if (!args.output_dir.empty() && args.output == "json") {
    print_error("--output-dir writes YAML files; it cannot be combined with -o json");
    return 1;
  }
  std::vector<ValuesFile> files;
  auto values = gather_values(args.values, files);
  if (!values) {
    print_error(values.error().message);
    return 1;
  }

  if (!args.schema.empty()) {
    auto schema = load_schema(args.schema);
    if (!schema) {
      print_error(schema.error().message);
      return 1;
    }
    *values = schema::apply_defaults(*schema, *values);
    const auto violations = schema::validate(*schema, *values);
    if (!violations.empty()) {
      std::string message = "the values do not match the schema " + args.schema + ":";
      for (const auto& v : violations) message += "\n  " + locate_violation(v, *values, files);
      print_error(message);
      return 2;
    }
  }

  auto set = load_templates(args.tpl, args.templates);
  if (!set) {
    print_error(set.error().message);
    return 1;
  }
  std::vector<tera::TemplateError> errors;
  tera::Environment env = build_environment(*set, errors);
  if (!errors.empty()) {
    print_errors(errors);
    return 1;
  }
  auto out = env.render(set->main, *values);
  if (!out) {
    print_errors({out.error()});
    return 1;
  }

  if (args.output == "raw" && args.output_dir.empty()) {
    if (write_stdout(*out)) return 0;
    print_error("cannot write the output");
    return 1;
  }
  auto manifests = read_manifests(*out, set->main);
  if (!manifests) {
    print_error(manifests.error().message);
    return 1;
  }
  if (!args.output_dir.empty()) {
    auto written = write_manifests(*manifests, args.output_dir);
    if (written) return 0;
    print_error(written.error().message);
    return 1;
  }
  const std::string text = args.output == "json" ? manifests_as_json(*manifests) : to_yaml_stream(*manifests);
  if (write_stdout(text)) return 0;
  print_error("cannot write the output");
  return 1;
}

}  // namespace

Verb add_render(CLI::App& app) {
  auto args = std::make_shared<RenderArgs>();
  CLI::App* cmd = app.add_subcommand("render", "Render a Tera template with values");
  cmd->add_option("TEMPLATE", args->tpl, "Template file (or, with --templates, a template name)")
      ->required();
  add_values_options(*cmd, args->values);
  cmd->add_option("-c,--context", args->values.context, "JSON file holding the base context object");
  cmd->add_option("--schema", args->schema, "JSON Schema the values must match (its defaults are applied)");
  cmd->add_option("-o,--output", args->output, "raw: the text as rendered; yaml, json: checked manifests")
      ->check(CLI::IsMember({"raw", "yaml", "json"}));
  cmd->add_option("--output-dir", args->output_dir, "Write each manifest to DIR/<kind>-<name>.yaml");
  cmd->add_option("-t,--templates", args->templates,
                  "Directory whose files are all loaded as templates, named by relative path "
                  "(for include, extends and import)");
  return Verb{cmd, [args] { return run_render(*args); }};
}

}  // namespace sindri::cli
