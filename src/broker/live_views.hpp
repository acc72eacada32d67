#pragma once
// The sockets watching this broker's live views: /api/v1/stacks/{id}/live
// (one stack's deployment objects, agent events, health, Kubernetes events
// and log lines as they arrive) and /api/v1/fleet/live (fleet_update per
// agent). Frames are sent as they are published; a viewer too slow to take
// them is disconnected by its socket's bounded queue. Thread-safe.

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "http/server.hpp"

namespace sindri::broker {

class LiveViews {
 public:
  // `viewer` is who opened it (Identity::key), for close_viewers.
  void watch_stack(const std::string& stack_id, const http::WebSocketPtr& socket, const std::string& viewer);
  void watch_fleet(const http::WebSocketPtr& socket, const std::string& viewer);
  // Forgets the socket, whichever view it watched.
  void forget(const http::WebSocket* socket);

  // Closes every view `viewer` opened (its PAK rotated, its identity deleted).
  void close_viewers(const std::string& viewer, uint16_t code, const std::string& reason);
  // Closes every view (frames may have been missed).
  void close_all(uint16_t code, const std::string& reason);

  void publish_stack(const std::string& stack_id, const std::string& frame);
  void publish_fleet(const std::string& frame);

  size_t stack_viewers() const;
  size_t fleet_viewers() const;
  bool watched(const std::string& stack_id) const;

 private:
  mutable std::mutex mutex_;
  std::multimap<std::string, http::WebSocketPtr, std::less<>> stack_viewers_;
  std::map<const http::WebSocket*, http::WebSocketPtr> fleet_viewers_;
  std::map<const http::WebSocket*, std::string> viewer_of_;
};

}  // namespace sindri::broker
