#pragma once
// Running a program (a template hook, git, a kubeconfig credential plugin)
// with bytes on its standard input, its output captured, and a time limit.
// It runs in a process group of its own, so that a timeout also ends what it
// started (a shell's `sleep`), with default signal handling and nothing
// blocked whatever this process's are (the agent blocks its stop signals).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "value/result.hpp"

namespace sindri {

struct ProcessOutcome {
  int exit_code = 0;     // 128 + the signal for a program killed by one
  bool timed_out = false;
  std::string out;
  std::string err;
};

struct ProcessRequest {
  std::vector<std::string> argv;  // argv[0] is looked up on PATH when it has no slash
  std::string input;
  std::filesystem::path directory;             // where it runs; empty: here
  std::optional<double> timeout_seconds;       // killed (with its children) after this long
  std::vector<std::string> extra_environment;  // "NAME=VALUE", on top of ours
  std::vector<std::string> withheld_environment;  // names of our variables it does not get
  size_t max_output_bytes = 0;  // of each of stdout and stderr, the rest read and dropped; 0: no limit
};

// A time limit as messages show it: "10", "0.25".
std::string seconds_text(double seconds);

// What a program printed, without the newlines and spaces that end it.
std::string trimmed_output(std::string_view text);

// An error only when the program cannot be started; its failure is in the
// outcome.
Result<ProcessOutcome> run_process(const ProcessRequest& request);

}  // namespace sindri
