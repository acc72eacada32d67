// The fleet view, black box over HTTP on both databases: each agent's record
// follows what the broker sees (heartbeats, pending objects, events, health
// reports); the detail view adds the newest events; only admins read it.

#include "broker_process.hpp"

namespace sindri_test {
namespace {

using sindri::Value;

const std::string kUnknownId = "00000000-0000-4000-8000-000000000000";

class Fleet : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    broker_ = std::make_unique<BrokerProcess>(GetParam());
    if (!broker_->usable()) GTEST_FAIL() << "no database for this backend";
    broker_->start();
    admin_ = broker_->client(broker_->admin_pak());
    Reply generator = call(*admin_, "POST", "/api/v1/generators", R"({"name":"g"})");
    ASSERT_EQ(generator.status, 201) << generator.body;
    generator_ = broker_->client(text_of(generator.json, "pak"));
    generator_id_ = text_of(*generator.json.find("generator"), "id");
    // a0 is registered with the generator; a1 is not.
    for (const std::string& body : {R"({"name":"a0","cluster_name":"east","generator_ids":[")" + generator_id_ + "\"]}",
                                    std::string(R"({"name":"a1","cluster_name":"west"})")}) {
      Reply agent = call(*admin_, "POST", "/api/v1/agents", body);
      ASSERT_EQ(agent.status, 201) << agent.body;
      agent_ids_.push_back(text_of(*agent.json.find("agent"), "id"));
      agents_.push_back(broker_->client(text_of(agent.json, "initial_pak")));
    }
  }

  // The fleet record of agent `index` from GET /fleet.
  Value record_of(size_t index, const std::string& query = "") {
    Reply fleet = call(*admin_, "GET", "/api/v1/fleet" + query);
    EXPECT_EQ(fleet.status, 200) << fleet.body;
    if (!fleet.json.is_array()) return Value();
    for (const Value& record : fleet.json.get_array()) {
      if (text_of(record, "agent_id") == agent_ids_[index]) return record;
    }
    return Value();
  }

  std::string new_stack_with_object(const std::string& name) {
    Reply stack =
        call(*generator_, "POST", "/api/v1/stacks", R"({"name":")" + name + R"(","generator_id":")" + generator_id_ + "\"}");
    EXPECT_EQ(stack.status, 201) << stack.body;
    const std::string stack_id = text_of(stack.json, "id");
    Reply object = call(*generator_, "POST", "/api/v1/stacks/" + stack_id + "/deployment-objects",
                        R"({"yaml_content":"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: )" + name + "\\n\"}");
    EXPECT_EQ(object.status, 201) << object.body;
    Reply target =
        call(*admin_, "POST", "/api/v1/agents/" + agent_ids_[0] + "/targets", R"({"stack_id":")" + stack_id + "\"}");
    EXPECT_EQ(target.status, 201) << target.body;
    return text_of(object.json, "id");
  }

  Reply event(const std::string& object_id, const std::string& status) {
    return call(*agents_[0], "POST", "/api/v1/agents/" + agent_ids_[0] + "/events",
                R"({"deployment_object_id":")" + object_id + R"(","event_type":"DEPLOY","status":")" + status + "\"}");
  }

  std::unique_ptr<BrokerProcess> broker_;
  std::unique_ptr<sindri::http::Client> admin_, generator_;
  std::string generator_id_;
  std::vector<std::string> agent_ids_;
  std::vector<std::unique_ptr<sindri::http::Client>> agents_;
};

int64_t int_of(const Value& record, std::string_view key) {
  const Value* value = record.find(key);
  return value != nullptr && value->is_int() ? value->get_int() : -1;
}

bool is_null(const Value& record, std::string_view key) {
  const Value* value = record.find(key);
  return value != nullptr && value->is_null();
}

TEST_P(Fleet, ANewAgentHasMeasuredNothingYet) {
  const Value record = record_of(1);
  ASSERT_TRUE(record.is_object());
  EXPECT_EQ(text_of(record, "name"), "a1");
  EXPECT_EQ(text_of(record, "cluster_name"), "west");
  EXPECT_EQ(text_of(record, "status"), "ACTIVE");
  // No WebSocket channel yet: every agent polls.
  ASSERT_NE(record.find("ws_connected"), nullptr);
  EXPECT_FALSE(record.find("ws_connected")->get_bool());
  for (const char* key : {"connected_since", "last_heartbeat", "heartbeat_age_seconds", "last_event_at",
                          "seconds_since_last_event", "k8s_reachable", "k8s_api_latency_ms"}) {
    EXPECT_TRUE(is_null(record, key)) << key;
  }
  for (const char* key :
       {"pending_object_count", "pending_work_orders", "claimed_work_orders", "health_failing", "health_degraded"}) {
    EXPECT_EQ(int_of(record, key), 0) << key;
  }
}

TEST_P(Fleet, RecordsFollowHeartbeatsObjectsEventsAndHealth) {
  const std::string first = new_stack_with_object("first");
  const std::string second = new_stack_with_object("second");
  EXPECT_EQ(int_of(record_of(0), "pending_object_count"), 2);

  Reply beat = call(*agents_[0], "POST", "/api/v1/agents/" + agent_ids_[0] + "/heartbeat",
                    R"({"k8s_reachable":false,"k8s_api_latency_ms":42})");
  ASSERT_LT(beat.status, 300) << beat.body;
  Value record = record_of(0);
  ASSERT_NE(record.find("k8s_reachable"), nullptr);
  ASSERT_TRUE(record.find("k8s_reachable")->is_bool()) << sindri::to_json(record);
  EXPECT_FALSE(record.find("k8s_reachable")->get_bool());
  EXPECT_EQ(int_of(record, "k8s_api_latency_ms"), 42);
  EXPECT_FALSE(text_of(record, "last_heartbeat").empty());
  EXPECT_GE(int_of(record, "heartbeat_age_seconds"), 0);

  // Applied is no longer pending; a failure still is.
  ASSERT_EQ(event(first, "SUCCESS").status, 201);
  ASSERT_EQ(event(second, "FAILURE").status, 201);
  record = record_of(0);
  EXPECT_EQ(int_of(record, "pending_object_count"), 1);
  EXPECT_FALSE(text_of(record, "last_event_at").empty());
  EXPECT_GE(int_of(record, "seconds_since_last_event"), 0);

  const std::string health = R"({"deployment_objects":[{"id":")" + first +
                             R"(","status":"failing","checked_at":"2026-01-02T03:04:05Z"},{"id":")" + second +
                             R"(","status":"degraded","checked_at":"2026-01-02T03:04:05Z"}]})";
  ASSERT_EQ(call(*agents_[0], "PATCH", "/api/v1/agents/" + agent_ids_[0] + "/health-status", health).status, 200);
  record = record_of(0);
  EXPECT_EQ(int_of(record, "health_failing"), 1);
  EXPECT_EQ(int_of(record, "health_degraded"), 1);
  // The other agent is untouched.
  EXPECT_EQ(int_of(record_of(1), "health_failing"), 0);
}

// Pending work orders are those the agent may claim (named, or sharing a
// label or an annotation); claimed ones, those it holds.
TEST_P(Fleet, WorkOrdersPendingForAndClaimedByEachAgent) {
  const std::string a0 = agent_ids_[0], a1 = agent_ids_[1];
  ASSERT_EQ(call(*admin_, "POST", "/api/v1/agents/" + a0 + "/labels", R"({"agent_id":")" + a0 + R"(","label":"gpu"})")
                .status,
            201);
  ASSERT_EQ(call(*admin_, "POST", "/api/v1/agents/" + a1 + "/annotations",
                 R"({"agent_id":")" + a1 + R"(","key":"zone","value":"eu"})")
                .status,
            201);
  std::vector<std::string> orders;
  for (const std::string& targeting :
       {std::string(R"({"labels":["gpu"]})"), std::string(R"({"annotations":{"zone":"eu"}})"),
        R"({"agent_ids":[")" + a0 + R"(",")" + a1 + R"("]})"}) {
    Reply order = call(*admin_, "POST", "/api/v1/work-orders",
                       R"({"work_type":"build","yaml_content":"kind: Job","targeting":)" + targeting + "}");
    ASSERT_EQ(order.status, 201) << order.body;
    orders.push_back(text_of(order.json, "id"));
  }
  EXPECT_EQ(int_of(record_of(0), "pending_work_orders"), 2);
  EXPECT_EQ(int_of(record_of(1), "pending_work_orders"), 2);
  Reply claimed = call(*agents_[0], "POST", "/api/v1/work-orders/" + orders[2] + "/claim",
                       R"({"agent_id":")" + a0 + "\"}");
  ASSERT_EQ(claimed.status, 200) << claimed.body;
  const Value record = record_of(0);
  EXPECT_EQ(int_of(record, "pending_work_orders"), 1);
  EXPECT_EQ(int_of(record, "claimed_work_orders"), 1);
  EXPECT_EQ(int_of(record_of(1), "pending_work_orders"), 1);
  EXPECT_EQ(int_of(record_of(1), "claimed_work_orders"), 0);
}

TEST_P(Fleet, PakIdScopesToAGeneratorsAgents) {
  Reply scoped = call(*admin_, "GET", "/api/v1/fleet?pak_id=" + generator_id_);
  ASSERT_EQ(scoped.status, 200) << scoped.body;
  ASSERT_EQ(scoped.json.size(), 1u) << scoped.body;
  EXPECT_EQ(text_of(*scoped.json.at(0), "agent_id"), agent_ids_[0]);
  Reply all = call(*admin_, "GET", "/api/v1/fleet");
  EXPECT_EQ(all.json.size(), 2u) << all.body;
  Reply nobody = call(*admin_, "GET", "/api/v1/fleet?pak_id=" + kUnknownId);
  ASSERT_EQ(nobody.status, 200) << nobody.body;
  EXPECT_EQ(nobody.json.size(), 0u);
  Reply bad = call(*admin_, "GET", "/api/v1/fleet?pak_id=generator-one");
  EXPECT_EQ(bad.status, 400) << bad.body;
  EXPECT_NE(bad.body.find("pak_id"), std::string::npos) << bad.body;
  // A deleted agent leaves the fleet.
  ASSERT_EQ(call(*admin_, "DELETE", "/api/v1/agents/" + agent_ids_[1]).status, 204);
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/fleet").json.size(), 1u);
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/agents/" + agent_ids_[1] + "/fleet-status").status, 404);
}

TEST_P(Fleet, FleetStatusAddsTheNewestTwentyEvents) {
  const std::string object = new_stack_with_object("s");
  for (int i = 0; i < 22; ++i) ASSERT_EQ(event(object, i == 21 ? "SUCCESS" : "IN_PROGRESS").status, 201);
  Reply status = call(*admin_, "GET", "/api/v1/agents/" + agent_ids_[0] + "/fleet-status");
  ASSERT_EQ(status.status, 200) << status.body;
  const Value& record = *status.json.find("record");
  EXPECT_EQ(text_of(record, "agent_id"), agent_ids_[0]);
  EXPECT_EQ(int_of(record, "pending_object_count"), 0);
  const Value& events = *status.json.find("recent_events");
  ASSERT_EQ(events.size(), 20u);
  EXPECT_EQ(text_of(*events.at(0), "status"), "SUCCESS");
  for (size_t i = 1; i < events.size(); ++i) {
    EXPECT_GE(text_of(*events.at(i - 1), "created_at"), text_of(*events.at(i), "created_at"));
  }
  Reply quiet = call(*admin_, "GET", "/api/v1/agents/" + agent_ids_[1] + "/fleet-status");
  ASSERT_EQ(quiet.status, 200) << quiet.body;
  EXPECT_EQ(quiet.json.find("recent_events")->size(), 0u);
}

TEST_P(Fleet, OnlyAdminsReadTheFleet) {
  EXPECT_EQ(call(*generator_, "GET", "/api/v1/fleet").status, 403);
  EXPECT_EQ(call(*agents_[0], "GET", "/api/v1/fleet").status, 403);
  EXPECT_EQ(call(*agents_[0], "GET", "/api/v1/agents/" + agent_ids_[0] + "/fleet-status").status, 403);
  EXPECT_EQ(call(*broker_->client(""), "GET", "/api/v1/fleet").status, 401);
  Reply unknown = call(*admin_, "GET", "/api/v1/agents/" + kUnknownId + "/fleet-status");
  EXPECT_EQ(unknown.status, 404) << unknown.body;
  EXPECT_EQ(text_of(unknown.json, "code"), "agent_not_found");
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/agents/x/fleet-status").status, 400);
}

INSTANTIATE_TEST_SUITE_P(Backends, Fleet, ::testing::Values(Backend::Sqlite, Backend::Postgres), backend_name);

}  // namespace
}  // namespace sindri_test
