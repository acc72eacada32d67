// On-demand diagnostics, black box over HTTP on both databases: an admin
// asks an agent, that agent (and no other) claims once and answers once;
// bad input and identities the operations leave out.

#include "broker_process.hpp"

namespace sindri_test {
namespace {

using sindri::Value;

const std::string kUnknownId = "00000000-0000-4000-8000-000000000000";
const std::string kResult =
    R"({"pod_statuses":"[{\"name\":\"web\"}]","events":"[]","log_tails":null,"collected_at":"2026-01-02T03:04:05Z"})";

class Diagnostics : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    broker_ = std::make_unique<BrokerProcess>(GetParam());
    if (!broker_->usable()) GTEST_FAIL() << "no database for this backend";
    broker_->start();
    admin_ = broker_->client(broker_->admin_pak());
    Reply generator = call(*admin_, "POST", "/api/v1/generators", R"({"name":"g"})");
    ASSERT_EQ(generator.status, 201) << generator.body;
    const std::string generator_id = text_of(*generator.json.find("generator"), "id");
    generator_ = broker_->client(text_of(generator.json, "pak"));
    Reply stack = call(*admin_, "POST", "/api/v1/stacks", R"({"name":"s","generator_id":")" + generator_id + R"("})");
    ASSERT_EQ(stack.status, 201) << stack.body;
    Reply object = call(*admin_, "POST", "/api/v1/stacks/" + text_of(stack.json, "id") + "/deployment-objects",
                        R"({"yaml_content":"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"})");
    ASSERT_EQ(object.status, 201) << object.body;
    object_id_ = text_of(object.json, "id");
    for (const char* name : {"a1", "a2"}) {
      Reply agent = call(*admin_, "POST", "/api/v1/agents", std::string(R"({"name":")") + name + R"(","cluster_name":"c"})");
      ASSERT_EQ(agent.status, 201) << agent.body;
      agent_ids_.push_back(text_of(*agent.json.find("agent"), "id"));
      agents_.push_back(broker_->client(text_of(agent.json, "initial_pak")));
    }
  }

  std::string requests_path() const { return "/api/v1/deployment-objects/" + object_id_ + "/diagnostics"; }
  Reply request_for(size_t agent, const std::string& extra = "") {
    return call(*admin_, "POST", requests_path(), R"({"agent_id":")" + agent_ids_[agent] + "\"" + extra + "}");
  }
  size_t pending_count(size_t agent) {
    Reply pending = call(*agents_[agent], "GET", "/api/v1/agents/" + agent_ids_[agent] + "/diagnostics/pending");
    EXPECT_EQ(pending.status, 200) << pending.body;
    return pending.json.size();
  }

  std::unique_ptr<BrokerProcess> broker_;
  std::unique_ptr<sindri::http::Client> admin_;
  std::unique_ptr<sindri::http::Client> generator_;
  std::string object_id_;
  std::vector<std::string> agent_ids_;
  std::vector<std::unique_ptr<sindri::http::Client>> agents_;
};

TEST_P(Diagnostics, TheAgentClaimsOnceAndAnswersOnce) {
  Reply created = request_for(0, R"(,"requested_by":"ops@example.com","retention_minutes":30)");
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string id = text_of(created.json, "id");
  EXPECT_EQ(text_of(created.json, "status"), "pending");
  EXPECT_EQ(text_of(created.json, "agent_id"), agent_ids_[0]);
  EXPECT_EQ(text_of(created.json, "deployment_object_id"), object_id_);
  EXPECT_EQ(text_of(created.json, "requested_by"), "ops@example.com");
  EXPECT_GT(text_of(created.json, "expires_at"), text_of(created.json, "created_at"));
  EXPECT_TRUE(created.json.find("claimed_at")->is_null());

  EXPECT_EQ(pending_count(0), 1u);
  EXPECT_EQ(pending_count(1), 0u);
  const std::string base = "/api/v1/diagnostics/" + id;
  Reply early = call(*agents_[0], "POST", base + "/result", kResult);
  EXPECT_EQ(early.status, 409) << early.body;
  EXPECT_EQ(text_of(early.json, "code"), "diagnostic_not_claimed");

  Reply claimed = call(*agents_[0], "POST", base + "/claim");
  ASSERT_EQ(claimed.status, 200) << claimed.body;
  EXPECT_EQ(text_of(claimed.json, "status"), "claimed");
  EXPECT_FALSE(text_of(claimed.json, "claimed_at").empty());
  Reply twice = call(*agents_[0], "POST", base + "/claim");
  EXPECT_EQ(twice.status, 409) << twice.body;
  EXPECT_EQ(text_of(twice.json, "code"), "diagnostic_already_claimed");
  EXPECT_EQ(pending_count(0), 0u);

  Reply waiting = call(*admin_, "GET", base);
  ASSERT_EQ(waiting.status, 200) << waiting.body;
  EXPECT_EQ(waiting.json.find("result"), nullptr) << waiting.body;

  Reply stored = call(*agents_[0], "POST", base + "/result", kResult);
  ASSERT_EQ(stored.status, 201) << stored.body;
  EXPECT_EQ(text_of(stored.json, "request_id"), id);
  EXPECT_EQ(text_of(stored.json, "pod_statuses"), R"([{"name":"web"}])");
  EXPECT_TRUE(stored.json.find("log_tails")->is_null());
  Reply again = call(*agents_[0], "POST", base + "/result", kResult);
  EXPECT_EQ(again.status, 409) << again.body;
  EXPECT_EQ(text_of(again.json, "code"), "diagnostic_not_claimed");

  for (auto* client : {admin_.get(), agents_[0].get()}) {
    Reply shown = call(*client, "GET", base);
    ASSERT_EQ(shown.status, 200) << shown.body;
    EXPECT_EQ(text_of(*shown.json.find("request"), "status"), "completed");
    EXPECT_FALSE(text_of(*shown.json.find("request"), "completed_at").empty());
    ASSERT_NE(shown.json.find("result"), nullptr) << shown.body;
    EXPECT_EQ(text_of(*shown.json.find("result"), "id"), text_of(stored.json, "id"));
  }
}

TEST_P(Diagnostics, OnlyTheAgentItIsForTouchesIt) {
  Reply created = request_for(0);
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string base = "/api/v1/diagnostics/" + text_of(created.json, "id");
  for (const auto& [method, path, body] : {std::tuple<std::string, std::string, std::string>{"GET", base, ""},
                                           {"POST", base + "/claim", ""},
                                           {"POST", base + "/result", kResult}}) {
    Reply reply = call(*agents_[1], method, path, body);
    EXPECT_EQ(reply.status, 403) << method << " " << path << " -> " << reply.body;
    EXPECT_EQ(text_of(reply.json, "code"), "diagnostic_not_owned") << reply.body;
  }
  Reply others = call(*agents_[1], "GET", "/api/v1/agents/" + agent_ids_[0] + "/diagnostics/pending");
  EXPECT_EQ(others.status, 403);
  EXPECT_EQ(text_of(others.json, "code"), "agent_pak_mismatch");
  // Identity kinds brokkr-v1.json leaves out.
  EXPECT_EQ(call(*agents_[0], "POST", requests_path(), R"({"agent_id":")" + agent_ids_[0] + "\"}").status, 403);
  EXPECT_EQ(call(*generator_, "POST", requests_path(), R"({"agent_id":")" + agent_ids_[0] + "\"}").status, 403);
  EXPECT_EQ(call(*generator_, "GET", base).status, 403);
  EXPECT_EQ(call(*admin_, "POST", base + "/claim").status, 403);
  EXPECT_EQ(call(*admin_, "POST", base + "/result", kResult).status, 403);
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/agents/" + agent_ids_[0] + "/diagnostics/pending").status, 403);
  EXPECT_EQ(call(*broker_->client(""), "GET", base).status, 401);
  EXPECT_EQ(pending_count(0), 1u);
}

TEST_P(Diagnostics, BadInputIsAClientErrorNamingTheField) {
  const std::string agent = R"({"agent_id":")" + agent_ids_[0] + "\"";
  const std::pair<std::string, std::string> requests[] = {
      {agent + R"(,"retention_minutes":0})", "/retention_minutes"},
      {agent + R"(,"retention_minutes":1441})", "/retention_minutes"},
      {agent + R"(,"retention_minutes":"60"})", "/retention_minutes"},
      {agent + R"(,"requested_by":7})", "/requested_by"},
      {agent + R"(,"requested_by":")" + std::string(256, 'r') + "\"}", "/requested_by"},
      {agent + R"(,"colour":"red"})", "/colour"},
      {R"({"agent_id":"nope"})", "/agent_id"},
      {R"({})", "/agent_id"},
  };
  for (const auto& [body, pointer] : requests) {
    Reply reply = call(*admin_, "POST", requests_path(), body);
    EXPECT_EQ(reply.status, 400) << body << " -> " << reply.body;
    const Value* details = reply.json.find("details");
    EXPECT_TRUE(details != nullptr && text_of(*details, "pointer") == pointer) << body << " -> " << reply.body;
  }
  EXPECT_EQ(request_for(0, R"(,"retention_minutes":1440)").status, 201);
  Reply no_agent = call(*admin_, "POST", requests_path(), R"({"agent_id":")" + kUnknownId + "\"}");
  EXPECT_EQ(no_agent.status, 404);
  EXPECT_EQ(text_of(no_agent.json, "code"), "agent_not_found");
  Reply no_object = call(*admin_, "POST", "/api/v1/deployment-objects/" + kUnknownId + "/diagnostics",
                         R"({"agent_id":")" + agent_ids_[0] + "\"}");
  EXPECT_EQ(no_object.status, 404);
  EXPECT_EQ(text_of(no_object.json, "code"), "deployment_object_not_found");
  EXPECT_EQ(call(*admin_, "POST", "/api/v1/deployment-objects/x/diagnostics", agent + "}").status, 400);
  Reply unknown = call(*admin_, "GET", "/api/v1/diagnostics/" + kUnknownId);
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(text_of(unknown.json, "code"), "diagnostic_not_found");
  EXPECT_EQ(call(*agents_[0], "POST", "/api/v1/diagnostics/" + kUnknownId + "/claim").status, 404);

  Reply created = request_for(0);
  const std::string base = "/api/v1/diagnostics/" + text_of(created.json, "id");
  ASSERT_EQ(call(*agents_[0], "POST", base + "/claim").status, 200);
  const std::pair<std::string, std::string> results[] = {
      {R"({"pod_statuses":"","events":"[]","collected_at":"2026-01-02T03:04:05Z"})", "/pod_statuses"},
      {R"({"pod_statuses":"[]","collected_at":"2026-01-02T03:04:05Z"})", "/events"},
      {R"({"pod_statuses":"[]","events":[],"collected_at":"2026-01-02T03:04:05Z"})", "/events"},
      {R"({"pod_statuses":"[]","events":"[]","collected_at":"yesterday"})", "/collected_at"},
      {R"({"pod_statuses":"[]","events":"[]","collected_at":"2026-01-02 03:04:05"})", "/collected_at"},
      {R"({"pod_statuses":"[]","events":"[]"})", "/collected_at"},
  };
  for (const auto& [body, pointer] : results) {
    Reply reply = call(*agents_[0], "POST", base + "/result", body);
    EXPECT_EQ(reply.status, 400) << body << " -> " << reply.body;
    const Value* details = reply.json.find("details");
    EXPECT_TRUE(details != nullptr && text_of(*details, "pointer") == pointer) << body << " -> " << reply.body;
  }
  Reply offset = call(*agents_[0], "POST", base + "/result",
                      R"({"pod_statuses":"[]","events":"[]","collected_at":"2026-01-02T03:04:05.5+02:00"})");
  ASSERT_EQ(offset.status, 201) << offset.body;
  // Stored in UTC in the broker's fixed width, as every timestamp.
  EXPECT_EQ(text_of(offset.json, "collected_at"), "2026-01-02T01:04:05.500000Z");
}

INSTANTIATE_TEST_SUITE_P(Backends, Diagnostics, ::testing::Values(Backend::Sqlite, Backend::Postgres), backend_name);

}  // namespace
}  // namespace sindri_test
