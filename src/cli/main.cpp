// The `sindri` command: a thin main over the libraries. Each verb lives in its
// own file and registers itself here.

#include <algorithm>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/templates.hpp"
#include "cli/verbs.hpp"

#ifndef SINDRI_VERSION
#define SINDRI_VERSION "0.0.0"
#endif

int main(int argc, char** argv) {
  CLI::App app{"sindri: templated Kubernetes deployments", "sindri"};
  app.set_version_flag("--version", std::string("sindri ") + SINDRI_VERSION);
  app.require_subcommand(1);

  std::vector<sindri::cli::Verb> verbs;
  verbs.push_back(sindri::cli::add_render(app));
  verbs.push_back(sindri::cli::add_check(app));
  verbs.push_back(sindri::cli::add_validate(app));
  verbs.push_back(sindri::cli::add_lint(app));
  verbs.push_back(sindri::cli::add_patch(app));
  verbs.push_back(sindri::cli::add_bundle(app));
  verbs.push_back(sindri::cli::add_rbg(app));
  verbs.push_back(sindri::cli::add_serve(app));
  verbs.push_back(sindri::cli::add_stack(app));
  verbs.push_back(sindri::cli::add_apply(app));
  verbs.push_back(sindri::cli::add_agent(app));
  verbs.push_back(sindri::cli::add_template(app));
  verbs.push_back(sindri::cli::add_instantiate(app));
  verbs.push_back(sindri::cli::add_reconstruct(app));

  // CLI11 would say only that a command is required.
  if (argc > 1 && argv[1][0] != '-' &&
      std::none_of(verbs.begin(), verbs.end(), [&](const sindri::cli::Verb& verb) {
        return verb.command->check_name(argv[1]);
      })) {
    std::string known;
    for (const auto& verb : verbs) known += (known.empty() ? "" : ", ") + verb.command->get_name();
    sindri::cli::print_error(std::string("unknown command `") + argv[1] + "` (commands: " + known + ")");
    return 2;
  }

  // Standard input holds one file: a second `-` would read what is left of
  // it (nothing), and fail on whichever file came second.
  if (std::count_if(argv + 1, argv + argc, [](const char* arg) { return std::string_view(arg) == "-"; }) > 1) {
    sindri::cli::print_error("standard input (-) can stand for one file only");
    return 2;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version exit 0; a usage error exits 2.
    return app.exit(e) == 0 ? 0 : 2;
  }

  try {
    for (const auto& verb : verbs) {
      if (verb.command->parsed()) return verb.run();
    }
  } catch (const std::exception& e) {
    sindri::cli::print_error(std::string("internal error: ") + e.what());
    return 1;
  }
  return 2;
}
