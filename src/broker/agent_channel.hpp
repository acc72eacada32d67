#pragma once
// GET /internal/ws/agent, Brokkr's agent channel: after an agent PAK's
// upgrade, the broker pushes notices (agent_channels.hpp) and the agent
// sends frames {"type", "body"}. heartbeat, agent_event and agent_health are
// answered as the REST calls they stand for (POST /agents/{id}/heartbeat,
// POST /agents/{id}/events, PATCH /agents/{id}/health-status): the same
// checks and webhooks, under the PAK the socket was opened with, so that a
// revoked PAK stops the socket too. k8s_event, pod_log_line and log_gap are
// telemetry (agent_telemetry.hpp). A refusal comes back as a frame
// {"type": "error", "body": {"in_reply_to", "status", "error"}} (Brokkr's
// agents log a type they do not know and go on). Frames that break the protocol
// close the socket with a code saying how: 1007 not a JSON frame of that
// shape, 1003 a type the broker does not take, 1008 a frame about another
// agent or a refused PAK.

#include <functional>
#include <memory>
#include <string>

#include "broker/context.hpp"
#include "http/server.hpp"

namespace sindri::broker {

inline constexpr std::string_view kAgentChannelPath = "/internal/ws/agent";

struct AgentChannelContext {
  const Services& services;
  // Answers an API request as if it had come over HTTP (Broker::handle).
  std::function<http::Response(http::Request&)> dispatch;
};

// The socket's handler for agent `agent_id`, whose upgrade request was `upgrade`.
std::shared_ptr<http::WebSocketHandler> agent_channel_handler(AgentChannelContext context, std::string agent_id,
                                                              const http::Request& upgrade);

}  // namespace sindri::broker
