#pragma once
// The live views' sockets: GET /api/v1/stacks/{id}/live and
// /api/v1/fleet/live, Brokkr's. A viewer only receives (live_views.hpp);
// what it sends is ignored. Authentication, as the broker takes it: the
// Authorization header (Brokkr's SDK from Node), the subprotocol
// "brokkr.pak.<PAK>" beside "brokkr.v1" (Brokkr's console; only brokkr.v1 is
// echoed, never the PAK), or a one-time ticket from POST /api/v1/ws/tickets
// as ?ticket= (a browser without a PAK in script).

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "broker/live_views.hpp"
#include "broker/log.hpp"
#include "http/server.hpp"

namespace sindri::broker {

// Seconds a ticket opens a view for after it was issued.
inline constexpr int64_t kTicketLifetimeSeconds = 30;

struct LiveViewPath {
  bool fleet = false;
  std::string stack_id;  // as in the path, unchecked; empty for the fleet
};
// The live view `path` names; nullopt for any other path.
std::optional<LiveViewPath> live_view_path(std::string_view path);

// The PAK offered as a "brokkr.pak.<PAK>" subprotocol, if any.
std::optional<std::string> pak_in_subprotocols(const http::Request& upgrade);
// Whether the client offered the subprotocol `name`.
bool offers_subprotocol(const http::Request& upgrade, std::string_view name);

// The socket's handler: registered with `views` while open.
std::shared_ptr<http::WebSocketHandler> live_view_handler(LiveViews& views, Logger& log, LiveViewPath view,
                                                          std::string viewer, const http::Request& upgrade);

}  // namespace sindri::broker
