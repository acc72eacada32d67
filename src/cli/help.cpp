// sindri help [COMMAND [SUBCOMMAND]...]
//
// The help `sindri COMMAND SUBCOMMAND --help` prints, by running exactly
// that: the verbs of the other programs get their own program's help, and an
// unknown command or subcommand is named as on any command line (exit 2).
// `sindri help` alone is `sindri --help`.

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cli/command_verbs.hpp"
#include "cli/errors.hpp"

namespace sindri::cli {
namespace {

int run_help(std::vector<std::string> words) {
  words.insert(words.begin(), "sindri");
  words.push_back("--help");
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  ::execv("/proc/self/exe", argv.data());
  print_error(std::string("cannot run sindri again for its help: ") + std::strerror(errno));
  return 1;
}

}  // namespace

Verb add_help(CLI::App& app) {
  auto words = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand("help", "Show the help of sindri, or of a verb and its subcommands");
  cmd->add_option("COMMAND", *words, "A verb and its subcommands, as they are typed (`sindri help stack create`)");
  return Verb{cmd, [words] { return run_help(*words); }};
}

}  // namespace sindri::cli
