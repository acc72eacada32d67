// One `sindri` command, three programs (src/cli/programs.hpp): the one that
// renders loads no network, database or cryptography library, and hands the
// other verbs to the programs beside it.

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "cli/sindri_process.hpp"

namespace sindri_test {
namespace {

constexpr const char* kLoadedOnlyByOtherPrograms[] = {"libpq", "libsqlite3", "libcurl", "libssl", "libcrypto",
                                                      "libgnutls"};

std::string command_output(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  ::pclose(pipe);
  return out;
}

TEST(Programs, TheOfflineProgramLinksNoNetworkDatabaseOrCryptographyLibrary) {
  const std::string libraries = command_output(std::string("ldd ") + SINDRI_BIN);
  ASSERT_NE(libraries.find("libfyaml"), std::string::npos) << libraries;
  for (const char* library : kLoadedOnlyByOtherPrograms) {
    EXPECT_EQ(libraries.find(library), std::string::npos) << library << " in\n" << libraries;
  }
}

// The process is held reading its template from standard input while its
// maps are read.
TEST(Programs, ARenderProcessMapsNoneOfThem) {
  int input[2];
  ASSERT_EQ(::pipe(input), 0);
  const std::string output_path = (fs::temp_directory_path() / ("sindri-maps-" + std::to_string(::getpid()))).string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, input[0], 0);
  posix_spawn_file_actions_addclose(&actions, input[1]);
  posix_spawn_file_actions_addopen(&actions, 1, output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::string program = SINDRI_BIN, verb = "render", from_stdin = "-";
  char* argv[] = {program.data(), verb.data(), from_stdin.data(), nullptr};
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, SINDRI_BIN, &actions, nullptr, argv, environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  ::close(input[0]);

  // Every library the program needs is mapped before main runs; the C++
  // library is among them.
  const fs::path maps_path = "/proc/" + std::to_string(pid) + "/maps";
  std::string maps;
  for (int attempt = 0; attempt < 500 && maps.find("libstdc++") == std::string::npos; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    maps = read_all(maps_path);
  }
  ASSERT_NE(maps.find("libfyaml"), std::string::npos) << maps;
  for (const char* library : kLoadedOnlyByOtherPrograms) {
    EXPECT_EQ(maps.find(library), std::string::npos) << library << " mapped:\n" << maps;
  }

  const std::string tpl = "hello {{ 1 + 1 }}";
  ASSERT_EQ(::write(input[1], tpl.data(), tpl.size()), static_cast<ssize_t>(tpl.size()));
  ::close(input[1]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(read_all(output_path), "hello 2");
  fs::remove(output_path);
}

class ProgramsCli : public SindriTest {};

TEST_F(ProgramsCli, HelpListsTheVerbsOfEveryProgram) {
  Outcome help = sindri({"--help"});
  EXPECT_EQ(help.exit_code, 0) << help.err;
  for (const char* verb : {"render", "check", "validate", "lint", "patch", "bundle", "rbg", "serve", "stack", "apply",
                           "agent", "template", "instantiate", "reconstruct"}) {
    EXPECT_NE(help.out.find(std::string("  ") + verb + " "), std::string::npos) << verb << " in\n" << help.out;
  }
}

TEST_F(ProgramsCli, AVerbOfAnotherProgramGetsItsOwnHelpAndErrors) {
  Outcome serve = sindri({"serve", "--help"});
  EXPECT_EQ(serve.exit_code, 0) << serve.err;
  EXPECT_NE(serve.out.find("--database"), std::string::npos) << serve.out;
  Outcome stack = sindri({"stack", "list", "--broker", "ftp://x"});
  EXPECT_EQ(stack.exit_code, 2);
  EXPECT_EQ(stack.err.rfind("--broker: `ftp://x` is not an http:// or https:// URL", 0), 0u) << stack.err;
}

TEST_F(ProgramsCli, AMissingProgramIsNamed) {
  const fs::path alone = dir_ / "alone" / "sindri";
  fs::create_directories(alone.parent_path());
  fs::copy_file(SINDRI_BIN, alone);
  const std::string out = command_output(alone.string() + " stack list 2>&1; echo \"exit $?\"");
  EXPECT_NE(out.find("cannot run " + (alone.parent_path() / "sindri-client").string() + " (the `stack` verb): "),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("exit 1"), std::string::npos) << out;
  // The offline verbs need nothing beside it.
  const std::string rendered = command_output("echo 'x{{ 2 * 3 }}' | " + alone.string() + " render -");
  EXPECT_EQ(rendered, "x6\n");
}

}  // namespace
}  // namespace sindri_test
