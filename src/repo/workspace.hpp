#pragma once
// A project with its sources opened: what every `sindri repo` verb starts from.

#include <filesystem>

#include "repo/catalog.hpp"
#include "repo/project.hpp"
#include "repo/sources.hpp"

namespace sindri::repo {

struct Workspace {
  Project project;
  Catalog catalog;
};

Result<Workspace> open_workspace(const std::filesystem::path& project_directory, const SourceOptions& options);

}  // namespace sindri::repo
