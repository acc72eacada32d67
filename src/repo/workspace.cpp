#include "repo/workspace.hpp"

namespace sindri::repo {

Result<Workspace> open_workspace(const std::filesystem::path& project_directory, const SourceOptions& options) {
  SINDRI_TRY(project, load_project(project_directory));
  SINDRI_TRY(sources, open_sources(project, options));
  return Workspace{std::move(project), Catalog(std::move(sources))};
}

}  // namespace sindri::repo
