// The agent channel (/internal/ws/agent) against a running broker, with the
// project's WebSocket client: who may open it, the notices pushed after a
// change made over REST, frames stored as their REST counterparts, bad
// frames closed with a code, and a rotated PAK closing the socket.

#include <cstdio>
#include <string>

#include "channel_fixture.hpp"

namespace sindri_test {
namespace {

class AgentChannel : public ::testing::Test, public ChannelFixture {
 protected:
  void SetUp() override { start(Backend::Sqlite); }
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

TEST_F(AgentChannel, LabelChangesWorkOrdersAndDeregistrationsArePushedToo) {
  auto socket = open_agent();
  ASSERT_NE(socket, nullptr);
  // The stack and the agent come to share a label: the engine targets it.
  ASSERT_EQ(call(*admin_, "POST", "/api/v1/agents/" + agent_id_ + "/labels", R"("env=prod")").status, 201);
  ASSERT_EQ(call(*generator_, "POST", "/api/v1/stacks/" + stack_id_ + "/labels", R"("env=prod")").status, 201);
  Value matched = next_frame(*socket);
  EXPECT_EQ(text_of(matched, "type"), "target_changed") << to_json(matched);
  EXPECT_EQ(text_of(*matched.find("body"), "stack_id"), stack_id_);
  // And no longer: the target the engine drops is pushed too.
  ASSERT_EQ(call(*admin_, "DELETE", "/api/v1/agents/" + agent_id_ + "/labels/env=prod").status, 204);
  Value dropped = next_frame(*socket);
  EXPECT_EQ(text_of(dropped, "type"), "target_changed") << to_json(dropped);
  EXPECT_EQ(text_of(*dropped.find("body"), "stack_id"), stack_id_);

  // A work order naming the agent, and one matching it by label.
  Reply named = call(*admin_, "POST", "/api/v1/work-orders",
                     R"({"work_type":"build","yaml_content":"kind: Build\n","targeting":{"agent_ids":[")" +
                         agent_id_ + R"("]}})");
  ASSERT_EQ(named.status, 201) << named.body;
  Value order = next_frame(*socket);
  EXPECT_EQ(text_of(order, "type"), "work_order") << to_json(order);
  EXPECT_EQ(text_of(*order.find("body"), "id"), text_of(named.json, "id"));
  ASSERT_EQ(call(*admin_, "POST", "/api/v1/agents/" + agent_id_ + "/labels", R"("gpu")").status, 201);
  Reply labelled = call(*admin_, "POST", "/api/v1/work-orders",
                        R"({"work_type":"build","yaml_content":"kind: Build\n","targeting":{"labels":["gpu"]}})");
  ASSERT_EQ(labelled.status, 201) << labelled.body;
  Value by_label = next_frame(*socket);
  EXPECT_EQ(text_of(*by_label.find("body"), "id"), text_of(labelled.json, "id")) << to_json(by_label);

  // Deregistered from a generator: a target_changed naming no one target.
  ASSERT_EQ(call(*admin_, "POST", "/api/v1/generators/" + generator_id_ + "/register",
                 R"({"agent_id":")" + agent_id_ + "\"}").status,
            201);
  ASSERT_EQ(call(*admin_, "DELETE", "/api/v1/generators/" + generator_id_ + "/register",
                 R"({"agent_id":")" + agent_id_ + "\"}").status,
            204);
  Value deregistered = next_frame(*socket);
  EXPECT_EQ(text_of(deregistered, "type"), "target_changed") << to_json(deregistered);
  EXPECT_EQ(text_of(*deregistered.find("body"), "stack_id"), "00000000-0000-0000-0000-000000000000");
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
