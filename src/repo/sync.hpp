#pragma once
// Writing rendered files into the project: the one place the library writes.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "repo/render.hpp"

namespace sindri::repo {

enum class FileChange { Created, Updated, Unchanged, Kept };  // Kept: init-only, already there
const char* change_name(FileChange change);

struct SyncedFile {
  std::string path;
  FileChange change = FileChange::Unchanged;
};

// Replaces the file at `path` with `bytes` through PATH.sindri-incoming
// renamed over it, so that no reader sees half a file: an existing file
// keeps its mode, a new one gets `added_to_new` on top of the default.
Status replace_file(const std::filesystem::path& path, std::string_view bytes,
                    std::filesystem::perms added_to_new = std::filesystem::perms::none);

// What writing `file` into `directory` would do, without writing.
FileChange planned_change(const std::filesystem::path& directory, const RenderedFile& file);

// Writes each file that would change (through a temporary file renamed over
// the old one), creating directories; an init-only file only where absent.
Result<std::vector<SyncedFile>> sync_files(const std::filesystem::path& directory,
                                           const std::vector<RenderedFile>& files);

}  // namespace sindri::repo
