// Renders many case folders in one process, for the differential test
// against Tera (run.py): starting a process per case would cost more than
// the render. Reads case folders from stdin, one a line, and writes into
// each `sindri.status` (0 rendered, 2 parse error, 3 render error: tera-ref's
// exit codes) and `sindri.out` (the output or the error message).

#include <fstream>
#include <iostream>
#include <string>

#include "../case_runner.hpp"

namespace {

int status_of(const sindri::tera_cases::Outcome& outcome) {
  if (outcome.error_kind.empty()) return 0;
  return outcome.error_kind == "parse_error" ? 2 : 3;
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

}  // namespace

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    std::filesystem::path dir(line);
    auto outcome = sindri::tera_cases::run_case(dir);
    write_file(dir / "sindri.status", std::to_string(status_of(outcome)) + "\n");
    write_file(dir / "sindri.out", outcome.error_kind.empty() ? outcome.output : outcome.message);
  }
  return 0;
}
