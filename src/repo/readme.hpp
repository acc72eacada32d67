#pragma once
// A template's README.md, generated from its template.json and schema so that
// the documentation a template repository shows never drifts from the code.

#include <filesystem>
#include <string>
#include <string_view>

#include "repo/sync.hpp"
#include "repo/template.hpp"

namespace sindri::repo {

inline constexpr std::string_view kReadmeFileName = "README.md";

// Markdown, the same bytes for the same template (no dates): title,
// description, settings table, shared settings, files, hooks, and a project
// file opting in to it.
std::string template_readme(const Template& tpl);

// Where the README belongs: beside the template.json.
std::filesystem::path readme_path(const TemplateLocation& location);

// What writing `content` would do: Created (missing), Updated (stale) or
// Unchanged (current).
FileChange readme_change(const TemplateLocation& location, const std::string& content);

// Writes the README when its content changed.
Result<FileChange> write_readme(const TemplateLocation& location, const std::string& content);

}  // namespace sindri::repo
