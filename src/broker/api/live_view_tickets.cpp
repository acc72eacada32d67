// POST /ws/tickets, a Sindri extension: a one-time ticket that opens one
// live view (live_view.hpp) as the caller within 30 seconds, for a browser,
// which cannot set Authorization on a WebSocket and must never put a PAK in
// a URL.

#include <chrono>

#include "broker/api/routes.hpp"
#include "broker/db/live_view_tickets.hpp"
#include "broker/ids.hpp"
#include "broker/live_view.hpp"
#include "value/digest.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker {
namespace {

constexpr size_t kTicketLength = 40;

ApiResult<http::Response> create_ticket(Call& call) {
  const std::string ticket = "wst_" + random_alphanumeric(kTicketLength);
  const std::string expires_at =
      timestamp_at(std::chrono::system_clock::now() + std::chrono::seconds(kTicketLifetimeSeconds));
  SINDRI_CHECK(in_write<Ok>(call.db(), [&](store::Connection& connection) {
    return db::insert_ticket(connection, sha256_hex(ticket), {call.caller.kind_name(), call.caller.id}, expires_at);
  }));
  return json_response(201, make_object({{"ticket", Value(ticket)},
                                         {"expires_at", Value(expires_at)},
                                         {"expires_in_seconds", Value(kTicketLifetimeSeconds)}}));
}

}  // namespace

void add_live_view_ticket_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"POST", "/ws/tickets", Allow::Admin | Allow::Generator, create_ticket});
}

}  // namespace sindri::broker
