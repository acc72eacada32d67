// The agent channel (/internal/ws/agent) against a running broker, with the
// project's WebSocket client: who may open it, the notices pushed after a
// change made over REST, frames stored as their REST counterparts, bad
// frames closed with a code, and a rotated PAK closing the socket.

#include <chrono>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include "broker_process.hpp"
#include "http/websocket_client.hpp"
#include "value/json.hpp"

namespace sindri_test {
namespace {

using namespace std::chrono_literals;
using sindri::Value;
using sindri::http::WebSocketClient;
using sindri::http::WebSocketClientOptions;
using sindri::http::WebSocketEnd;

class AgentChannel : public ::testing::Test {
 protected:
  void SetUp() override {
    broker_ = std::make_unique<BrokerProcess>(Backend::Sqlite);
    broker_->start();
    admin_ = broker_->client(broker_->admin_pak());
    Reply generator = call(*admin_, "POST", "/api/v1/generators", R"({"name":"g"})");
    ASSERT_EQ(generator.status, 201) << generator.body;
    generator_pak_ = text_of(generator.json, "pak");
    generator_ = broker_->client(generator_pak_);
    const std::string generator_id = text_of(*generator.json.find("generator"), "id");
    Reply stack = call(*generator_, "POST", "/api/v1/stacks", R"({"name":"s","generator_id":")" + generator_id + "\"}");
    ASSERT_EQ(stack.status, 201) << stack.body;
    stack_id_ = text_of(stack.json, "id");
    Reply agent = call(*admin_, "POST", "/api/v1/agents", R"({"name":"a","cluster_name":"c"})");
    ASSERT_EQ(agent.status, 201) << agent.body;
    agent_id_ = text_of(*agent.json.find("agent"), "id");
    agent_pak_ = text_of(agent.json, "initial_pak");
  }

  std::string url() const { return "ws://127.0.0.1:" + std::to_string(broker_->port()) + "/internal/ws/agent"; }

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
  std::string generator_pak_, stack_id_, agent_id_, agent_pak_;
  std::set<std::string> registered_;
};

TEST_F(AgentChannel, OnlyAnAgentPakOpensItAndTheRefusalComesBeforeTheUpgrade) {
  WebSocketEnd failure;
  EXPECT_EQ(open("", failure), nullptr);
  EXPECT_EQ(failure.refused_status, 401) << failure.message;
  EXPECT_EQ(open("not-a-pak", failure), nullptr);
  EXPECT_EQ(failure.refused_status, 401) << failure.message;
  EXPECT_EQ(open(generator_pak_, failure), nullptr);
  EXPECT_EQ(failure.refused_status, 403) << failure.message;
  EXPECT_NE(failure.message.find("agent_pak_required"), std::string::npos) << failure.message;
  EXPECT_EQ(open(broker_->admin_pak(), failure), nullptr);
  EXPECT_EQ(failure.refused_status, 403) << failure.message;

  auto agent_http = broker_->client(agent_pak_);
  Reply plain = call(*agent_http, "GET", "/internal/ws/agent");
  EXPECT_EQ(plain.status, 426) << plain.body;
  Reply post = call(*agent_http, "POST", "/internal/ws/agent", "{}");
  EXPECT_EQ(post.status, 405) << post.body;
  EXPECT_EQ(post.header_allow, "GET");
}

TEST_F(AgentChannel, AChangeMadeOverRestIsPushedToTheAgent) {
  auto socket = open_agent();
  ASSERT_NE(socket, nullptr);
  const std::string target_id = target_stack();
  Value target = next_frame(*socket);
  ASSERT_TRUE(target.is_object());
  EXPECT_EQ(text_of(target, "type"), "target_changed");
  EXPECT_EQ(text_of(*target.find("body"), "id"), target_id);
  EXPECT_EQ(text_of(*target.find("body"), "stack_id"), stack_id_);

  create_object("one");
  Value stack = next_frame(*socket);
  ASSERT_TRUE(stack.is_object());
  EXPECT_EQ(text_of(stack, "type"), "stack_changed");
  EXPECT_EQ(text_of(*stack.find("body"), "id"), stack_id_);
  EXPECT_EQ(text_of(*stack.find("body"), "name"), "s");

  // Deleting the stack: its deletion marker is pushed too.
  Reply deleted = call(*generator_, "DELETE", "/api/v1/stacks/" + stack_id_);
  ASSERT_EQ(deleted.status, 204) << deleted.body;
  Value removal = next_frame(*socket);
  ASSERT_TRUE(removal.is_object());
  EXPECT_EQ(text_of(removal, "type"), "stack_changed");
  EXPECT_EQ(text_of(*removal.find("body"), "id"), stack_id_);
  EXPECT_FALSE(removal.find("body")->find("deleted_at")->is_null());

  Value snapshot = connections();
  EXPECT_EQ(snapshot.find("connected_agents")->get_int(), 1);
  const Value& connection = *snapshot.find("connections")->at(0);
  EXPECT_EQ(text_of(connection, "agent_id"), agent_id_);
  EXPECT_EQ(connection.find("messages_out")->get_int(), 3);
  Reply fleet = call(*admin_, "GET", "/api/v1/fleet");
  ASSERT_EQ(fleet.status, 200) << fleet.body;
  EXPECT_TRUE(fleet.json.at(0)->find("ws_connected")->get_bool()) << fleet.body;

  socket->close();
  for (int i = 0; i < 500 && connections().find("connected_agents")->get_int() != 0; ++i) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(connections().find("connected_agents")->get_int(), 0);
}

TEST_F(AgentChannel, FramesAreStoredAsTheirRestCallsAndARefusalComesBackAsAnErrorFrame) {
  target_stack();
  const std::string object_id = create_object("one");
  auto socket = open_agent();
  ASSERT_NE(socket, nullptr);
  ASSERT_TRUE(socket->send(R"({"type":"heartbeat","body":{"agent_id":")" + agent_id_ +
                           R"(","sent_at":"2026-01-01T00:00:00Z","k8s_reachable":true,"k8s_api_latency_ms":12}})"));
  ASSERT_TRUE(socket->send(R"({"type":"agent_event","body":{"id":"00000000-0000-0000-0000-000000000000",)"
                           R"("agent_id":")" + agent_id_ + R"(","deployment_object_id":")" + object_id +
                           R"(","event_type":"DEPLOY","status":"SUCCESS","message":"applied"}})"));
  ASSERT_TRUE(socket->send(R"({"type":"agent_health","body":{"agent_id":")" + agent_id_ +
                           R"(","deployment_object_id":")" + object_id +
                           R"(","status":"healthy","checked_at":"2026-01-01T00:00:00Z",)"
                           R"("summary":"{\"pods_ready\":1,\"pods_total\":1,\"conditions\":[],\"resources\":[]}"}})"));
  // An object of no targeted stack: refused as the REST call is, in a frame.
  ASSERT_TRUE(socket->send(R"({"type":"agent_event","body":{"agent_id":")" + agent_id_ +
                           R"(","deployment_object_id":"00000000-0000-4000-8000-000000000000",)"
                           R"("event_type":"DEPLOY","status":"SUCCESS","message":"x"}})"));
  Value error = next_frame(*socket);
  ASSERT_TRUE(error.is_object());
  EXPECT_EQ(text_of(error, "type"), "error");
  EXPECT_EQ(text_of(*error.find("body"), "in_reply_to"), "agent_event");
  EXPECT_EQ(error.find("body")->find("status")->get_int(), 403);

  Reply fleet = call(*admin_, "GET", "/api/v1/agents/" + agent_id_ + "/fleet-status");
  ASSERT_EQ(fleet.status, 200) << fleet.body;
  const Value& record = *fleet.json.find("record");
  EXPECT_TRUE(record.find("k8s_reachable")->get_bool()) << fleet.body;
  EXPECT_EQ(record.find("k8s_api_latency_ms")->get_int(), 12) << fleet.body;
  EXPECT_FALSE(record.find("last_heartbeat")->is_null()) << fleet.body;
  Reply events = call(*admin_, "GET", "/api/v1/agents/" + agent_id_ + "/events");
  ASSERT_EQ(events.status, 200) << events.body;
  ASSERT_EQ(events.json.size(), 1u) << events.body;
  EXPECT_EQ(text_of(*events.json.at(0), "message"), "applied");
  Reply health = call(*admin_, "GET", "/api/v1/deployment-objects/" + object_id + "/health");
  ASSERT_EQ(health.status, 200) << health.body;
  EXPECT_EQ(text_of(health.json, "overall_status"), "healthy") << health.body;
  EXPECT_EQ(connections().find("connections")->at(0)->find("messages_in")->get_int(), 4);
}

TEST_F(AgentChannel, AFrameThatBreaksTheProtocolClosesTheSocketWithACodeSayingHow) {
  const std::pair<std::string, int> cases[] = {
      {"not json", 1007},
      {R"({"type":"heartbeat"})", 1007},
      {R"({"type":"exploded","body":{}})", 1003},
      {R"({"type":"stack_changed","body":{}})", 1003},
      {R"({"type":"agent_event","body":{"agent_id":"00000000-0000-4000-8000-000000000000"}})", 1008},
  };
  for (const auto& [frame, code] : cases) {
    auto socket = open_agent();
    ASSERT_NE(socket, nullptr);
    ASSERT_TRUE(socket->send(frame));
    EXPECT_EQ(close_code(*socket), code) << frame;
  }
  EXPECT_NE(broker_->log().find("agent channel closed for a bad frame"), std::string::npos);
  // The broker goes on.
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/agents").status, 200);
}

TEST_F(AgentChannel, ARotatedPakOrANewerSocketClosesTheOldOne) {
  auto first = open_agent();
  ASSERT_NE(first, nullptr);
  auto second = open_agent();
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(close_code(*first), 1000);
  Reply rotated = call(*admin_, "POST", "/api/v1/agents/" + agent_id_ + "/rotate-pak");
  ASSERT_EQ(rotated.status, 200) << rotated.body;
  EXPECT_EQ(close_code(*second), 1008);
  WebSocketEnd failure;
  EXPECT_EQ(open(agent_pak_, failure), nullptr);
  EXPECT_EQ(failure.refused_status, 401) << failure.message;
}

// Python's websockets, an implementation of its own, against the channel.
TEST_F(AgentChannel, AnIndependentClientIsPushedAndClosedAsOurs) {
  const std::string command = std::string(SINDRI_PYTHON3) + " " SINDRI_SOURCE_DIR "/tests/broker/agent_channel_client.py " +
                              url() + " " + agent_pak_ + " 2>&1";
  FILE* client = popen(command.c_str(), "r");
  ASSERT_NE(client, nullptr);
  auto next_line = [&] {
    char line[512] = {};
    if (fgets(line, sizeof line, client) == nullptr) return std::string("(end)");
    std::string text(line);
    while (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
  };
  const int64_t before = connections_since();
  const std::string opened = next_line();
  // "open" follows the client's reading of the 101; the broker registers
  // the socket after writing it, so wait for that before the push.
  if (opened == "open") {
    wait_for_registration_after(before);
    target_stack();
  }
  const std::string frame = next_line();
  const std::string closed = next_line();
  pclose(client);
  EXPECT_EQ(opened, "open");
  EXPECT_EQ(frame, "frame target_changed " + stack_id_);
  EXPECT_EQ(closed, "closed 1007");
}

}  // namespace
}  // namespace sindri_test
