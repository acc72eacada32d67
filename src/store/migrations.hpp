#pragma once
// Versioned schema migrations, run at start-up. Each migration has a version,
// a name and its SQL for each dialect. Applied versions are recorded in
// schema_migrations; running again applies only what is missing, and brokers
// starting together on one PostgreSQL database apply each migration once
// (an advisory lock serialises them).

#include <span>
#include <string_view>

#include "store/database.hpp"

namespace sindri::store {

struct Migration {
  int version;
  std::string_view name;
  std::string_view sqlite_sql;
  std::string_view postgres_sql;
};

// Applies every migration whose version is not yet recorded, in order, each
// in its own transaction. Returns how many were applied.
DbResult<int> migrate(Database& db, std::span<const Migration> migrations);

}  // namespace sindri::store
