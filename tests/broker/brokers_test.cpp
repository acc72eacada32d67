// Several brokers on one PostgreSQL database: a change made through any of
// them reaches the agents and viewers connected to the others (NOTIFY and
// LISTEN), a notice too large for a NOTIFY included, and a broker whose
// listening connection was cut asks its agents to poll, and its viewers to
// open their views again, once it listens again.

#include <string>
#include <vector>

#include "channel_fixture.hpp"

namespace sindri_test {
namespace {

class Brokers : public ::testing::Test, public ChannelFixture {
 protected:
  // Three brokers: broker_ (A, the fixture's) and B and C beside it.
  void SetUp() override {
    start(Backend::Postgres, {"--notices-reconnect-interval", "0.2"});
    if (HasFatalFailure()) return;
    for (int i = 0; i < 2; ++i) {
      others_.push_back(std::make_unique<BrokerProcess>(*broker_, BrokerProcess::SharedDatabase{}));
      others_.back()->start({"--notices-reconnect-interval", "0.2"});
    }
    // Each listens from its start, and reads every second whether others
    // share the database; wait until all three listen and know of the rest.
    for (auto* broker : {broker_.get(), others_[0].get(), others_[1].get()}) {
      for (int i = 0; i < 500 && (metric(*broker, "sindri_notices_listening") != 1 ||
                                  metric(*broker, "sindri_notices_other_brokers") != 1);
           ++i) {
        std::this_thread::sleep_for(10ms);
      }
    }
  }

  static int64_t metric(BrokerProcess& broker, const std::string& name) {
    Reply metrics = call(*broker.client(""), "GET", "/metrics");
    const size_t at = metrics.body.find("\n" + name + " ");
    return at == std::string::npos ? -1 : std::stoll(metrics.body.substr(at + name.size() + 2));
  }
  BrokerProcess& b() { return *others_[0]; }
  BrokerProcess& c() { return *others_[1]; }

  std::vector<std::unique_ptr<BrokerProcess>> others_;
};

TEST_F(Brokers, AChangeMadeThroughOneBrokerIsPushedToAnAgentOnAnother) {
  auto agent = open_agent();  // on A
  ASSERT_NE(agent, nullptr);
  auto admin_on_c = c().client(broker_->admin_pak());
  Reply target = call(*admin_on_c, "POST", "/api/v1/agents/" + agent_id_ + "/targets",
                      R"({"stack_id":")" + stack_id_ + "\"}");
  ASSERT_EQ(target.status, 201) << target.body;
  Value pushed = next_frame(*agent);
  EXPECT_EQ(text_of(pushed, "type"), "target_changed") << to_json(pushed);
  EXPECT_EQ(text_of(*pushed.find("body"), "stack_id"), stack_id_);

  auto generator_on_c = c().client(generator_pak_);
  Reply object = call(*generator_on_c, "POST", "/api/v1/stacks/" + stack_id_ + "/deployment-objects",
                      R"({"yaml_content":"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-c\n"})");
  ASSERT_EQ(object.status, 201) << object.body;
  Value changed = next_frame(*agent);
  EXPECT_EQ(text_of(changed, "type"), "stack_changed") << to_json(changed);
  // What the push asks for is there on A at once: A read its counters afresh.
  Reply state = call(*broker_->client(agent_pak_), "GET", "/api/v1/agents/" + agent_id_ + "/target-state");
  EXPECT_NE(state.body.find("from-c"), std::string::npos) << state.body;
}

TEST_F(Brokers, ViewersOnOneBrokerSeeWhatAnAgentOnAnotherStreamsAndLargeObjects) {
  target_stack();
  WebSocketClientOptions options;
  options.headers = {{"Authorization", "Bearer " + generator_pak_}};
  WebSocketEnd failure;
  auto view = WebSocketClient::connect(
      "ws://127.0.0.1:" + std::to_string(b().port()) + "/api/v1/stacks/" + stack_id_ + "/live", options, failure);
  ASSERT_NE(view, nullptr) << failure.message;
  for (int i = 0; i < 500 && metric(b(), "sindri_ws_stack_viewers") != 1; ++i) std::this_thread::sleep_for(10ms);
  auto agent = open_agent();  // on A
  ASSERT_NE(agent, nullptr);
  ASSERT_TRUE(agent->send(R"({"type":"pod_log_line","body":{"agent_id":")" + agent_id_ + R"(","stack_id":")" +
                          stack_id_ + R"(","namespace":"n","pod":"p","container":"c","ts":"2026-11-27T10:00:00Z",)"
                          R"("line":"from the agent on A"}})"));
  Value line = next_frame(*view);
  EXPECT_EQ(text_of(line, "type"), "pod_log_line") << to_json(line);
  EXPECT_EQ(text_of(*line.find("body"), "line"), "from the agent on A");

  // Larger than a NOTIFY carries: through the broker_notices table.
  const std::string large(20000, 'x');
  auto generator_on_c = c().client(generator_pak_);
  Reply object = call(*generator_on_c, "POST", "/api/v1/stacks/" + stack_id_ + "/deployment-objects",
                      R"({"yaml_content":"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  x: )" +
                          large + "\\n\"}");
  ASSERT_EQ(object.status, 201) << object.body;
  Value shown = next_frame(*view);
  EXPECT_EQ(text_of(shown, "type"), "deployment_object") << to_json(shown).substr(0, 300);
  EXPECT_NE(text_of(*shown.find("body"), "yaml_content").find(large), std::string::npos);
}

TEST_F(Brokers, EveryBrokersFleetSaysAnAgentIsConnectedToAnother) {
  WebSocketClientOptions options;
  options.headers = {{"Authorization", "Bearer " + broker_->admin_pak()}};
  WebSocketEnd failure;
  auto view = WebSocketClient::connect("ws://127.0.0.1:" + std::to_string(b().port()) + "/api/v1/fleet/live", options,
                                       failure);
  ASSERT_NE(view, nullptr) << failure.message;
  for (int i = 0; i < 500 && metric(b(), "sindri_ws_fleet_viewers") != 1; ++i) std::this_thread::sleep_for(10ms);
  auto agent = open_agent();  // on A
  ASSERT_NE(agent, nullptr);
  Value update = next_frame(*view);
  EXPECT_EQ(text_of(update, "type"), "fleet_update") << to_json(update);
  EXPECT_TRUE(update.find("body")->find("ws_connected")->get_bool()) << to_json(update);
  for (BrokerProcess* broker : {&b(), &c()}) {
    Reply fleet = call(*broker->client(broker_->admin_pak()), "GET", "/api/v1/fleet");
    ASSERT_EQ(fleet.status, 200) << fleet.body;
    EXPECT_TRUE(fleet.json.at(0)->find("ws_connected")->get_bool()) << fleet.body;
    EXPECT_FALSE(fleet.json.at(0)->find("connected_since")->is_null()) << fleet.body;
  }
  agent->close();
  Value gone = next_frame(*view);
  EXPECT_FALSE(gone.find("body")->find("ws_connected")->get_bool()) << to_json(gone);
  Reply fleet = call(*c().client(broker_->admin_pak()), "GET", "/api/v1/fleet");
  EXPECT_FALSE(fleet.json.at(0)->find("ws_connected")->get_bool()) << fleet.body;
}

TEST_F(Brokers, APakRotatedThroughOneBrokerClosesTheSocketOnAnother) {
  auto agent = open_agent();  // on A
  ASSERT_NE(agent, nullptr);
  Reply rotated = call(*b().client(broker_->admin_pak()), "POST", "/api/v1/agents/" + agent_id_ + "/rotate-pak");
  ASSERT_EQ(rotated.status, 200) << rotated.body;
  EXPECT_EQ(close_code(*agent), 1008);
}

TEST_F(Brokers, ABrokerThatLostItsListenerAsksItsAgentsToPollOnceItListensAgain) {
  auto agent = open_agent();  // on A
  ASSERT_NE(agent, nullptr);
  WebSocketClientOptions options;
  options.headers = {{"Authorization", "Bearer " + generator_pak_}};
  WebSocketEnd failure;
  auto view = WebSocketClient::connect(url("/api/v1/stacks/" + stack_id_ + "/live"), options, failure);
  ASSERT_NE(view, nullptr) << failure.message;
  // Cut the three brokers' listening connections (their tenant schema's
  // channel), A's among them.
  ASSERT_TRUE(run_on_postgres_server(broker_->database(),
                                     "DO $$ BEGIN PERFORM pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = "
                                     "'LISTEN \"sindri_notices_" + broker_->schema() + "\"'; END $$"));
  Value nudged;
  for (int i = 0; i < 20 && nudged.is_null(); ++i) nudged = next_frame(*agent);
  EXPECT_EQ(text_of(nudged, "type"), "target_changed") << to_json(nudged);
  EXPECT_EQ(text_of(*nudged.find("body"), "agent_id"), agent_id_);
  EXPECT_GE(metric(*broker_, "sindri_notices_listener_losses_total"), 1);
  // Its viewers may have missed frames: closed to read the history again.
  EXPECT_EQ(close_code(*view), 1012);
  EXPECT_EQ(metric(*broker_, "sindri_notices_listening"), 1);
  // And it hears the others again.
  Reply target = call(*c().client(broker_->admin_pak()), "POST", "/api/v1/agents/" + agent_id_ + "/targets",
                      R"({"stack_id":")" + stack_id_ + "\"}");
  ASSERT_EQ(target.status, 201) << target.body;
  Value pushed = next_frame(*agent);
  EXPECT_EQ(text_of(*pushed.find("body"), "stack_id"), stack_id_) << to_json(pushed);
}

}  // namespace
}  // namespace sindri_test
