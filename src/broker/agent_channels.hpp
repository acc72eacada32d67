#pragma once
// The agents connected to this broker over /internal/ws/agent: one socket
// per agent (a new one replaces the old), the notices pushed to them, and
// what GET /admin/ws/connections reports. Thread-safe.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "http/server.hpp"
#include "value/value.hpp"

namespace sindri::broker {

class AgentChannels {
 public:
  // Messages in (decoded frames from the agent) and out (frames sent), and
  // when the socket was registered (set once, by attach).
  struct Counters {
    std::atomic<uint64_t> in{0};
    std::atomic<uint64_t> out{0};
    std::string connected_since;
  };

  // Whether a socket's Authorization still names its agent: asked before
  // each push, so that a PAK rotated or an agent deleted through another
  // broker (or while its socket opened) hears nothing more.
  using PakCheck = std::function<bool(const std::string& authorization)>;
  explicit AgentChannels(PakCheck pak_still_valid);

  // Registers `socket` for `agent_id`, opened with `authorization`, closing
  // the socket it replaces.
  std::shared_ptr<Counters> attach(const std::string& agent_id, http::WebSocketPtr socket, std::string authorization);
  // Forgets `socket` if it is still the agent's (a replaced one is not).
  void detach(const std::string& agent_id, const http::WebSocket* socket);
  // Sends `frame` to those of `agent_ids` connected here whose PAK still
  // holds; closes (1008) the others.
  void push(const std::vector<std::string>& agent_ids, const std::string& frame);
  // Closes the agent's socket (its PAK rotated, the agent deleted).
  void close(const std::string& agent_id, uint16_t code, const std::string& reason);

  bool empty() const;
  size_t count() const;
  // Every agent connected here.
  std::vector<std::string> connected() const;
  // Those of `agent_ids` connected here.
  std::vector<std::string> connected_among(const std::vector<std::string>& agent_ids) const;
  // When the agent's socket here opened; nullopt when it has none here.
  std::optional<std::string> connected_since(std::string_view agent_id) const;
  // {connected_agents, connections: [{agent_id, connected_since, messages_in, messages_out}]}
  Value snapshot() const;

 private:
  struct Entry {
    http::WebSocketPtr socket;
    std::string connected_since;
    std::shared_ptr<Counters> counters;
    std::string authorization;
  };
  const PakCheck pak_still_valid_;
  mutable std::mutex mutex_;
  std::map<std::string, Entry, std::less<>> entries_;
};

// A frame of the channel: {"type": TYPE, "body": BODY}, as Brokkr's agents read it.
std::string channel_frame(std::string_view type, const Value& body);

}  // namespace sindri::broker
