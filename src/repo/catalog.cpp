#include "repo/catalog.hpp"

#include <algorithm>
#include <set>

namespace sindri::repo {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kMetadataFile = "template.json";

bool is_file(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

}  // namespace

std::optional<fs::path> TemplateLocation::find_file(const fs::path& relative) const {
  for (const fs::path& directory : overrides) {
    if (is_file(directory / relative)) return directory / relative;
  }
  if (is_file(directory / relative)) return directory / relative;
  return std::nullopt;
}

std::vector<std::string> TemplateLocation::files_under(std::string_view subdirectory) const {
  std::set<std::string> names;
  auto collect = [&](const fs::path& root) {
    std::error_code ec;
    const fs::path base = root / subdirectory;
    if (!fs::is_directory(base, ec)) return;
    for (auto it = fs::recursive_directory_iterator(base, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (it->is_regular_file(ec)) names.insert(it->path().lexically_relative(base).generic_string());
    }
  };
  collect(directory);
  for (const fs::path& override_directory : overrides) collect(override_directory);
  return {names.begin(), names.end()};
}

std::vector<fs::path> TemplateLocation::symlinks() const {
  std::vector<fs::path> out;
  auto check = [&](const fs::path& path) {
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(path, ec))) out.push_back(path);
  };
  auto collect = [&](const fs::path& root) {
    for (std::string_view part : {"template.json", "template_schema.json"}) check(root / part);
    for (std::string_view part : {"files", "files_init", "hooks"}) {
      const fs::path base = root / part;
      check(base);
      std::error_code ec;
      // Symlinked directories are not followed: they are listed, not entered.
      if (!fs::is_directory(fs::symlink_status(base, ec))) continue;
      for (auto it = fs::recursive_directory_iterator(base, ec); !ec && it != fs::recursive_directory_iterator();
           it.increment(ec)) {
        if (it->is_symlink(ec)) out.push_back(it->path());
      }
    }
  };
  collect(directory);
  for (const fs::path& override_directory : overrides) collect(override_directory);
  std::sort(out.begin(), out.end());
  return out;
}

Catalog::Catalog(std::vector<OpenSource> sources) : sources_(std::move(sources)) {}

std::optional<TemplateLocation> Catalog::locate(std::string_view name) const {
  if (name.empty() || name.find('/') != std::string_view::npos || name == "." || name == "..") return std::nullopt;
  TemplateLocation location;
  location.name = name;
  for (const OpenSource& source : sources_) {
    const fs::path directory = source.directory / std::string(name);
    std::error_code ec;
    if (!fs::is_directory(directory, ec)) continue;
    if (is_file(directory / kMetadataFile)) {
      location.directory = directory;
      location.source = &source;
      return location;
    }
    location.overrides.push_back(directory);
  }
  return std::nullopt;
}

std::vector<TemplateLocation> Catalog::every_template() const {
  std::set<std::string> names;
  for (const OpenSource& source : sources_) {
    std::error_code ec;
    for (auto it = fs::directory_iterator(source.directory, ec); !ec && it != fs::directory_iterator();
         it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (it->is_directory(ec) && name.front() != '.' && is_file(it->path() / kMetadataFile)) names.insert(name);
    }
  }
  std::vector<TemplateLocation> out;
  for (const std::string& name : names) {
    if (auto found = locate(name)) out.push_back(std::move(*found));
  }
  return out;
}

}  // namespace sindri::repo
