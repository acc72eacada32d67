// sindri-client: the verbs of `sindri` that call a broker, which `sindri`
// runs in its place (programs.hpp).

#include "cli/repo_publish_client.hpp"
#include "cli/run.hpp"

int main(int argc, char** argv) {
  using namespace sindri::cli;
  return run_program(argc, argv, [](CLI::App& app, std::vector<Verb>& verbs) {
    verbs.push_back(add_generator(app));
    verbs.push_back(add_stack(app));
    verbs.push_back(add_apply(app));
    verbs.push_back(add_diff(app));
    verbs.push_back(add_agent(app));
    verbs.push_back(add_template(app));
    verbs.push_back(add_instantiate(app));
    verbs.push_back(add_reconstruct(app));
    verbs.push_back(add_client_repo(app));
  });
}
