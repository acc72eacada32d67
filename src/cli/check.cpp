// sindri check TEMPLATE [--templates DIR]
//
// Checks syntax only, renders nothing: every problem goes to stderr and the
// exit code is 1 if there was any; nothing is printed and the exit code is 0
// otherwise. With --templates every template of the directory is checked and
// the set is linked (missing parents, circular extends, absent imports, and
// includes of absent templates without `ignore missing`).

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cli/errors.hpp"
#include "cli/io.hpp"
#include "cli/template_files.hpp"
#include "cli/verbs.hpp"
#include "tera/tera.hpp"

namespace sindri::cli {

namespace {

struct CheckArgs {
  std::string tpl;
  std::string templates;
};

int run_check(const CheckArgs& args) {
  auto set = load_templates(args.tpl, args.templates);
  if (!set) {
    print_error(set.error().message);
    return 1;
  }

  std::vector<tera::TemplateError> errors;
  for (const TemplateFile& file : set->files) {
    auto found = tera::check(file.name, file.source);
    errors.insert(errors.end(), found.begin(), found.end());
  }
  if (!args.templates.empty()) {
    // Parse errors come back from the environment too: report each once.
    std::set<std::string> seen;
    for (const auto& e : errors) seen.insert(e.describe());
    for (auto& e : link_problems(*set)) {
      if (seen.insert(e.describe()).second) errors.push_back(std::move(e));
    }
  }
  if (errors.empty()) return 0;
  print_errors(errors);
  return 1;
}

}  // namespace

Verb add_check(CLI::App& app) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* cmd = app.add_subcommand("check", "Check a template's syntax without rendering it");
  cmd->add_option("TEMPLATE", args->tpl, "Template file (or, with --templates, a template name)")
      ->required();
  cmd->add_option("-t,--templates", args->templates,
                  "Directory whose files are all loaded as templates and checked together");
  return Verb{cmd, [args] { return run_check(*args); }};
}

}  // namespace sindri::cli
