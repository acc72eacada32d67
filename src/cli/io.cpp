#include "cli/io.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <system_error>

#include "value/file_text.hpp"
#include "value/json.hpp"
#include "value/text_position.hpp"
#include "value/utf8.hpp"

namespace sindri::cli {

namespace fs = std::filesystem;

Result<std::string> read_file(const fs::path& path, std::string_view what) {
  if (path != "-") return read_file_text(path, what);
  std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
  if (std::cin.bad()) return make_error("cannot read " + std::string(what) + " -: read error");
  return text;
}

Result<std::string> read_template_file(const fs::path& path) {
  auto text = read_file(path, "template file");
  if (!text) return text;
  if (const size_t bad = first_invalid_utf8(*text, 0, text->size()); bad != text->size()) {
    const LineColumn at = line_column(*text, bad);
    return make_error(path.string() + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) + ": " +
                      invalid_utf8_message((*text)[bad]));
  }
  return text;
}

Result<Value> read_context(const fs::path& path) {
  SINDRI_TRY(text, read_file(path, "context file"));
  auto parsed = parse_json(text);
  if (!parsed) {
    return make_error("invalid JSON in context file " + path.string() + ": " +
                      parsed.error().describe());
  }
  if (!parsed->is_object()) {
    return make_error("context file " + path.string() + " must hold a JSON object, not " +
                      (parsed->is_array() ? std::string("an array")
                                          : std::string("a value of kind ") + parsed->kind_name()));
  }
  return std::move(parsed).value();
}

Result<std::vector<TemplateFile>> read_template_dir(const fs::path& root) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    return make_error("cannot read template directory " + root.string() + ": " +
                      (fs::exists(root, ec) ? "not a directory" : "No such file or directory"));
  }
  std::vector<TemplateFile> files;
  fs::recursive_directory_iterator it(root, fs::directory_options::none, ec);
  if (ec) return make_error("cannot read template directory " + root.string() + ": " + ec.message());
  for (const fs::recursive_directory_iterator end; it != end; it.increment(ec)) {
    if (ec) break;
    // Hidden entries are a tool's, not templates: .git, an editor's .swp.
    if (it->path().filename().string().starts_with('.')) {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec)) continue;
    TemplateFile file;
    file.path = it->path();
    file.name = file.path.lexically_relative(root).generic_string();
    SINDRI_TRY(source, read_template_file(file.path));
    file.source = std::move(source);
    files.push_back(std::move(file));
  }
  if (ec) return make_error("cannot read template directory " + root.string() + ": " + ec.message());
  std::sort(files.begin(), files.end(),
            [](const TemplateFile& a, const TemplateFile& b) { return a.name < b.name; });
  return files;
}

bool write_stdout(std::string_view bytes) {
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size()) return false;
  return std::fflush(stdout) == 0;
}

}  // namespace sindri::cli
