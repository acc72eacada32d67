#include "cli/run.hpp"

#include <algorithm>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command_tree.hpp"
#include "cli/errors.hpp"
#include "cli/io.hpp"
#include "value/json.hpp"

#ifndef SINDRI_VERSION
#define SINDRI_VERSION "0.0.0"
#endif

namespace sindri::cli {
namespace {

// The subcommands a group lists in its help (one without a group is hidden).
std::vector<const CLI::App*> listed_subcommands(const CLI::App& group) {
  return group.get_subcommands([](const CLI::App* each) { return !each->get_group().empty(); });
}

const CLI::App* subcommand_named(const CLI::App& group, std::string_view name) {
  for (const CLI::App* each : group.get_subcommands([](const CLI::App*) { return true; })) {
    if (each->check_name(std::string(name))) return each;
  }
  return nullptr;
}

std::string names_of(const std::vector<const CLI::App*>& commands) {
  std::string names;
  for (const CLI::App* each : commands) names += (names.empty() ? "" : ", ") + each->get_name();
  return names;
}

// "  NAME    DESCRIPTION" lines, aligned as in CLI11's help.
std::string listing(const std::vector<const CLI::App*>& commands) {
  size_t width = 0;
  for (const CLI::App* each : commands) width = std::max(width, each->get_name().size());
  std::string out;
  for (const CLI::App* each : commands) {
    out += "  " + each->get_name() + std::string(width - each->get_name().size() + 2, ' ') +
           each->get_description() + "\n";
  }
  return out;
}

// Follows the command line's words down the groups (commands that require a
// subcommand) before CLI11 parses it, for what CLI11 would say too little
// about: an unknown command or subcommand (CLI11 would print the help of the
// group, with --help, or say only that an argument was not expected) and a
// group without its subcommand ("A subcommand is required"). Exit 2 for
// either; nothing when the words lead past every group.
std::optional<int> check_groups(const CLI::App& app, int argc, char** argv) {
  const CLI::App* group = &app;
  std::string path = app.get_name();
  for (int i = 1; group->get_require_subcommand_min() > 0; ++i) {
    const bool top = group == &app;
    const std::string kind = top ? "command" : "subcommand";
    if (i == argc) {
      print_error("`" + path + "` needs a " + kind + ", one of:\n" + listing(listed_subcommands(*group)) + "(`" +
                  path + " --help` says more)");
      return 2;
    }
    const std::string_view word = argv[i];
    if (word.starts_with('-')) return std::nullopt;  // options, --help: CLI11's to parse
    const CLI::App* chosen = subcommand_named(*group, word);
    if (chosen == nullptr) {
      print_error("unknown " + kind + " `" + std::string(word) + "`" + (top ? "" : " of `" + path + "`") + " (" +
                  kind + "s: " + names_of(listed_subcommands(*group)) + ")");
      return 2;
    }
    group = chosen;
    path += " " + chosen->get_name();
  }
  return std::nullopt;
}

int run_command_line(CLI::App& app, const std::vector<Verb>& verbs, int argc, char** argv) {
  if (auto refused = check_groups(app, argc, argv)) return *refused;

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
  if (argc == 2 && std::string_view(argv[1]) == kCommandsArgument) {
    return write_stdout(to_json(command_tree(app)) + "\n") ? 0 : 1;
  }
  return run_command_line(app, verbs, argc, argv);
}

}  // namespace sindri::cli
