// The `sindri` command: a thin main over the libraries. It runs the offline
// verbs itself and hands the others to their programs (programs.hpp).

#include "cli/command_verbs.hpp"
#include "cli/programs.hpp"
#include "cli/run.hpp"

int main(int argc, char** argv) {
  using namespace sindri::cli;
  if (auto handed_over = run_other_program_if_named(argc, argv)) return *handed_over;
  return run_program(argc, argv, [](CLI::App& app, std::vector<Verb>& verbs) {
    verbs.push_back(add_render(app));
    verbs.push_back(add_check(app));
    verbs.push_back(add_validate(app));
    verbs.push_back(add_lint(app));
    verbs.push_back(add_patch(app));
    verbs.push_back(add_bundle(app));
    verbs.push_back(add_rbg(app));
    verbs.push_back(add_repo(app));
    for (const ProgramVerb& verb : kOtherProgramVerbs) verbs.push_back(add_other_program_verb(app, verb));
    verbs.push_back(add_help(app));
    verbs.push_back(add_version(app));
    verbs.push_back(add_completion(app));
  });
}
