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
// -o json with --output-dir is a usage error (exit 2). Any other error exits 1.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/errors.hpp"
#include "cli/io.hpp"
#include "cli/manifest_output.hpp"
#include "cli/parameters.hpp"
#include "cli/template_files.hpp"
#include "cli/verbs.hpp"
#include "render/pipeline.hpp"
#include "tera/tera.hpp"

namespace sindri::cli {

namespace {

struct RenderArgs {
  std::string tpl;
  std::string templates;
  ValuesSources values;
  std::string schema;
  std::string output = "raw";
  std::string output_dir;
};

int run_render(const RenderArgs& args) {
  if (auto combined = check_rendered_output(args.output, args.output_dir); !combined) {
    print_error(combined.error().message);
    return 2;
  }
  std::vector<ValuesFile> files;
  auto values = gather_values(args.values, files);
  if (!values) {
    print_error(values.error().message);
    return 1;
  }

  std::optional<schema::CompiledSchema> schema;
  if (!args.schema.empty()) {
    auto loaded = load_schema(args.schema);
    if (!loaded) {
      print_error(loaded.error().message);
      return 1;
    }
    schema = std::move(loaded).value();
  }
  auto context = render::context_from(*values, schema ? &*schema : nullptr, 0);
  if (!context) {
    std::string message = "the values do not match the schema " + args.schema + ":";
    for (const auto& v : context.error().violations) message += "\n  " + locate_violation(v, *values, files);
    print_error(message);
    return 2;
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
  auto out = env.render(set->main, *context);
  if (!out) {
    print_errors({out.error()});
    return 1;
  }

  if (auto printed = print_rendered(*out, set->main, args.output, args.output_dir); !printed) {
    print_error(printed.error().message);
    return 1;
  }
  return 0;
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
  add_rendered_output_options(*cmd, args->output, args->output_dir);
  cmd->add_option("-t,--templates", args->templates,
                  "Directory whose files are all loaded as templates, named by relative path "
                  "(for include, extends and import)");
  return Verb{cmd, [args] { return run_render(*args); }};
}

}  // namespace sindri::cli
