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
  return replace_file(path, file.bytes,
                      file.executable ? fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec
                                      : fs::perms::none);
}

}  // namespace

Status replace_file(const fs::path& path, std::string_view bytes, fs::perms added_to_new) {
  const fs::path incoming = path.string() + ".sindri-incoming";
  const auto give_up = [&](const std::string& why) {
    std::error_code ignored;
    fs::remove(incoming, ignored);
    return make_error("cannot write " + path.string() + " (through " + incoming.string() + "): " + why);
  };
  std::error_code absent;  // a new file: nothing to keep
  const fs::file_status existing = fs::status(path, absent);
  std::error_code ec;
  {
    std::ofstream out(incoming, std::ios::binary | std::ios::trunc);
    if (!out) return give_up(std::strerror(errno));
    // A rewrite keeps the mode its owner gave the file (a chmod 600 stays
    // 600), set before the bytes are written so they are never more open.
    if (fs::exists(existing)) {
      fs::permissions(incoming, existing.permissions(), fs::perm_options::replace, ec);
    } else if (added_to_new != fs::perms::none) {
      fs::permissions(incoming, added_to_new, fs::perm_options::add, ec);
    }
    if (ec) return give_up(ec.message());
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out.flush()) return give_up(std::strerror(errno));
  }
  fs::rename(incoming, path, ec);
  if (ec) return give_up(ec.message());
  return Ok{};
}

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
