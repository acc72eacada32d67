#pragma once
// Who a PAK belongs to (admin_role, agents, generators), and the rows the
// first start writes.

#include <optional>
#include <string>
#include <string_view>

#include "broker/api_error.hpp"
#include "store/database.hpp"

namespace sindri::broker::db {

enum class PakHolder { Admin, Agent, Generator };
struct PakOwner {
  PakHolder holder;
  std::string id;
};
// The holder of the PAK hashed to `pak_hash`: the admin role, then live
// agents, then live active generators (seed 002's order); none when unknown
// or revoked.
ApiResult<std::optional<PakOwner>> find_pak_owner(store::Connection& connection, std::string_view pak_hash);

// Claims the first start; false when a broker has claimed it already. The
// insert doubles as the lock: a second broker starting at the same time
// conflicts here and leaves the bootstrap to the first.
ApiResult<bool> claim_first_start(store::Connection& connection, const std::string& now);
// The admin role with its PAK hash, and the system generator.
ApiResult<Ok> insert_admin_and_system_generator(store::Connection& connection, std::string_view admin_pak_hash,
                                                const std::string& now);
// Whether a broker has started on this database. A database without the
// broker's tables is a DbError of kind Invalid, which the caller reads as no.
store::DbResult<bool> initialized(store::Connection& connection);
// Replaces the admin PAK's hash and touches the credentials.
ApiResult<Ok> set_admin_pak(store::Connection& connection, std::string_view pak_hash);

}  // namespace sindri::broker::db
