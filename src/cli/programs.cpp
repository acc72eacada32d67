#include "cli/programs.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include "cli/errors.hpp"

namespace sindri::cli {
namespace {

// The verb of another program the command line starts with: argv[1], or
// argv[1] argv[2] for a subcommand of a group; its words for messages.
const ProgramVerb* verb_named(int argc, char** argv, std::string& words) {
  for (const ProgramVerb& verb : kOtherProgramVerbs) {
    if (verb.name == argv[1]) {
      words = verb.name;
      return &verb;
    }
  }
  if (argc < 3) return nullptr;
  for (const ProgramSubcommand& sub : kOtherProgramSubcommands) {
    if (sub.group == argv[1] && sub.subcommand.name == argv[2]) {
      words = std::string(sub.group) + " " + std::string(sub.subcommand.name);
      return &sub.subcommand;
    }
  }
  return nullptr;
}

}  // namespace

Verb add_other_program_verb(CLI::App& app, const ProgramVerb& verb) {
  CLI::App* command = app.add_subcommand(std::string(verb.name), std::string(verb.description));
  // Its program parses the arguments; this one only lists the verb.
  command->prefix_command();
  command->allow_extras();
  return Verb{command, [] { return 2; }};
}

std::optional<int> run_other_program_if_named(int argc, char** argv) {
  if (argc < 2) return std::nullopt;
  std::string words;
  const ProgramVerb* verb = verb_named(argc, argv, words);
  if (verb == nullptr) return std::nullopt;
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) {
    print_error("cannot find the sindri program itself to run " + std::string(verb->program) + ": " + error.message());
    return 1;
  }
  const std::string program = (self.parent_path() / verb->program).string();
  argv[0] = const_cast<char*>(program.c_str());
  ::execv(program.c_str(), argv);
  print_error("cannot run " + program + " (the `" + words + "` verb): " + std::strerror(errno));
  return 1;
}

}  // namespace sindri::cli
