#pragma once
// Writing rendered files into the project: the one place the library writes.

#include <filesystem>
#include <string>
#include <vector>

#include "repo/render.hpp"

namespace sindri::repo {

enum class FileChange { Created, Updated, Unchanged, Kept };  // Kept: init-only, already there
const char* change_name(FileChange change);

struct SyncedFile {
  std::string path;
  FileChange change = FileChange::Unchanged;
};

// What writing `file` into `directory` would do, without writing.
FileChange planned_change(const std::filesystem::path& directory, const RenderedFile& file);

// Writes each file that would change (through a temporary file renamed over
// the old one), creating directories; an init-only file only where absent.
Result<std::vector<SyncedFile>> sync_files(const std::filesystem::path& directory,
                                           const std::vector<RenderedFile>& files);

}  // namespace sindri::repo
