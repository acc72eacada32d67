#include "broker/auth.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "broker/db/identities.hpp"
#include "broker/ids.hpp"
#include "broker/pak.hpp"

namespace sindri::broker {
namespace {

ApiResult<Ok> write_secret_file(const std::string& path, const std::string& content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    return ApiError{500, "admin_pak_file", "cannot write the admin PAK to " + path + ": " + std::strerror(errno),
                    Value(), std::nullopt};
  }
  const std::string line = content + "\n";
  const bool written = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) && ::fsync(fd) == 0;
  const int saved_errno = errno;
  ::close(fd);
  if (!written) {
    return ApiError{500, "admin_pak_file",
                    "cannot write the admin PAK to " + path + ": " + std::strerror(saved_errno), Value(),
                    std::nullopt};
  }
  return Ok{};
}

}  // namespace

std::optional<Identity> CredentialCache::find(const std::string& hash, int64_t generation) const {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(hash);
  if (it == entries_.end() || it->second.generation != generation) return std::nullopt;
  return it->second.identity;
}

void CredentialCache::store(const std::string& hash, int64_t generation, const Identity& identity) {
  constexpr size_t kMaxEntries = 100'000;
  std::lock_guard lock(mutex_);
  if (entries_.size() >= kMaxEntries) entries_.clear();
  entries_.insert_or_assign(hash, Entry{generation, identity});
}

ApiResult<Identity> authenticate(store::Database& db, const http::Request& request, CredentialCache& cache,
                                 int64_t credentials_generation) {
  const std::string_view header = request.header("Authorization");
  if (header.empty()) return unauthorized("the Authorization header is missing; send a PAK");
  const auto pak = pak_from_header(header);
  if (!pak) return unauthorized("the Authorization header does not hold a PAK (brokkr_BR<8>_<24>)");
  const std::string hash = hash_pak(*pak);
  if (auto known = cache.find(hash, credentials_generation)) return *known;
  auto found = in_read<Identity>(db, [&](store::Connection& connection) -> ApiResult<Identity> {
    SINDRI_TRY(owner, db::find_pak_owner(connection, hash));
    if (!owner) return unauthorized("the PAK is unknown or has been revoked");
    Identity identity;
    identity.kind = owner->holder == db::PakHolder::Admin   ? Identity::Kind::Admin
                    : owner->holder == db::PakHolder::Agent ? Identity::Kind::Agent
                                                            : Identity::Kind::Generator;
    identity.id = std::move(owner->id);
    return identity;
  });
  if (found.ok()) cache.store(hash, credentials_generation, found.value());
  return found;
}

ApiResult<Bootstrap> bootstrap_admin(store::Database& db, const std::string& admin_pak_file) {
  return in_write<Bootstrap>(db, [&](store::Connection& connection) -> ApiResult<Bootstrap> {
    Bootstrap outcome;
    const std::string now = now_timestamp();
    SINDRI_TRY(claimed, db::claim_first_start(connection, now));
    if (!claimed) return outcome;
    const IssuedPak pak = issue_pak();
    SINDRI_CHECK(db::insert_admin_and_system_generator(connection, pak.hash, now));
    // Written before the commit: if the file cannot be written, nothing is
    // committed and the next start tries again.
    SINDRI_CHECK(write_secret_file(admin_pak_file, pak.pak));
    outcome.first_start = true;
    outcome.admin_pak_file = admin_pak_file;
    return outcome;
  });
}

Status rotate_admin_pak(store::Database& db, const std::string& admin_pak_file) {
  // Staged beside the file and renamed over it once committed: until then
  // the file keeps the PAK that still works.
  const std::string staged = admin_pak_file + ".new";
  bool staged_whole = false;
  auto rotated = in_write<Ok>(db, [&](store::Connection& connection) -> ApiResult<Ok> {
    auto initialized = db::initialized(connection);
    if (!initialized.ok() && initialized.error().kind != store::DbError::Kind::Invalid) {
      return database_error(std::move(initialized).error());
    }
    if (!initialized.ok() || !*initialized) {
      return ApiError{404, "not_initialized",
                      "no broker has started on this database, so it has no admin PAK to rotate: `sindri serve` "
                      "writes the first one at its first start",
                      Value(), std::nullopt};
    }
    const IssuedPak pak = issue_pak();
    SINDRI_CHECK(db::set_admin_pak(connection, pak.hash));
    SINDRI_CHECK(write_secret_file(staged, pak.pak));
    staged_whole = true;
    return Ok{};
  });
  if (!rotated.ok()) {
    const ApiError& error = rotated.error();
    std::string message = error.cause ? error.cause->message : error.message;
    // A commit that failed once the new PAK was staged may still have taken
    // effect (its answer lost): the new PAK is then the only one.
    if (staged_whole) {
      message += "; if the old admin PAK is now refused, the new one is in " + staged;
    } else {
      ::unlink(staged.c_str());
    }
    return make_error(message);
  }
  if (::rename(staged.c_str(), admin_pak_file.c_str()) != 0) {
    return make_error("the old admin PAK is revoked and the new one is in " + staged + ", which cannot be renamed to " +
                      admin_pak_file + ": " + std::strerror(errno));
  }
  return Ok{};
}

}  // namespace sindri::broker
