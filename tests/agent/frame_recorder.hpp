#pragma once
// A WebSocket server standing in for the broker's agent channel
// (/internal/ws/agent) on loopback: it records every frame an agent sends,
// and can drop its sockets and refuse new ones, as a broker going away does.

#include <atomic>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "http/server.hpp"
#include "value/json.hpp"
#include "value/value.hpp"

namespace sindri_test {

class FrameRecorder {
 public:
  FrameRecorder()
      : server_(sindri::http::ServerOptions{}, [this](sindri::http::Request& request) { return handle(request); },
                [](int status, std::string_view, std::string_view message) {
                  sindri::http::Response response;
                  response.status = status;
                  response.content_type = "text/plain";
                  response.body = std::string(message);
                  return response;
                }) {
    if (!server_.start().ok()) throw std::runtime_error("the frame recorder cannot listen");
  }
  ~FrameRecorder() { server_.stop(); }
  FrameRecorder(const FrameRecorder&) = delete;
  FrameRecorder& operator=(const FrameRecorder&) = delete;

  std::string url() const { return "ws://127.0.0.1:" + std::to_string(server_.port()) + "/internal/ws/agent"; }

  // The frames received so far whose type is `type`, parsed, in order.
  std::vector<sindri::Value> frames(std::string_view type) const {
    std::lock_guard lock(mutex_);
    std::vector<sindri::Value> found;
    for (const std::string& text : frames_) {
      auto parsed = sindri::parse_json(text);
      if (!parsed.ok()) continue;
      const sindri::Value* kind = parsed->find("type");
      if (kind != nullptr && kind->is_string() && kind->get_string() == type) found.push_back(*parsed->find("body"));
    }
    return found;
  }
  std::vector<std::string> all_frames() const {
    std::lock_guard lock(mutex_);
    return frames_;
  }
  size_t open_sockets() const {
    std::lock_guard lock(mutex_);
    return sockets_.size();
  }

  // Closes every socket (1001) and answers `status` (503: try again; 401:
  // the PAK is refused) to new ones while down.
  void go_down(int status = 503) {
    refusal_ = status;
    down_ = true;
    std::vector<sindri::http::WebSocketPtr> sockets;
    {
      std::lock_guard lock(mutex_);
      sockets = sockets_;
    }
    for (const auto& socket : sockets) socket->close(1001, "going away");
  }
  void come_back() { down_ = false; }

 private:
  sindri::http::Response handle(sindri::http::Request& request) {
    sindri::http::Response response;
    if (request.path != "/internal/ws/agent" || !request.wants_websocket()) {
      response.status = 404;
      return response;
    }
    if (down_) {
      response.status = refusal_;
      return response;
    }
    auto handler = std::make_shared<sindri::http::WebSocketHandler>();
    handler->on_open = [this](const sindri::http::WebSocketPtr& socket) {
      std::lock_guard lock(mutex_);
      sockets_.push_back(socket);
    };
    handler->on_message = [this](const sindri::http::WebSocketPtr&, std::string message) {
      std::lock_guard lock(mutex_);
      frames_.push_back(std::move(message));
    };
    handler->on_close = [this](const sindri::http::WebSocketPtr& socket, uint16_t) {
      std::lock_guard lock(mutex_);
      std::erase(sockets_, socket);
    };
    response.websocket = std::move(handler);
    return response;
  }

  mutable std::mutex mutex_;
  std::vector<std::string> frames_;
  std::vector<sindri::http::WebSocketPtr> sockets_;
  std::atomic<bool> down_{false};
  std::atomic<int> refusal_{503};
  sindri::http::Server server_;  // last: stopped before what its handlers use goes
};

}  // namespace sindri_test
