#pragma once
// The SQLite back end: sqlite://PATH.

#include <memory>
#include <string>
#include <string_view>

#include "store/database.hpp"

namespace sindri::store {

// PATH is a file, created if missing, or ":memory:" for an in-memory
// database private to this Database and shared by its connections.
DbResult<std::unique_ptr<Database>> open_sqlite(std::string_view path, const OpenOptions& options);

// Rewrites $1..$n as ?1..?n, SQLite's numbered parameters; string literals,
// quoted identifiers and comments are left as they are.
std::string sqlite_placeholders(std::string_view sql);

}  // namespace sindri::store
