#include "cli/template_files.hpp"

#include <algorithm>
#include <cstdio>
#include <system_error>

namespace sindri::cli {

namespace fs = std::filesystem;

namespace {

// The name of `path` relative to `root` when it lies inside it, else "".
std::string name_inside(const fs::path& path, const fs::path& root) {
  std::error_code ec;
  const fs::path file = fs::weakly_canonical(path, ec);
  if (ec) return {};
  const fs::path base = fs::weakly_canonical(root, ec);
  if (ec) return {};
  const fs::path rel = file.lexically_relative(base);
  if (rel.empty() || rel.is_absolute()) return {};
  const std::string first = rel.begin()->generic_string();
  if (first == ".." || first == ".") return {};
  return rel.generic_string();
}

bool has_name(const std::vector<TemplateFile>& files, const std::string& name) {
  return std::any_of(files.begin(), files.end(),
                     [&](const TemplateFile& f) { return f.name == name; });
}

}  // namespace

Result<TemplateSet> load_templates(const std::string& tpl, const std::string& dir) {
  TemplateSet set;
  if (dir.empty()) {
    SINDRI_TRY(source, read_template_file(tpl));
    set.files.push_back(TemplateFile{tpl, tpl, std::move(source)});
    set.main = tpl;
    return set;
  }

  SINDRI_TRY(files, read_template_dir(dir));
  set.files = std::move(files);

  std::error_code ec;
  const bool is_file = fs::is_regular_file(tpl, ec);
  if (is_file) {
    const std::string inside = name_inside(tpl, dir);
    if (!inside.empty() && has_name(set.files, inside)) {
      set.main = inside;
      return set;
    }
  }
  const std::string as_given = fs::path(tpl).generic_string();
  if (has_name(set.files, as_given)) {
    set.main = as_given;
    return set;
  }

  auto source = read_template_file(tpl);
  if (!source) {
    return make_error(std::move(source).error().message + " (nor is it the name of a template under " +
                      dir + ")");
  }
  std::string name = fs::path(tpl).filename().generic_string();
  if (name.empty() || has_name(set.files, name)) name = as_given;
  set.files.push_back(TemplateFile{name, tpl, std::move(source).value()});
  set.main = name;
  return set;
}

tera::Environment build_environment(const TemplateSet& set, std::vector<tera::TemplateError>& errors) {
  tera::Environment env;
  const size_t before = errors.size();
  for (const TemplateFile& file : set.files) {
    auto added = env.add(file.name, file.source);
    if (!added) errors.push_back(added.error());
  }
  // Linking a set with a template missing would only report that absence.
  if (errors.size() == before) {
    auto built = env.build();
    if (!built) errors.insert(errors.end(), built.error().begin(), built.error().end());
  }
  return env;
}

std::vector<tera::TemplateError> link_problems(const TemplateSet& set) {
  std::vector<tera::TemplateError> errors;
  const tera::Environment env = build_environment(set, errors);
  // An include of a template that did not compile is no problem of its own.
  if (env.names().size() < set.files.size()) return errors;
  const auto includes = env.missing_includes();
  errors.insert(errors.end(), includes.begin(), includes.end());
  std::stable_sort(errors.begin(), errors.end(), tera::sorts_before);
  return errors;
}

void print_errors(const std::vector<tera::TemplateError>& errors) {
  for (const tera::TemplateError& error : errors) {
    const std::string text = error.describe() + "\n";
    std::fwrite(text.data(), 1, text.size(), stderr);
  }
  std::fflush(stderr);
}

}  // namespace sindri::cli
