#pragma once
// The PostgreSQL back end: postgres://... and postgresql://... (libpq URIs).

#include <memory>
#include <string>

#include "store/database.hpp"

namespace sindri::store {

// Connects once before returning, so that a wrong URL or a server that is
// down shows at start-up rather than at the first request.
DbResult<std::unique_ptr<Database>> open_postgres(const std::string& url, const OpenOptions& options);

}  // namespace sindri::store
