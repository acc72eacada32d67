#pragma once
// The command tree a program of `sindri` builds with CLI11, as a value:
// what `PROGRAM __commands` prints (run.cpp), so that `sindri completion`
// can describe the verbs of the programs it does not link.
//
//   {"name": "stack", "description": "...",
//    "options": [{"names": ["-o", "--output"], "description": "...",
//                 "takes_value": true, "choices": ["table", "wide", ...]}],
//    "positionals": true, "subcommands": [...]}

#include <CLI/CLI.hpp>

#include "value/value.hpp"

namespace sindri::cli {

// The hidden argument that makes a program print its tree as JSON.
inline constexpr const char* kCommandsArgument = "__commands";

// `command` and every subcommand it lists in its help, recursively.
Value command_tree(const CLI::App& command);

}  // namespace sindri::cli
