#include "cli/run.hpp"

#include <algorithm>
#include <exception>
#include <string>
#include <string_view>

#include "cli/errors.hpp"

#ifndef SINDRI_VERSION
#define SINDRI_VERSION "0.0.0"
#endif

namespace sindri::cli {
namespace {

int run_command_line(CLI::App& app, const std::vector<Verb>& verbs, int argc, char** argv) {
  // CLI11 would say only that a command is required.
  if (argc > 1 && argv[1][0] != '-' &&
      std::none_of(verbs.begin(), verbs.end(), [&](const Verb& verb) { return verb.command->check_name(argv[1]); })) {
    std::string known;
    for (const auto& verb : verbs) known += (known.empty() ? "" : ", ") + verb.command->get_name();
    print_error(std::string("unknown command `") + argv[1] + "` (commands: " + known + ")");
    return 2;
  }

  // Standard input holds one file: a second `-` would read what is left of
  // it (nothing), and fail on whichever file came second.
  if (std::count_if(argv + 1, argv + argc, [](const char* arg) { return std::string_view(arg) == "-"; }) > 1) {
    print_error("standard input (-) can stand for one file only");
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
    print_error(std::string("internal error: ") + e.what());
    return 1;
  }
  return 2;
}

}  // namespace

int run_program(int argc, char** argv, const AddVerbs& add_verbs) {
  CLI::App app{"sindri: templated Kubernetes deployments", "sindri"};
  app.set_version_flag("--version", std::string("sindri ") + SINDRI_VERSION);
  app.require_subcommand(1);
  std::vector<Verb> verbs;
  add_verbs(app, verbs);
  return run_command_line(app, verbs, argc, argv);
}

}  // namespace sindri::cli
