#include "broker/agent_channel.hpp"

#include <optional>
#include <utility>

#include "broker/agent_channels.hpp"
#include "broker/agent_telemetry.hpp"
#include "broker/api_error.hpp"
#include "broker/db/agent_connections.hpp"
#include "broker/pushes.hpp"
#include "value/json.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker {
namespace {

// Brokkr's agents send one object's event or health a frame; a frame
// larger than this closes the socket (1009).
constexpr size_t kMaxFrameBytes = 4 * 1024 * 1024;

// Frames the broker sends and never takes back.
bool is_broker_frame(std::string_view type) {
  return type == "work_order" || type == "target_changed" || type == "stack_changed" || type == "fleet_update";
}

// The fields of `body` named in `names` that it has and are not null, as an object.
Value present_fields(const Value& body, std::initializer_list<std::string_view> names) {
  Value fields = make_object({});
  for (std::string_view name : names) {
    const Value* field = body.find(name);
    if (field != nullptr && !field->is_null()) fields.set(name, *field);
  }
  return fields;
}

struct RestCall {
  std::string method;
  std::string path;
  Value body;
};

// Brokkr's agent sends a health summary as JSON text (a serialised
// object); the REST call takes the object.
Value summary_object(const Value& summary) {
  if (!summary.is_string()) return summary;
  auto parsed = parse_json(summary.get_string());
  return parsed.ok() ? std::move(parsed).value() : summary;
}

// The REST call a frame stands for (heartbeat, agent_event, agent_health).
RestCall rest_call_for(std::string_view type, const Value& body, const std::string& agent_id) {
  const std::string agent_path = "/api/v1/agents/" + agent_id;
  if (type == "heartbeat") {
    return {"POST", agent_path + "/heartbeat", present_fields(body, {"k8s_reachable", "k8s_api_latency_ms"})};
  }
  if (type == "agent_event") {
    return {"POST", agent_path + "/events",
            present_fields(body, {"deployment_object_id", "event_type", "status", "message"})};
  }
  Value report = present_fields(body, {"status", "checked_at"});
  if (const Value* object_id = body.find("deployment_object_id")) report.set("id", *object_id);
  if (const Value* summary = body.find("summary"); summary != nullptr && !summary->is_null()) {
    report.set("summary", summary_object(*summary));
  }
  return {"PATCH", agent_path + "/health-status", make_object({{"deployment_objects", Value(Array{std::move(report)})}})};
}

class Channel {
 public:
  Channel(AgentChannelContext context, std::string agent_id, const http::Request& upgrade)
      : context_(std::move(context)),
        agent_id_(std::move(agent_id)),
        authorization_(upgrade.header("Authorization")),
        user_agent_(upgrade.header("User-Agent")),
        remote_(upgrade.remote) {}

  void opened(const http::WebSocketPtr& socket) {
    counters_ = context_.services.agent_channels->attach(agent_id_, socket, authorization_);
    context_.services.log.info("agent channel opened", {{"agent_id", Value(agent_id_)}, {"remote", Value(remote_)}});
    share_connection(true);
    show_fleet_agent(context_.services, agent_id_);
  }

  void received(const http::WebSocketPtr& socket, const std::string& text) {
    auto parsed = parse_json(text);
    if (!parsed.ok()) return refuse(socket, 1007, "a frame is not JSON (" + parsed.error().describe() + ")");
    const Value& frame = parsed.value();
    const Value* type = frame.is_object() ? frame.find("type") : nullptr;
    const Value* body = frame.is_object() ? frame.find("body") : nullptr;
    if (type == nullptr || !type->is_string() || body == nullptr || !body->is_object()) {
      return refuse(socket, 1007, "a frame must be an object with a string \"type\" and an object \"body\"");
    }
    const std::string_view kind = type->get_string();
    if (is_broker_frame(kind)) return refuse(socket, 1003, std::string(kind) + " frames go from the broker to agents");
    const bool known = kind == "heartbeat" || kind == "agent_event" || kind == "agent_health";
    if (!known && !is_telemetry_frame(kind)) return refuse(socket, 1003, "unknown frame type \"" + std::string(kind) + "\"");
    if (const Value* about = body->find("agent_id"); about != nullptr && !about->is_null() && kind != "heartbeat" &&
                                                      (!about->is_string() || about->get_string() != agent_id_)) {
      return refuse(socket, 1008, std::string(kind) + " about another agent than this socket's");
    }
    counters_->in.fetch_add(1, std::memory_order_relaxed);
    if (!known) {
      auto taken = take_telemetry(context_.services, agent_id_, kind, *body);
      if (taken.ok()) return;
      const ApiError& error = taken.error();
      if (error.status >= 500) {
        context_.services.log.warn("agent telemetry not stored",
                                   {{"agent_id", Value(agent_id_)},
                                    {"type", Value(kind)},
                                    {"cause", Value(error.cause ? error.cause->message : error.message)}});
      }
      return reply_error(socket, kind, error.status, error_body(error));
    }
    answer(socket, kind, rest_call_for(kind, *body, agent_id_));
  }

  void closed(const http::WebSocketPtr& socket, uint16_t code) {
    context_.services.agent_channels->detach(agent_id_, socket.get());
    context_.services.log.info("agent channel closed",
                               {{"agent_id", Value(agent_id_)}, {"code", Value(int64_t{code})}});
    share_connection(false);
    show_fleet_agent(context_.services, agent_id_);
  }

 private:
  void answer(const http::WebSocketPtr& socket, std::string_view kind, RestCall call) {
    http::Request request;
    request.method = std::move(call.method);
    request.target = call.path;
    request.raw_path = call.path;
    request.path = std::move(call.path);
    request.headers = {{"Authorization", authorization_}, {"Content-Type", "application/json"}};
    if (!user_agent_.empty()) request.headers.push_back({"User-Agent", user_agent_});
    request.body = to_json(call.body);
    request.remote = remote_;
    http::Response response = context_.dispatch(request);
    // None of the three routes defers its answer; one that did would be
    // lost here, so it is the broker's error.
    if (response.later) {
      response = error_response(
          ApiError{500, "internal_error", "the broker deferred an answer the channel cannot wait for", Value(), {}});
    }
    if (response.status >= 200 && response.status < 300) return;
    if (response.status == 401) {
      context_.services.log.warn("agent channel closed: its PAK was refused", {{"agent_id", Value(agent_id_)}});
      return socket->close(1008, "the agent's PAK was refused");
    }
    auto error = parse_json(response.payload());
    reply_error(socket, kind, response.status,
                error.ok() ? std::move(error).value() : Value(std::string(response.payload())));
  }

  // Brokers sharing a database say whose socket is open where (db/agent_connections.hpp).
  void share_connection(bool open) {
    const Services& services = context_.services;
    if (!services.db.carries_notices()) return;
    auto shared = in_write<Ok>(services.db, [&](store::Connection& connection) {
      return open ? db::record_connection(connection, agent_id_, services.broker_id, counters_->connected_since)
                  : db::forget_connection(connection, agent_id_, services.broker_id, counters_->connected_since);
    });
    if (!shared.ok()) {
      services.log.warn("the agent's socket is not shared with other brokers",
                        {{"agent_id", Value(agent_id_)},
                         {"cause", Value(shared.error().cause ? shared.error().cause->message : shared.error().message)}});
    }
  }

  void reply_error(const http::WebSocketPtr& socket, std::string_view kind, int status, Value details) {
    if (socket->send(channel_frame("error", make_object({{"in_reply_to", Value(kind)},
                                                         {"status", Value(int64_t{status})},
                                                         {"error", std::move(details)}})))) {
      counters_->out.fetch_add(1, std::memory_order_relaxed);
    }
  }

  void refuse(const http::WebSocketPtr& socket, uint16_t code, const std::string& reason) {
    context_.services.log.warn("agent channel closed for a bad frame",
                      {{"agent_id", Value(agent_id_)}, {"code", Value(int64_t{code})}, {"reason", Value(reason)}});
    socket->close(code, reason);
  }

  AgentChannelContext context_;
  const std::string agent_id_;
  const std::string authorization_;
  const std::string user_agent_;
  const std::string remote_;
  std::shared_ptr<AgentChannels::Counters> counters_ = std::make_shared<AgentChannels::Counters>();
};

}  // namespace

std::shared_ptr<http::WebSocketHandler> agent_channel_handler(AgentChannelContext context, std::string agent_id,
                                                              const http::Request& upgrade) {
  auto channel = std::make_shared<Channel>(std::move(context), std::move(agent_id), upgrade);
  auto handler = std::make_shared<http::WebSocketHandler>();
  handler->max_message_bytes = kMaxFrameBytes;
  handler->on_open = [channel](const http::WebSocketPtr& socket) { channel->opened(socket); };
  handler->on_message = [channel](const http::WebSocketPtr& socket, std::string text) {
    channel->received(socket, text);
  };
  handler->on_close = [channel](const http::WebSocketPtr& socket, uint16_t code) { channel->closed(socket, code); };
  return handler;
}

}  // namespace sindri::broker
