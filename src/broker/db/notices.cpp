#include "broker/db/notices.hpp"

#include "broker/ids.hpp"

namespace sindri::broker::db {

ApiResult<std::string> store_notice(store::Connection& connection, std::string_view payload) {
  std::string id = new_uuid();
  SINDRI_CHECK(connection.query("INSERT INTO broker_notices (id, payload, created_at) VALUES ($1, $2, $3)",
                                {Value(id), Value(payload), Value(now_timestamp())}));
  return id;
}

ApiResult<std::string> load_notice(store::Connection& connection, std::string_view id) {
  SINDRI_TRY(rows, connection.query("SELECT payload FROM broker_notices WHERE id = $1", {Value(id)}));
  if (rows.empty()) return not_found("notice", id);
  return std::string(rows.rows[0][0].get_string());
}

ApiResult<int64_t> delete_notices_before(store::Connection& connection, std::string_view cutoff, int64_t limit) {
  SINDRI_TRY(rows, connection.query("DELETE FROM broker_notices WHERE id IN (SELECT id FROM broker_notices "
                                    "WHERE created_at < $1 LIMIT $2) RETURNING 1",
                                    {Value(cutoff), Value(limit)}));
  return static_cast<int64_t>(rows.size());
}

}  // namespace sindri::broker::db
