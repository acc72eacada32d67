#include "repo/default_repository.hpp"

#include <cstdlib>

namespace sindri::repo {

std::filesystem::path default_repository(const std::filesystem::path& program_directory) {
  if (const char* chosen = std::getenv("SINDRI_DEFAULT_TEMPLATES"); chosen && *chosen) return chosen;
  const std::filesystem::path installed = program_directory / ".." / "share" / "sindri" / "templates" / "default";
  std::error_code ec;
  if (std::filesystem::is_directory(installed, ec)) return installed.lexically_normal();
  return SINDRI_SOURCE_DEFAULT_TEMPLATES;
}

}  // namespace sindri::repo
