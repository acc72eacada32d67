#include "repo/sync.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "value/file_text.hpp"

namespace sindri::repo {

namespace fs = std::filesystem;

namespace {

Status write_file(const fs::path& path, const RenderedFile& file) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) return make_error("cannot create " + path.parent_path().string() + ": " + ec.message());
  const fs::path incoming = path.string() + ".sindri-incoming";
  const fs::file_status existing = fs::status(path, ec);
  {
    std::ofstream out(incoming, std::ios::binary | std::ios::trunc);
    if (fs::exists(existing)) {
      // A rewrite keeps the mode its owner gave the file (a chmod 600 stays
      // 600), set before the bytes are written so they are never more open.
      fs::permissions(incoming, existing.permissions(), fs::perm_options::replace, ec);
      if (ec) {
        const std::string why = ec.message();
        out.close();
        fs::remove(incoming, ec);
        return make_error("cannot keep the mode of " + path.string() + " on " + incoming.string() + ": " + why);
      }
    }
    out.write(file.bytes.data(), static_cast<std::streamsize>(file.bytes.size()));
    if (!out.flush()) return make_error("cannot write " + incoming.string() + ": " + std::strerror(errno));
  }
  if (!fs::exists(existing) && file.executable) {
    fs::permissions(incoming, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add, ec);
  }
  fs::rename(incoming, path, ec);
  if (ec) {
    fs::remove(incoming, ec);
    return make_error("cannot write " + path.string() + ": " + ec.message());
  }
  return Ok{};
}

}  // namespace

const char* change_name(FileChange change) {
  switch (change) {
    case FileChange::Created:
      return "created";
    case FileChange::Updated:
      return "updated";
    case FileChange::Unchanged:
      return "unchanged";
    case FileChange::Kept:
      return "kept";
  }
  return "";
}

FileChange planned_change(const fs::path& directory, const RenderedFile& file) {
  const fs::path path = directory / file.path;
  std::error_code ec;
  if (!fs::exists(path, ec)) return FileChange::Created;
  if (file.init_only) return FileChange::Kept;
  auto current = read_file_text(path);
  return current && *current == file.bytes ? FileChange::Unchanged : FileChange::Updated;
}

Result<std::vector<SyncedFile>> sync_files(const fs::path& directory, const std::vector<RenderedFile>& files) {
  std::vector<SyncedFile> out;
  for (const RenderedFile& file : files) {
    const FileChange change = planned_change(directory, file);
    if (change == FileChange::Created || change == FileChange::Updated) {
      SINDRI_CHECK(write_file(directory / file.path, file));
    }
    out.push_back(SyncedFile{file.path, change});
  }
  return out;
}

}  // namespace sindri::repo
