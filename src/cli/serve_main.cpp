// sindri-serve: `sindri serve`, the broker, which `sindri` runs in its place
// (programs.hpp).

#include "cli/run.hpp"

int main(int argc, char** argv) {
  using namespace sindri::cli;
  return run_program(argc, argv, [](CLI::App& app, std::vector<Verb>& verbs) { verbs.push_back(add_serve(app)); });
}
