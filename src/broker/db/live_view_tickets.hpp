#pragma once
// One-time tickets for opening a live view without a header: stored as the
// SHA-256 of the ticket, good for one opening before they lapse.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "broker/api_error.hpp"
#include "store/database.hpp"

namespace sindri::broker::db {

struct TicketHolder {
  std::string kind;  // Identity::kind_name(): admin, generator, agent
  std::string id;
};

ApiResult<Ok> insert_ticket(store::Connection& connection, std::string_view ticket_hash, const TicketHolder& holder,
                            std::string_view expires_at);
// Takes the ticket (it opens one view only); nullopt when there is none, or
// it lapsed before `now`.
ApiResult<std::optional<TicketHolder>> take_ticket(store::Connection& connection, std::string_view ticket_hash,
                                                   std::string_view now);
// Deletes the tickets of an identity whose PAK was rotated or that was deleted.
ApiResult<Ok> delete_tickets_of(store::Connection& connection, const TicketHolder& holder);
// Deletes up to `limit` tickets that lapsed before `now`; answers how many.
ApiResult<int64_t> delete_lapsed_tickets(store::Connection& connection, std::string_view now, int64_t limit);

}  // namespace sindri::broker::db
