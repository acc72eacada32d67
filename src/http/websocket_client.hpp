#pragma once
// A blocking WebSocket client on Boost.Beast, ws:// and wss://, for the
// agent's channel to its broker and the tests. Text messages only. One
// thread uses it at a time; pings from the server are answered while a
// read() waits, so a user that stops reading for longer than the server's
// idle timeout is disconnected.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/server.hpp"
#include "value/result.hpp"

namespace sindri::http {

struct WebSocketClientOptions {
  std::vector<Header> headers;  // sent with the upgrade (Authorization, Sec-WebSocket-Protocol)
  std::string ca_file;          // PEM certificates trusted besides the system's
  bool insecure_skip_verify = false;
  std::chrono::milliseconds connect_timeout{10000};  // connecting and both handshakes
  size_t max_message_bytes = 16 * 1024 * 1024;
};

// How a connection attempt or a connection ended.
struct WebSocketEnd {
  // The status of a refused upgrade (401, 403, 426, ...); 0 when it was not
  // refused with one (a transport failure, or a socket that ended).
  int refused_status = 0;
  // The close code the server sent; 1006 when it sent none (the connection
  // dropped); 0 before the upgrade.
  uint16_t close_code = 0;
  std::string message;  // what happened, for a log line: the URL, the status or code and reason
};

class WebSocketClient {
 public:
  // Connects and upgrades; on failure, why.
  static std::unique_ptr<WebSocketClient> connect(std::string_view url, const WebSocketClientOptions& options,
                                                  WebSocketEnd& failure);
  virtual ~WebSocketClient() = default;

  // The Sec-WebSocket-Protocol the server chose ("" for none).
  virtual const std::string& subprotocol() const = 0;
  // False once the connection has ended (ended() says how).
  virtual bool send(std::string_view message) = 0;
  // The next message; nullopt when none came within `timeout` or the
  // connection has ended (ended() then says so).
  virtual std::optional<std::string> read(std::chrono::milliseconds timeout) = 0;
  // Sends a close frame and waits (up to a second) for the server's.
  virtual void close(uint16_t code = 1000) = 0;
  virtual const std::optional<WebSocketEnd>& ended() const = 0;
};

}  // namespace sindri::http
