#pragma once
// The verbs of the `sindri` command, one file each. A verb adds its
// subcommand to the app and hands back what runs it once the command line is
// parsed; the returned function gives the process exit code.

#include <functional>

#include <CLI/CLI.hpp>

namespace sindri::cli {

struct Verb {
  CLI::App* command = nullptr;
  std::function<int()> run;
};

Verb add_render(CLI::App& app);  // render.cpp
Verb add_check(CLI::App& app);   // check.cpp
Verb add_validate(CLI::App& app);  // validate.cpp
Verb add_lint(CLI::App& app);      // lint.cpp
Verb add_patch(CLI::App& app);     // patch.cpp
Verb add_bundle(CLI::App& app);    // bundle.cpp
Verb add_rbg(CLI::App& app);       // rbg.cpp
Verb add_serve(CLI::App& app);     // serve.cpp
Verb add_stack(CLI::App& app);     // stack.cpp
Verb add_apply(CLI::App& app);     // apply.cpp
Verb add_agent(CLI::App& app);     // agent.cpp
Verb add_template(CLI::App& app);     // template.cpp
Verb add_instantiate(CLI::App& app);  // instantiate.cpp
Verb add_reconstruct(CLI::App& app);  // reconstruct.cpp
Verb add_generator(CLI::App& app);    // generator.cpp
Verb add_diff(CLI::App& app);         // diff.cpp
Verb add_repo(CLI::App& app);         // repo.cpp

}  // namespace sindri::cli
