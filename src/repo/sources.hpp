#pragma once
// Template sources made into directories: a filesystem source is its
// directory, `default` the repository shipped with Sindri, a git source its
// clone in the cache (git.hpp).

#include <filesystem>
#include <vector>

#include "repo/project.hpp"
#include "value/result.hpp"

namespace sindri::repo {

struct SourceOptions {
  std::filesystem::path default_repository;  // what `default` means
  std::filesystem::path cache_directory;     // where git sources are cloned
  bool update = false;                       // fetch every git source again
  double git_timeout_seconds = 600;          // each git command (a clone of a large repository included)
};

struct OpenSource {
  SourceSpec spec;
  std::filesystem::path directory;
  bool hooks_trusted = true;  // false for a git source not marked `trusted: true`
};

// In the project's order. A directory that does not exist, or a git source
// that cannot be reached and has no cached copy, is an error naming it.
Result<std::vector<OpenSource>> open_sources(const Project& project, const SourceOptions& options);

}  // namespace sindri::repo
