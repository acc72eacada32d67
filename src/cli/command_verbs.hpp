#pragma once
// The verbs about the `sindri` command itself, which the offline program
// runs (main.cpp): help, version and completion.

#include "cli/verbs.hpp"

namespace sindri::cli {

Verb add_help(CLI::App& app);        // help.cpp
Verb add_version(CLI::App& app);     // version.cpp
Verb add_completion(CLI::App& app);  // completion.cpp

}  // namespace sindri::cli
