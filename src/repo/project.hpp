#pragma once
// The project file: `sindri-templates.yaml` (root key `sindri_templates`),
// or the seed's `.sync.yml` (root key `pdk_template`). The root key holds
// `version: 2`, `template_sources`, `templates` and `hook_timeout_seconds`;
// beside it, each template's settings under the template's name.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "repo/located_document.hpp"
#include "value/result.hpp"

namespace sindri::repo {

inline constexpr std::string_view kProjectFileName = "sindri-templates.yaml";
inline constexpr std::string_view kSyncFileName = ".sync.yml";

struct SourceSpec {
  enum class Type { Filesystem, Git, Default };
  Type type = Type::Default;
  std::string location;  // filesystem: absolute, resolved against the project file's directory
  std::string ref;       // git: branch, tag or commit; empty for the remote's default branch
  bool trusted = false;  // git: its hooks may run
  std::string where;     // FILE:LINE:COLUMN of the entry
  std::string describe() const;  // "default", "filesystem DIR", "git URL@REF"
};

// "filesystem", "git", "default": as a project file names the type.
const char* source_type_name(SourceSpec::Type type);

struct TemplateRequest {
  std::string name;
  std::string where;
};

struct Project {
  std::filesystem::path directory;  // where the files are written, absolute
  std::string root_key;             // sindri_templates or pdk_template
  std::vector<SourceSpec> sources;  // never empty: `default` when none are given
  std::vector<TemplateRequest> templates;
  double hook_timeout_seconds = 10;
  LocatedDocument file;

  // The project's settings for a template (an object), or nullptr.
  const Value* settings_for(std::string_view template_name) const;
  // The settings under keys that are neither the root key nor a template
  // in `applied` (a typo, or a template left out of `templates`).
  std::vector<std::string> stray_settings(const std::vector<std::string>& applied) const;
};

// The text of a project file. `file` names it in messages; relative
// filesystem sources are resolved against `directory`. Every problem at once.
Result<Project> parse_project(std::string_view text, std::string file, const std::filesystem::path& directory,
                              std::string_view root_key);

// `sindri-templates.yaml` in `directory`, else `.sync.yml`; an error naming
// both when neither exists.
Result<Project> load_project(const std::filesystem::path& directory);

}  // namespace sindri::repo
