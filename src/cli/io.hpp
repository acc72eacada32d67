#pragma once
// Reading the files the `sindri` verbs work on, with errors that name them.

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::cli {

// The whole file as bytes; `-` is standard input (main refuses a second
// `-`). The error reads "cannot read WHAT PATH: REASON", e.g. "cannot read
// template file x.tera: No such file or directory".
Result<std::string> read_file(const std::filesystem::path& path, std::string_view what = "file");

// A template: read_file's, and UTF-8 as Tera requires, else
// "PATH:LINE:COLUMN: invalid UTF-8: byte 0xFF" (the broker would refuse its
// JSON otherwise, with a position in the request instead of the file).
Result<std::string> read_template_file(const std::filesystem::path& path);

// A template context: a JSON file holding an object. Errors name the file,
// and for invalid JSON the line and column:
// "invalid JSON in context file PATH: line L column C: MESSAGE".
Result<Value> read_context(const std::filesystem::path& path);

struct TemplateFile {
  std::string name;             // relative to the root, with forward slashes
  std::filesystem::path path;   // where it was read from
  std::string source;
};

// Every regular file under `root` (recursively, following no symlinked
// directories, leaving out hidden files and directories: `.git`, `.x.swp`),
// named by its path relative to `root`, sorted by name.
Result<std::vector<TemplateFile>> read_template_dir(const std::filesystem::path& root);

// Writes bytes to stdout exactly; false when the write failed.
bool write_stdout(std::string_view bytes);

}  // namespace sindri::cli
