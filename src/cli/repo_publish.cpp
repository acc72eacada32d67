// sindri repo publish, as the offline `sindri` knows it: listed in `sindri
// repo --help` and handed, whole command line, to sindri-client, which calls
// the broker (repo_publish_client.cpp).

#include "cli/programs.hpp"
#include "cli/repo_common.hpp"

namespace sindri::cli {

Verb add_repo_publish(CLI::App& repo) { return add_other_program_verb(repo, kRepoPublishSubcommand.subcommand); }

}  // namespace sindri::cli
