#include "broker/live_views.hpp"

#include <vector>

namespace sindri::broker {

void LiveViews::watch_stack(const std::string& stack_id, const http::WebSocketPtr& socket, const std::string& viewer) {
  std::lock_guard lock(mutex_);
  stack_viewers_.emplace(stack_id, socket);
  viewer_of_[socket.get()] = viewer;
}

void LiveViews::watch_fleet(const http::WebSocketPtr& socket, const std::string& viewer) {
  std::lock_guard lock(mutex_);
  fleet_viewers_.emplace(socket.get(), socket);
  viewer_of_[socket.get()] = viewer;
}

void LiveViews::close_viewers(const std::string& viewer, uint16_t code, const std::string& reason) {
  std::vector<http::WebSocketPtr> closing;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [socket, opened_by] : viewer_of_) {
      if (opened_by != viewer) continue;
      auto fleet = fleet_viewers_.find(socket);
      if (fleet != fleet_viewers_.end()) {
        closing.push_back(fleet->second);
        continue;
      }
      for (const auto& [stack_id, watching] : stack_viewers_) {
        if (watching.get() == socket) closing.push_back(watching);
      }
    }
  }
  // Outside the lock: each close's on_close forgets its socket.
  for (const http::WebSocketPtr& socket : closing) socket->close(code, reason);
}

void LiveViews::close_all(uint16_t code, const std::string& reason) {
  std::vector<http::WebSocketPtr> closing;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [stack_id, socket] : stack_viewers_) closing.push_back(socket);
    for (const auto& [key, socket] : fleet_viewers_) closing.push_back(socket);
  }
  for (const http::WebSocketPtr& socket : closing) socket->close(code, reason);
}

void LiveViews::forget(const http::WebSocket* socket) {
  std::lock_guard lock(mutex_);
  viewer_of_.erase(socket);
  fleet_viewers_.erase(socket);
  std::erase_if(stack_viewers_, [socket](const auto& entry) { return entry.second.get() == socket; });
}

void LiveViews::publish_stack(const std::string& stack_id, const std::string& frame) {
  std::vector<http::WebSocketPtr> viewers;
  {
    std::lock_guard lock(mutex_);
    auto [first, last] = stack_viewers_.equal_range(stack_id);
    for (auto it = first; it != last; ++it) viewers.push_back(it->second);
  }
  // Sent outside the lock: a send may close a slow viewer, whose on_close forgets it.
  for (const http::WebSocketPtr& viewer : viewers) viewer->send(frame);
}

void LiveViews::publish_fleet(const std::string& frame) {
  std::vector<http::WebSocketPtr> viewers;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [key, viewer] : fleet_viewers_) viewers.push_back(viewer);
  }
  for (const http::WebSocketPtr& viewer : viewers) viewer->send(frame);
}

size_t LiveViews::stack_viewers() const {
  std::lock_guard lock(mutex_);
  return stack_viewers_.size();
}

size_t LiveViews::fleet_viewers() const {
  std::lock_guard lock(mutex_);
  return fleet_viewers_.size();
}

bool LiveViews::watched(const std::string& stack_id) const {
  std::lock_guard lock(mutex_);
  return stack_viewers_.contains(stack_id);
}

}  // namespace sindri::broker
