// Prints docs/settings.md from the code: to the file named by the one
// argument, or to standard output.

#include <fstream>
#include <iostream>

#include "docs/settings_markdown.hpp"

int main(int argc, char** argv) {
  if (argc > 2) {
    std::cerr << "usage: " << argv[0] << " [OUTPUT.md]\n";
    return 2;
  }
  const std::string markdown = sindri::docs::settings_markdown();
  if (argc == 1) {
    std::cout << markdown;
    return 0;
  }
  std::ofstream out(argv[1], std::ios::binary);
  out << markdown;
  if (!out) {
    std::cerr << "cannot write " << argv[1] << "\n";
    return 1;
  }
  return 0;
}
