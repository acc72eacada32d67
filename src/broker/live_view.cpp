#include "broker/live_view.hpp"

#include <utility>

namespace sindri::broker {
namespace {

constexpr std::string_view kStacksPrefix = "/api/v1/stacks/";
constexpr std::string_view kLiveSuffix = "/live";
constexpr std::string_view kPakSubprotocol = "brokkr.pak.";

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// Calls `each` with every subprotocol offered until it answers true.
template <class Each>
void for_each_subprotocol(const http::Request& upgrade, Each each) {
  std::string_view list = upgrade.header("Sec-WebSocket-Protocol");
  while (!list.empty()) {
    const size_t comma = list.find(',');
    const std::string_view item = trimmed(list.substr(0, comma));
    if (!item.empty() && each(item)) return;
    if (comma == std::string_view::npos) return;
    list.remove_prefix(comma + 1);
  }
}

}  // namespace

std::optional<LiveViewPath> live_view_path(std::string_view path) {
  if (path == "/api/v1/fleet/live") return LiveViewPath{true, {}};
  if (!path.starts_with(kStacksPrefix) || !path.ends_with(kLiveSuffix)) return std::nullopt;
  const std::string_view id = path.substr(kStacksPrefix.size(), path.size() - kStacksPrefix.size() - kLiveSuffix.size());
  if (id.empty() || id.find('/') != std::string_view::npos) return std::nullopt;
  return LiveViewPath{false, std::string(id)};
}

std::optional<std::string> pak_in_subprotocols(const http::Request& upgrade) {
  std::optional<std::string> pak;
  for_each_subprotocol(upgrade, [&](std::string_view item) {
    if (!item.starts_with(kPakSubprotocol)) return false;
    pak = std::string(item.substr(kPakSubprotocol.size()));
    return true;
  });
  return pak;
}

bool offers_subprotocol(const http::Request& upgrade, std::string_view name) {
  bool offered = false;
  for_each_subprotocol(upgrade, [&](std::string_view item) { return offered = item == name; });
  return offered;
}

std::shared_ptr<http::WebSocketHandler> live_view_handler(LiveViews& views, Logger& log, LiveViewPath view,
                                                          std::string viewer, const http::Request& upgrade) {
  auto handler = std::make_shared<http::WebSocketHandler>();
  // A viewer sends nothing the broker reads; anything large is a mistake.
  handler->max_message_bytes = 64 * 1024;
  if (offers_subprotocol(upgrade, "brokkr.v1")) handler->headers.push_back({"Sec-WebSocket-Protocol", "brokkr.v1"});
  const std::string what = view.fleet ? std::string("fleet") : "stack " + view.stack_id;
  handler->on_open = [&views, &log, view, viewer, what](const http::WebSocketPtr& socket) {
    if (view.fleet) {
      views.watch_fleet(socket, viewer);
    } else {
      views.watch_stack(view.stack_id, socket, viewer);
    }
    log.info("live view opened", {{"view", Value(what)}, {"viewer", Value(viewer)}, {"remote", Value(socket->remote())}});
  };
  handler->on_message = [](const http::WebSocketPtr&, std::string) {};
  handler->on_close = [&views, &log, what](const http::WebSocketPtr& socket, uint16_t code) {
    views.forget(socket.get());
    log.info("live view closed", {{"view", Value(what)}, {"code", Value(int64_t{code})}});
  };
  return handler;
}

}  // namespace sindri::broker
