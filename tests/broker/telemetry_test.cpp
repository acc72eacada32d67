// A stack's telemetry windows, black box over HTTP on both databases: with
// nothing streamed, each window is empty, in Brokkr's shape with its
// retention record; the stack's owner and admins read it, and bad
// parameters are named (live_view_test.cpp streams and reads rows).

#include "broker_process.hpp"

namespace sindri_test {
namespace {

using sindri::Value;

class Telemetry : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    broker_ = std::make_unique<BrokerProcess>(GetParam());
    if (!broker_->usable()) GTEST_FAIL() << "no database for this backend";
    broker_->start();
    admin_ = broker_->client(broker_->admin_pak());
    for (const char* name : {"owner", "other"}) {
      Reply generator = call(*admin_, "POST", "/api/v1/generators", std::string(R"({"name":")") + name + "\"}");
      ASSERT_EQ(generator.status, 201) << generator.body;
      generators_.push_back(broker_->client(text_of(generator.json, "pak")));
      generator_ids_.push_back(text_of(*generator.json.find("generator"), "id"));
    }
    Reply stack = call(*generators_[0], "POST", "/api/v1/stacks", R"({"name":"s"})");
    ASSERT_EQ(stack.status, 201) << stack.body;
    stack_id_ = text_of(stack.json, "id");
  }

  std::unique_ptr<BrokerProcess> broker_;
  std::unique_ptr<sindri::http::Client> admin_;
  std::vector<std::unique_ptr<sindri::http::Client>> generators_;
  std::vector<std::string> generator_ids_;
  std::string stack_id_;
};

TEST_P(Telemetry, EmptyWindowsCarryTheRetentionRecord) {
  for (const auto& [path, rows] : {std::pair<std::string, std::string>{"/events", "events"}, {"/logs", "lines"}}) {
    for (auto* client : {admin_.get(), generators_[0].get()}) {
      Reply reply =
          call(*client, "GET", "/api/v1/stacks/" + stack_id_ + path + "?since=2026-01-01T00:00:00Z&limit=10");
      ASSERT_EQ(reply.status, 200) << path << " -> " << reply.body;
      ASSERT_NE(reply.json.find(rows), nullptr) << reply.body;
      EXPECT_TRUE(reply.json.find(rows)->is_array());
      EXPECT_EQ(reply.json.find(rows)->size(), 0u);
      const Value& retention = *reply.json.find("retention");
      EXPECT_EQ(retention.find("retention_ceiling_seconds")->get_int(), 21600);
      EXPECT_LE(retention.find("effective_retention_seconds")->get_int(), 21600);
      EXPECT_TRUE(retention.find("oldest_available_ts")->is_null());
      EXPECT_FALSE(text_of(retention, "long_term_sink_hint").empty());
    }
    // A limit past the cap is capped, not refused.
    EXPECT_EQ(call(*admin_, "GET", "/api/v1/stacks/" + stack_id_ + path + "?limit=100000").status, 200);
  }
}

TEST_P(Telemetry, OnlyTheOwnerAndAdminsRead) {
  const std::string events = "/api/v1/stacks/" + stack_id_ + "/events";
  Reply other = call(*generators_[1], "GET", events);
  EXPECT_EQ(other.status, 403) << other.body;
  Reply agent = call(*admin_, "POST", "/api/v1/agents", R"({"name":"a","cluster_name":"c"})");
  ASSERT_EQ(agent.status, 201) << agent.body;
  EXPECT_EQ(call(*broker_->client(text_of(agent.json, "initial_pak")), "GET", events).status, 403);
  EXPECT_EQ(call(*broker_->client(""), "GET", events).status, 401);
  Reply unknown = call(*admin_, "GET", "/api/v1/stacks/00000000-0000-4000-8000-000000000000/logs");
  EXPECT_EQ(unknown.status, 404) << unknown.body;
  EXPECT_EQ(text_of(unknown.json, "code"), "stack_not_found");
  ASSERT_EQ(call(*admin_, "DELETE", "/api/v1/stacks/" + stack_id_).status, 204);
  EXPECT_EQ(call(*admin_, "GET", events).status, 404);
}

TEST_P(Telemetry, BadParametersAreNamed) {
  for (const std::string& query : {std::string("since=an-hour-ago"), std::string("since=2026-01-01"),
                                   std::string("limit=0"), std::string("limit=-5"), std::string("limit=many")}) {
    Reply reply = call(*admin_, "GET", "/api/v1/stacks/" + stack_id_ + "/logs?" + query);
    EXPECT_EQ(reply.status, 400) << query << " -> " << reply.body;
    EXPECT_NE(reply.body.find(query.substr(0, query.find('='))), std::string::npos) << reply.body;
  }
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/stacks/not-a-stack/events").status, 400);
}

INSTANTIATE_TEST_SUITE_P(Backends, Telemetry, ::testing::Values(Backend::Sqlite, Backend::Postgres), backend_name);

}  // namespace
}  // namespace sindri_test
