#pragma once
// What every program of the `sindri` command does with its command line:
// names an unknown command or subcommand, lists the subcommands of a group
// called without one, refuses `-` twice, parses, and runs the verb that was
// named, its exit code the process's. `PROGRAM __commands` prints the
// program's command tree as JSON instead (command_tree.hpp).

#include <functional>
#include <vector>

#include "cli/verbs.hpp"

namespace sindri::cli {

using AddVerbs = std::function<void(CLI::App& app, std::vector<Verb>& verbs)>;

// A program of the `sindri` command (it calls itself sindri, with its
// version) whose verbs `add_verbs` adds.
int run_program(int argc, char** argv, const AddVerbs& add_verbs);

}  // namespace sindri::cli
