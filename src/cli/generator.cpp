// Placeholder while the verb is being built (issue 29).
#include <string>

#include "cli/errors.hpp"
#include "cli/programs.hpp"
#include "cli/verbs.hpp"

namespace sindri::cli {

Verb add_generator(CLI::App& app) {
  const auto& verb = kGeneratorVerb;
  CLI::App* cmd = app.add_subcommand(std::string(verb.name), std::string(verb.description));
  return Verb{cmd, [] { return fail("not built yet", 2); }};
}

}  // namespace sindri::cli
