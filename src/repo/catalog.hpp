#pragma once
// Finding templates across sources: the first source that has a template's
// directory with a `template.json` provides it ("first one wins"); a
// directory of that name in an earlier source without `template.json`
// overrides only the files it holds (a tweak without a fork).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "repo/sources.hpp"

namespace sindri::repo {

struct TemplateLocation {
  std::string name;                 // the directory name
  std::filesystem::path directory;  // the one holding template.json
  const OpenSource* source = nullptr;
  std::vector<std::filesystem::path> overrides;  // earlier sources' partial directories, first source first

  // Where a file of the template (a path relative to its directory) is read
  // from: the first override holding it, else the template's own directory.
  std::optional<std::filesystem::path> find_file(const std::filesystem::path& relative) const;
  // Every regular file under a subdirectory (`files`, `files_init`) of the
  // template and its overrides, relative to that subdirectory with forward
  // slashes, sorted.
  std::vector<std::string> files_under(std::string_view subdirectory) const;
  // Every symlink among the template's parts that rendering reads
  // (template.json, template_schema.json, files/, files_init/, hooks/) in
  // its directory and overrides, sorted. (`repo test` checks tests/ itself:
  // a link there must not stop the template from being used.)
  std::vector<std::filesystem::path> symlinks() const;
};

class Catalog {
 public:
  explicit Catalog(std::vector<OpenSource> sources);
  Catalog(Catalog&&) = default;
  Catalog(const Catalog&) = delete;

  const std::vector<OpenSource>& sources() const { return sources_; }
  std::optional<TemplateLocation> locate(std::string_view name) const;
  // Every template any source provides, by name.
  std::vector<TemplateLocation> every_template() const;

 private:
  std::vector<OpenSource> sources_;
};

}  // namespace sindri::repo
