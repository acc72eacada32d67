#pragma once
// Running a program (a hook, git) with bytes on its standard input, its
// output captured, and a time limit.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "value/result.hpp"

namespace sindri::repo {

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
};

// What a program printed, without the newlines and spaces that end it.
std::string trimmed_output(std::string_view text);

// An error only when the program cannot be started; its failure is in the
// outcome.
Result<ProcessOutcome> run_process(const ProcessRequest& request);

}  // namespace sindri::repo
