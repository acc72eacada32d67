#include "cli/programs.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include "cli/errors.hpp"

namespace sindri::cli {
namespace {

const ProgramVerb* verb_named(std::string_view name) {
  for (const ProgramVerb& verb : kOtherProgramVerbs) {
    if (verb.name == name) return &verb;
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
  const ProgramVerb* verb = verb_named(argv[1]);
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
  print_error("cannot run " + program + " (the `" + std::string(verb->name) + "` verb): " + std::strerror(errno));
  return 1;
}

}  // namespace sindri::cli
