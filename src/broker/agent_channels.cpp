#include "broker/agent_channels.hpp"

#include "value/json.hpp"
#include "value/object_literal.hpp"
#include "value/rfc3339.hpp"

namespace sindri::broker {

AgentChannels::AgentChannels(PakCheck pak_still_valid) : pak_still_valid_(std::move(pak_still_valid)) {}

std::shared_ptr<AgentChannels::Counters> AgentChannels::attach(const std::string& agent_id, http::WebSocketPtr socket,
                                                               std::string authorization) {
  auto counters = std::make_shared<Counters>();
  counters->connected_since = rfc3339::now();
  http::WebSocketPtr replaced;
  {
    std::lock_guard lock(mutex_);
    Entry& entry = entries_[agent_id];
    replaced = std::move(entry.socket);
    entry = Entry{std::move(socket), counters->connected_since, counters, std::move(authorization)};
  }
  if (replaced) replaced->close(1000, "replaced by a newer connection of the same agent");
  return counters;
}

void AgentChannels::detach(const std::string& agent_id, const http::WebSocket* socket) {
  std::lock_guard lock(mutex_);
  auto found = entries_.find(agent_id);
  if (found != entries_.end() && found->second.socket.get() == socket) entries_.erase(found);
}

void AgentChannels::push(const std::vector<std::string>& agent_ids, const std::string& frame) {
  std::vector<std::pair<std::string, Entry>> targets;
  {
    std::lock_guard lock(mutex_);
    for (const std::string& agent_id : agent_ids) {
      auto found = entries_.find(agent_id);
      if (found != entries_.end()) targets.emplace_back(agent_id, found->second);
    }
  }
  for (auto& [agent_id, entry] : targets) {
    if (!pak_still_valid_(entry.authorization)) {
      detach(agent_id, entry.socket.get());
      entry.socket->close(1008, "the agent's PAK was refused");
      continue;
    }
    if (entry.socket->send(frame)) entry.counters->out.fetch_add(1, std::memory_order_relaxed);
  }
}

void AgentChannels::close(const std::string& agent_id, uint16_t code, const std::string& reason) {
  http::WebSocketPtr socket;
  {
    std::lock_guard lock(mutex_);
    auto found = entries_.find(agent_id);
    if (found == entries_.end()) return;
    socket = std::move(found->second.socket);
    entries_.erase(found);
  }
  socket->close(code, reason);
}

std::vector<std::string> AgentChannels::connected_among(const std::vector<std::string>& agent_ids) const {
  std::vector<std::string> connected;
  std::lock_guard lock(mutex_);
  for (const std::string& agent_id : agent_ids) {
    if (entries_.find(agent_id) != entries_.end()) connected.push_back(agent_id);
  }
  return connected;
}

bool AgentChannels::empty() const {
  std::lock_guard lock(mutex_);
  return entries_.empty();
}

std::vector<std::string> AgentChannels::connected() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> agent_ids;
  for (const auto& [agent_id, entry] : entries_) agent_ids.push_back(agent_id);
  return agent_ids;
}

size_t AgentChannels::count() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

std::optional<std::string> AgentChannels::connected_since(std::string_view agent_id) const {
  std::lock_guard lock(mutex_);
  auto found = entries_.find(agent_id);
  if (found == entries_.end()) return std::nullopt;
  return found->second.connected_since;
}

Value AgentChannels::snapshot() const {
  Array connections;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [agent_id, entry] : entries_) {
      connections.push_back(make_object(
          {{"agent_id", Value(agent_id)},
           {"connected_since", Value(entry.connected_since)},
           {"messages_in", Value(static_cast<int64_t>(entry.counters->in.load(std::memory_order_relaxed)))},
           {"messages_out", Value(static_cast<int64_t>(entry.counters->out.load(std::memory_order_relaxed)))}}));
    }
  }
  const auto count = static_cast<int64_t>(connections.size());
  return make_object({{"connected_agents", Value(count)}, {"connections", Value(std::move(connections))}});
}

std::string channel_frame(std::string_view type, const Value& body) {
  return to_json(make_object({{"type", Value(type)}, {"body", body}}));
}

}  // namespace sindri::broker
