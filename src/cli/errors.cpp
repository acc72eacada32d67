#include "cli/errors.hpp"

#include <cstdio>
#include <string>

namespace sindri::cli {

namespace {

void print_line(std::string_view prefix, std::string_view message) {
  std::string text;
  text.reserve(prefix.size() + message.size() + 1);
  text.append(prefix).append(message).push_back('\n');
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

}  // namespace

void print_error(std::string_view message) { print_line("error: ", message); }

void print_warning(std::string_view message) { print_line("warning: ", message); }

void print_note(std::string_view message) { print_line("note: ", message); }

int fail(std::string_view message, int exit_code) {
  print_error(message);
  return exit_code;
}

}  // namespace sindri::cli
