#pragma once
// A running broker with a generator, its stack and an agent, and the agent's
// channel opened with the project's WebSocket client: what the channel and
// live view tests share.

#include <chrono>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "broker_process.hpp"
#include "http/websocket_client.hpp"
#include "value/json.hpp"

namespace sindri_test {

using namespace std::chrono_literals;
using sindri::Value;
using sindri::to_json;
using sindri::http::WebSocketClient;
using sindri::http::WebSocketClientOptions;
using sindri::http::WebSocketEnd;

class ChannelFixture {
 protected:
  // A broker on `backend` (started with `flags`), a generator with a stack, and an agent.
  void start(Backend backend, const std::vector<std::string>& flags = {}) {
    broker_ = std::make_unique<BrokerProcess>(backend);
    if (!broker_->usable()) GTEST_FAIL() << "no database for this backend";
    broker_->start(flags);
    admin_ = broker_->client(broker_->admin_pak());
    Reply generator = call(*admin_, "POST", "/api/v1/generators", R"({"name":"g"})");
    ASSERT_EQ(generator.status, 201) << generator.body;
    generator_pak_ = text_of(generator.json, "pak");
    generator_ = broker_->client(generator_pak_);
    generator_id_ = text_of(*generator.json.find("generator"), "id");
    Reply stack = call(*generator_, "POST", "/api/v1/stacks", R"({"name":"s","generator_id":")" + generator_id_ + "\"}");
    ASSERT_EQ(stack.status, 201) << stack.body;
    stack_id_ = text_of(stack.json, "id");
    Reply agent = call(*admin_, "POST", "/api/v1/agents", R"({"name":"a","cluster_name":"c"})");
    ASSERT_EQ(agent.status, 201) << agent.body;
    agent_id_ = text_of(*agent.json.find("agent"), "id");
    agent_pak_ = text_of(agent.json, "initial_pak");
  }

  std::string url(const std::string& path = "/internal/ws/agent") const {
    return "ws://127.0.0.1:" + std::to_string(broker_->port()) + path;
  }

  std::unique_ptr<WebSocketClient> open(const std::string& pak, WebSocketEnd& failure) {
    WebSocketClientOptions options;
    if (!pak.empty()) options.headers = {{"Authorization", "Bearer " + pak}};
    return WebSocketClient::connect(url(), options, failure);
  }
  // Returns once the broker has registered the socket (after the 101 the
  // client reads first), so that a push made next reaches it.
  std::unique_ptr<WebSocketClient> open_agent() {
    const int64_t before = connections_since();
    WebSocketEnd failure;
    auto socket = open(agent_pak_, failure);
    EXPECT_NE(socket, nullptr) << failure.message;
    if (socket) wait_for_registration_after(before);
    return socket;
  }
  void wait_for_registration_after(int64_t before) {
    for (int i = 0; i < 500 && connections_since() == before; ++i) std::this_thread::sleep_for(10ms);
  }
  // How many sockets the broker has registered, replaced ones included.
  int64_t connections_since() {
    const Value snapshot = connections();
    const Value* list = snapshot.find("connections");
    if (list == nullptr || list->size() == 0) return 0;
    registered_.insert(text_of(*list->at(0), "connected_since"));
    return static_cast<int64_t>(registered_.size());
  }

  // The next frame, parsed; Null when none came within 5 s.
  static Value next_frame(WebSocketClient& socket) {
    const std::optional<std::string> text = socket.read(5s);
    if (!text) return Value();
    auto parsed = sindri::parse_json(*text);
    EXPECT_TRUE(parsed.ok()) << *text;
    return parsed.ok() ? std::move(parsed).value() : Value();
  }
  // The close code the broker ended the socket with (0: it did not, in 5 s).
  static int close_code(WebSocketClient& socket) {
    while (socket.read(5s)) {
    }
    return socket.ended() ? socket.ended()->close_code : 0;
  }

  std::string target_stack() {
    Reply target = call(*admin_, "POST", "/api/v1/agents/" + agent_id_ + "/targets",
                        R"({"stack_id":")" + stack_id_ + "\"}");
    EXPECT_EQ(target.status, 201) << target.body;
    return text_of(target.json, "id");
  }
  std::string create_object(const std::string& name) {
    Reply object = call(*generator_, "POST", "/api/v1/stacks/" + stack_id_ + "/deployment-objects",
                        R"({"yaml_content":"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: )" + name + "\\n\"}");
    EXPECT_EQ(object.status, 201) << object.body;
    return text_of(object.json, "id");
  }
  Value connections() {
    Reply reply = call(*admin_, "GET", "/api/v1/admin/ws/connections");
    EXPECT_EQ(reply.status, 200) << reply.body;
    return reply.json;
  }

  std::unique_ptr<BrokerProcess> broker_;
  std::unique_ptr<sindri::http::Client> admin_, generator_;
  std::string generator_pak_, generator_id_, stack_id_, agent_id_, agent_pak_;
  std::set<std::string> registered_;
};

}  // namespace sindri_test
