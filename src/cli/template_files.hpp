#pragma once
// The set of templates a verb works on: one file, or every file under a
// --templates directory plus the one to render.

#include <filesystem>
#include <string>
#include <vector>

#include "cli/io.hpp"
#include "tera/tera.hpp"
#include "value/result.hpp"

namespace sindri::cli {

struct TemplateSet {
  std::vector<TemplateFile> files;
  std::string main;  // the name of the template to render or check
};

// Without a directory: the one file, named by its path as given.
// With a directory: every regular file under it, named by its path relative
// to it (forward slashes). `main` is then the template's name in the set when
// `tpl` is a file inside the directory or a name present in it; otherwise the
// file `tpl` is added under its file name (or, should that name be taken,
// under its path as given).
Result<TemplateSet> load_templates(const std::string& tpl, const std::string& dir);

// Compiles every template of the set into an environment and links it.
// Every problem found is appended to `errors`; the environment is only
// usable when `errors` is empty.
tera::Environment build_environment(const TemplateSet& set, std::vector<tera::TemplateError>& errors);

// What `check` and `lint` report of a set beyond each template's own
// problems: build_environment's, plus the includes that name only absent
// templates (Tera fails the render that reaches one), sorted by template
// name, then position.
std::vector<tera::TemplateError> link_problems(const TemplateSet& set);

// Prints errors to stderr, one `describe()` each.
void print_errors(const std::vector<tera::TemplateError>& errors);

}  // namespace sindri::cli
