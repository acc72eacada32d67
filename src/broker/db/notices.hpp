#pragma once
// The broker_notices table: notices between brokers too large for a NOTIFY
// (notice_bus.hpp), kept for minutes.

#include <cstdint>
#include <string>
#include <string_view>

#include "broker/api_error.hpp"
#include "store/database.hpp"

namespace sindri::broker::db {

// Stores the notice's text; answers its id.
ApiResult<std::string> store_notice(store::Connection& connection, std::string_view payload);
// 404 when it is gone.
ApiResult<std::string> load_notice(store::Connection& connection, std::string_view id);
// Deletes up to `limit` notices stored before `cutoff`; answers how many.
ApiResult<int64_t> delete_notices_before(store::Connection& connection, std::string_view cutoff, int64_t limit);

}  // namespace sindri::broker::db
