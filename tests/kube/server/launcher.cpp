// Runs a command against a fresh Kubernetes API test server:
//   sindri_kube_test_server_launcher [--crd-discovery-delay S]
//       [--namespace-termination-delay S] -- COMMAND [ARGS...]
// The command sees KUBECONFIG (client certificate, context "test"),
// SINDRI_TEST_TOKEN_KUBECONFIG (bearer token, context "test-token") and
// SINDRI_TEST_KUBE_URL; its exit status is the launcher's. For shell tests
// that drive kubectl.

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "kube/server/kube_test_server.hpp"

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: sindri_kube_test_server_launcher [--crd-discovery-delay S] "
               "[--namespace-termination-delay S] -- COMMAND [ARGS...]\n");
  return 2;
}

int exit_status(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }

}  // namespace

int main(int argc, char** argv) {
  sindri_test::KubeTestServer::Options options;
  int index = 1;
  for (; index < argc; ++index) {
    const std::string_view arg = argv[index];
    if (arg == "--") break;
    if (index + 1 >= argc) return usage();
    char* end = nullptr;
    const double seconds = std::strtod(argv[index + 1], &end);
    if (end == argv[index + 1] || *end != '\0' || seconds < 0) return usage();
    if (arg == "--crd-discovery-delay") {
      options.crd_discovery_delay = seconds;
    } else if (arg == "--namespace-termination-delay") {
      options.namespace_termination_delay = seconds;
    } else {
      return usage();
    }
    ++index;
  }
  if (index + 1 >= argc) return usage();
  try {
    sindri_test::KubeTestServer server(options);
    const pid_t pid = fork();
    if (pid < 0) {
      std::perror("fork");
      return 1;
    }
    if (pid == 0) {
      setenv("KUBECONFIG", server.kubeconfig_path().c_str(), 1);
      setenv("SINDRI_TEST_TOKEN_KUBECONFIG", server.token_kubeconfig_path().c_str(), 1);
      setenv("SINDRI_TEST_KUBE_URL", server.url().c_str(), 1);
      execvp(argv[index + 1], argv + index + 1);
      std::perror(argv[index + 1]);
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    const int result = exit_status(status);
    if (result != 0) std::fprintf(stderr, "the server's log:\n%s\n", server.log().c_str());
    return result;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
}
