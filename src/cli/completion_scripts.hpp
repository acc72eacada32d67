#pragma once
// Completion scripts for `sindri` in bash, zsh and fish, written from its
// command tree (command_tree.hpp): at each place in the command line they
// offer the subcommands of the command typed so far, its options after a
// `-`, the values of an option that has a set of them (-o), and file names
// for the other options that take a value and for positional arguments.

#include <string>
#include <string_view>

#include "value/value.hpp"

namespace sindri::cli {

std::string bash_completion(const Value& tree);
std::string zsh_completion(const Value& tree);
std::string fish_completion(const Value& tree);

}  // namespace sindri::cli
