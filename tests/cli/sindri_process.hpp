#pragma once
// A test fixture that runs the built `sindri` binary in a scratch directory
// and captures its exit code, stdout and stderr.

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

extern char** environ;

namespace sindri_test {

namespace fs = std::filesystem;

struct Outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class SindriTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "sindri-cli-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // Writes `text` to `name` under the scratch directory; returns its path.
  fs::path file(const std::string& name, const std::string& text) {
    const fs::path path = dir_ / name;
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  // Standard input is empty, or `input` when given.
  Outcome sindri(const std::vector<std::string>& args, const std::string* input = nullptr) {
    const fs::path out_path = dir_ / ".stdout";
    const fs::path err_path = dir_ / ".stderr";
    const fs::path in_path = input ? file(".stdin", *input) : fs::path("/dev/null");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, in_path.c_str(), O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<std::string> argv_store{SINDRI_BIN};
    argv_store.insert(argv_store.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_store) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    Outcome run;
    const int rc = posix_spawn(&pid, SINDRI_BIN, &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
      ADD_FAILURE() << "cannot start " << SINDRI_BIN;
      return run;
    }
    int status = 0;
    waitpid(pid, &status, 0);
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    run.out = read_all(out_path);
    run.err = read_all(err_path);
    return run;
  }

  // A bare git repository `remote.git` in the scratch directory holding, in
  // one commit, what the directory `work` (relative to it) holds; its path.
  std::string bare_repository(const std::string& work) {
    const std::string from = (dir_ / work).string();
    const std::string remote = (dir_ / "remote.git").string();
    const int status = std::system(("git -C " + from + " init --quiet && git -C " + from + " add -A && git -C " + from +
                                    " -c user.name=T -c user.email=t@example.com commit --quiet -m one && git clone "
                                    "--quiet --bare " + from + " " + remote).c_str());
    EXPECT_EQ(status, 0) << "cannot make a git repository of " << from;
    return remote;
  }

  // What bash offers after typing `line` (the cursor after its last word,
  // or after a space when it ends with one), with the script of
  // `sindri completion bash` loaded, in the scratch directory.
  std::string bash_completes(const std::string& line) {
    const Outcome printed = sindri({"completion", "bash"});
    EXPECT_EQ(printed.exit_code, 0) << printed.err;
    const fs::path script = file("sindri.bash", printed.out);
    const fs::path probe = file("probe.sh", "source " + script.string() + R"(
COMP_LINE=$1
read -ra COMP_WORDS <<< "$COMP_LINE"
[[ $COMP_LINE == *' ' ]] && COMP_WORDS+=('')
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
cd )" + dir_.string() + R"(
_sindri
printf '%s\n' "${COMPREPLY[@]}"
)");
    std::string out;
    FILE* pipe = ::popen(("bash " + probe.string() + " '" + line + "' 2>&1").c_str(), "r");
    if (pipe == nullptr) return out;
    char buffer[4096];
    while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
    ::pclose(pipe);
    return out;
  }

  fs::path dir_;
};

}  // namespace sindri_test
