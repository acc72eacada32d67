// sindri render TEMPLATE [--context FILE.json] [--templates DIR]
//
// Prints the rendered text exactly as the template produces it (no newline
// added) and exits 0; on any error prints it to stderr and exits 1.

#include <memory>
#include <string>

#include "cli/io.hpp"
#include "cli/templates.hpp"
#include "cli/verbs.hpp"
#include "tera/tera.hpp"

namespace sindri::cli {

namespace {

struct RenderArgs {
  std::string tpl;
  std::string context;
  std::string templates;
};

int run_render(const RenderArgs& args) {
  Value context{Object{}};
  if (!args.context.empty()) {
    auto loaded = read_context(args.context);
    if (!loaded) {
      print_error(loaded.error().message);
      return 1;
    }
    context = std::move(loaded).value();
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

  auto out = env.render(set->main, context);
  if (!out) {
    print_errors({out.error()});
    return 1;
  }
  if (!write_stdout(*out)) {
    print_error("cannot write the output");
    return 1;
  }
  return 0;
}

}  // namespace

Verb add_render(CLI::App& app) {
  auto args = std::make_shared<RenderArgs>();
  CLI::App* cmd = app.add_subcommand("render", "Render a Tera template to stdout");
  cmd->add_option("TEMPLATE", args->tpl, "Template file (or, with --templates, a template name)")
      ->required();
  cmd->add_option("-c,--context", args->context, "JSON file holding the context object");
  cmd->add_option("-t,--templates", args->templates,
                  "Directory whose files are all loaded as templates, named by relative path "
                  "(for include, extends and import)");
  return Verb{cmd, [args] { return run_render(*args); }};
}

}  // namespace sindri::cli
