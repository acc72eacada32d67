#pragma once
// The `repo` group as sindri-client knows it: `publish` alone, the one
// subcommand of `sindri repo` that calls a broker (programs.hpp).

#include "cli/verbs.hpp"

namespace sindri::cli {

Verb add_client_repo(CLI::App& app);  // repo_publish_client.cpp

}  // namespace sindri::cli
