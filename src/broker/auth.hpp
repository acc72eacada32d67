#pragma once
// Who is calling: the PAK in the Authorization header, looked up by its hash
// among the admin role, the agents and the generators (in that order, as seed
// 002 has it). And the first start: the admin role, the system generator and
// the first admin PAK, written to a file.

#include <string>

#include "broker/context.hpp"

namespace sindri::broker {

ApiResult<Identity> authenticate(store::Database& db, const http::Request& request);

struct Bootstrap {
  bool first_start = false;
  std::string admin_pak_file;  // where the first admin PAK was written
};

// On the first start only: creates the admin role and the system generator
// and writes the admin PAK to `admin_pak_file` (mode 0600). Safe when several
// brokers start together on one database: exactly one of them bootstraps.
ApiResult<Bootstrap> bootstrap_admin(store::Database& db, const std::string& admin_pak_file);

}  // namespace sindri::broker
