#include "broker/db/identities.hpp"

#include "broker/db/counters.hpp"
#include "broker/db/rows.hpp"
#include "broker/ids.hpp"

namespace sindri::broker::db {

ApiResult<std::optional<PakOwner>> find_pak_owner(store::Connection& connection, std::string_view pak_hash) {
  SINDRI_TRY(rows, connection.query(
                       "SELECT 0, id FROM admin_role WHERE pak_hash = $1 "
                       "UNION ALL SELECT 1, id FROM agents WHERE pak_hash = $1 AND " SINDRI_LIVE
                       " UNION ALL SELECT 2, id FROM generators WHERE pak_hash = $1 AND " SINDRI_LIVE " AND is_active",
                       {Value(pak_hash)}));
  if (rows.empty()) return std::optional<PakOwner>();
  const int64_t holder = rows.rows[0][0].get_int();
  return std::optional<PakOwner>(PakOwner{
      holder == 0 ? PakHolder::Admin : holder == 1 ? PakHolder::Agent : PakHolder::Generator,
      std::string(rows.rows[0][1].get_string())});
}

ApiResult<bool> claim_first_start(store::Connection& connection, const std::string& now) {
  SINDRI_TRY(claimed, connection.query("INSERT INTO app_initialization (id, initialized_at) VALUES (1, $1) "
                                       "ON CONFLICT (id) DO NOTHING RETURNING id",
                                       {Value(now)}));
  return !claimed.empty();
}

ApiResult<Ok> insert_admin_and_system_generator(store::Connection& connection, std::string_view admin_pak_hash,
                                                const std::string& now) {
  SINDRI_CHECK(connection.query("INSERT INTO admin_role (id, pak_hash, created_at, updated_at) VALUES ($1, $2, $3, $3)",
                                {Value(new_uuid()), Value(admin_pak_hash), Value(now)}));
  SINDRI_CHECK(connection.query(
      "INSERT INTO generators (id, name, description, pak_hash, is_active, is_system, created_at, updated_at) "
      "VALUES ($1, 'system', 'The system generator, provisioned at the first start', NULL, TRUE, TRUE, $2, $2)",
      {Value(new_uuid()), Value(now)}));
  return Ok{};
}

store::DbResult<bool> initialized(store::Connection& connection) {
  auto rows = connection.query("SELECT 1 FROM app_initialization WHERE id = 1");
  if (!rows.ok()) return std::move(rows).error();
  return !rows->empty();
}

ApiResult<Ok> set_admin_pak(store::Connection& connection, std::string_view pak_hash) {
  SINDRI_CHECK(connection.query("UPDATE admin_role SET pak_hash = $1, updated_at = $2",
                                {Value(pak_hash), Value(now_timestamp())}));
  return touch_credentials(connection);
}

}  // namespace sindri::broker::db
