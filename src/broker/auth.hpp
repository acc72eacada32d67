#pragma once
// Who is calling: the PAK in the Authorization header, looked up by its hash
// among the admin role, the agents and the generators (in that order, as seed
// 002 has it). And the first start: the admin role, the system generator and
// the first admin PAK, written to a file.

#include <mutex>
#include <string>
#include <unordered_map>

#include "broker/context.hpp"

namespace sindri::broker {

// PAK hashes already looked up, valid while the credentials generation they
// were found at is current: a rotation or deletion anywhere (on any broker
// sharing the database) bumps it, so a revoked PAK stops working at once.
class CredentialCache {
 public:
  std::optional<Identity> find(const std::string& hash, int64_t generation) const;
  void store(const std::string& hash, int64_t generation, const Identity& identity);

 private:
  struct Entry {
    int64_t generation;
    Identity identity;
  };
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;
};

ApiResult<Identity> authenticate(store::Database& db, const http::Request& request, CredentialCache& cache,
                                 int64_t credentials_generation);

struct Bootstrap {
  bool first_start = false;
  std::string admin_pak_file;  // where the first admin PAK was written
};

// On the first start only: creates the admin role and the system generator
// and writes the admin PAK to `admin_pak_file` (mode 0600). Safe when several
// brokers start together on one database: exactly one of them bootstraps.
ApiResult<Bootstrap> bootstrap_admin(store::Database& db, const std::string& admin_pak_file);

// For an operator who lost the admin PAK or must revoke it: a new one
// replaces it in the database and is written to `admin_pak_file` (mode
// 0600). Brokers running on the database refuse the old one within their
// peer-change delay. Errors name what failed; a database no broker has
// started on is one.
Status rotate_admin_pak(store::Database& db, const std::string& admin_pak_file);

}  // namespace sindri::broker
