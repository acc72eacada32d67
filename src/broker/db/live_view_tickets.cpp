#include "broker/db/live_view_tickets.hpp"

namespace sindri::broker::db {

ApiResult<Ok> insert_ticket(store::Connection& connection, std::string_view ticket_hash, const TicketHolder& holder,
                            std::string_view expires_at) {
  SINDRI_CHECK(connection.query("INSERT INTO live_view_tickets (ticket_hash, identity_kind, identity_id, expires_at) "
                                "VALUES ($1, $2, $3, $4)",
                                {Value(ticket_hash), Value(holder.kind), Value(holder.id), Value(expires_at)}));
  return Ok{};
}

ApiResult<std::optional<TicketHolder>> take_ticket(store::Connection& connection, std::string_view ticket_hash,
                                                   std::string_view now) {
  SINDRI_TRY(rows, connection.query("DELETE FROM live_view_tickets WHERE ticket_hash = $1 "
                                    "RETURNING identity_kind, identity_id, expires_at",
                                    {Value(ticket_hash)}));
  if (rows.empty() || rows.rows[0][2].get_string() < now) return std::optional<TicketHolder>();
  return std::optional<TicketHolder>(
      TicketHolder{std::string(rows.rows[0][0].get_string()), std::string(rows.rows[0][1].get_string())});
}

ApiResult<Ok> delete_tickets_of(store::Connection& connection, const TicketHolder& holder) {
  SINDRI_CHECK(connection.query("DELETE FROM live_view_tickets WHERE identity_kind = $1 AND identity_id = $2",
                                {Value(holder.kind), Value(holder.id)}));
  return Ok{};
}

ApiResult<int64_t> delete_lapsed_tickets(store::Connection& connection, std::string_view now, int64_t limit) {
  SINDRI_TRY(rows, connection.query("DELETE FROM live_view_tickets WHERE ticket_hash IN (SELECT ticket_hash FROM "
                                    "live_view_tickets WHERE expires_at < $1 LIMIT $2) RETURNING 1",
                                    {Value(now), Value(limit)}));
  return static_cast<int64_t>(rows.size());
}

}  // namespace sindri::broker::db
