#pragma once
// What the `default` template source means: the repository shipped with
// Sindri.

#include <filesystem>

namespace sindri::repo {

// The first of: $SINDRI_DEFAULT_TEMPLATES when set; PROGRAM_DIR/../share/
// sindri/templates/default when it exists (an installed Sindri, the program
// in <prefix>/bin); the source tree's templates/default, where this Sindri
// was built from.
std::filesystem::path default_repository(const std::filesystem::path& program_directory);

}  // namespace sindri::repo
