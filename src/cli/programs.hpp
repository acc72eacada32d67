#pragma once
// One `sindri` command, three programs, so that a process loads only the
// libraries its verb needs: `sindri` runs the offline verbs itself (no
// network, database or cryptography library is linked into it), and hands
// the others, with their whole command line, to `sindri-client` (the verbs
// that call a broker: HTTP and TLS) or `sindri-serve` (the broker: HTTP, TLS
// and the databases), installed beside it.

#include <optional>
#include <string_view>

#include "cli/verbs.hpp"

namespace sindri::cli {

struct ProgramVerb {
  std::string_view name;
  std::string_view description;
  std::string_view program;
};

inline constexpr ProgramVerb kServeVerb{"serve", "Run the broker (the Brokkr v1 REST API)", "sindri-serve"};
inline constexpr ProgramVerb kStackVerb{
    "stack", "Create, list, show, label and delete stacks on a broker; show their deployment objects", "sindri-client"};
inline constexpr ProgramVerb kApplyVerb{"apply", "Create a deployment object in a stack from manifests",
                                        "sindri-client"};
inline constexpr ProgramVerb kAgentVerb{"agent",
                                        "Register, list, show, label and delete the agents of a broker; show their "
                                        "target state and events; run an agent",
                                        "sindri-client"};
inline constexpr ProgramVerb kTemplateVerb{
    "template", "Create, list, show, change, label and render templates on a broker", "sindri-client"};
inline constexpr ProgramVerb kInstantiateVerb{
    "instantiate", "Create a deployment object in a stack from a broker's template", "sindri-client"};
inline constexpr ProgramVerb kReconstructVerb{
    "reconstruct", "Render deployment objects again from their provenance and compare them with what is stored",
    "sindri-client"};

inline constexpr ProgramVerb kGeneratorVerb{
    "generator", "Create, list, show and delete generators (the identities that deploy) and rotate their PAKs",
    "sindri-client"};
inline constexpr ProgramVerb kDiffVerb{
    "diff", "Compare manifests with a stack's newest deployment object (exit 0 same, 1 different, 2 error)",
    "sindri-client"};

// In the order `sindri --help` lists them, after the offline verbs.
inline constexpr ProgramVerb kOtherProgramVerbs[] = {kServeVerb,       kGeneratorVerb, kStackVerb,
                                                     kApplyVerb,       kDiffVerb,      kAgentVerb,
                                                     kTemplateVerb,    kInstantiateVerb, kReconstructVerb};

// A subcommand of one of `sindri`'s own groups that another program runs:
// `sindri repo publish` calls a broker. That program knows the group with
// this subcommand alone.
struct ProgramSubcommand {
  std::string_view group;
  ProgramVerb subcommand;
};

inline constexpr ProgramSubcommand kRepoPublishSubcommand{
    "repo",
    {"publish", "Publish kubernetes templates to a broker as broker templates (a new version only when changed)",
     "sindri-client"}};

inline constexpr ProgramSubcommand kOtherProgramSubcommands[] = {kRepoPublishSubcommand};

// The verb (or subcommand of a group) as `sindri` shows it: its name and
// description, any arguments.
Verb add_other_program_verb(CLI::App& app, const ProgramVerb& verb);

// When argv[1] names a verb of another program, or argv[1] and argv[2] one
// of its subcommands of a group, runs that program in this process's place
// with the same arguments, and returns only if it cannot (the exit code, 1,
// after saying why). Nothing when the command line names no such verb.
std::optional<int> run_other_program_if_named(int argc, char** argv);

}  // namespace sindri::cli
