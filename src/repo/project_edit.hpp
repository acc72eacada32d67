#pragma once
// Adding and removing template sources in a project file as an edit of its
// text: only the lines (or, in a flow sequence, the characters) of the entry
// added or removed change, so comments, blank lines, key order and the
// settings sections stay byte for byte as their author wrote them. Every edit
// is parsed back and refused when it does not list the intended sources.

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "repo/project.hpp"
#include "value/result.hpp"

namespace sindri::repo {

// One entry of `template_sources` as the file writes it.
struct ListedSource {
  SourceSpec spec;       // as parse_project reads it (a filesystem location resolved)
  std::string location;  // as written in the file; empty for `default`
  std::string describe() const;  // "default", "filesystem ../templates", "git URL@REF"
};

// The entries the file lists, in order: none when it lists none, and the
// project then means `default` implicitly.
std::vector<ListedSource> listed_sources(const Project& project);

// A source to add, as `sindri repo source add TYPE KEY=VALUE...` gives it.
struct NewSource {
  SourceSpec::Type type = SourceSpec::Type::Default;
  std::string location;         // as the user wrote it (filesystem: relative to the project file)
  std::string ref;              // git only; empty: the remote's default branch
  std::optional<bool> trusted;  // git only; written only when given
  std::string describe() const;
};

// TYPE (filesystem, git, default) and its KEY=VALUE arguments. Errors name
// the argument: an unknown or repeated key, a missing location, ref or
// trusted on a filesystem source, a git location or ref starting with `-`.
Result<NewSource> new_source(std::string_view type, const std::vector<std::string>& arguments);

// The 0-based index of the listed entry `which` names: its 1-based position,
// `default`, or its location (as written, or a filesystem directory that
// resolves to the same path). An unknown one is an error listing the entries.
Result<size_t> find_listed_source(const Project& project, std::string_view which);

struct EditedProject {
  std::string text;     // the whole new file
  size_t position = 0;  // 1-based position of the entry added or removed
};

// `text` is the file `project` was parsed from. The new source goes last, or
// first with `first` (the first source holding a template wins). A source
// already listed (same type, location and ref) is an error.
Result<EditedProject> add_source(const Project& project, std::string_view text, const NewSource& source, bool first);
// Removes the listed entry at `index` (0-based, as find_listed_source gives it).
Result<EditedProject> remove_source(const Project& project, std::string_view text, size_t index);

// The project file of `directory` (the one load_project picks) with its text.
struct ProjectFile {
  Project project;
  std::string text;
  std::filesystem::path path;
};
Result<ProjectFile> read_project_file(const std::filesystem::path& directory);

// Replaces `path` by `text` through a temporary file beside it renamed over
// it, keeping the file's mode.
Status write_project_file(const std::filesystem::path& path, std::string_view text);

}  // namespace sindri::repo
