// Registrations of agents with generators, black box over HTTP on both
// databases: who registers whom, what each identity may see, and that
// GET /agents answers a generator with the agents registered with it.

#include <set>

#include "broker_process.hpp"

namespace sindri_test {
namespace {

using sindri::Value;

std::set<std::string> ids_of(const Value& items, std::string_view key = "id") {
  std::set<std::string> ids;
  if (!items.is_array()) return ids;
  for (const Value& item : items.get_array()) ids.insert(text_of(item, key));
  return ids;
}

class Registrations : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    broker_ = std::make_unique<BrokerProcess>(GetParam());
    if (!broker_->usable()) GTEST_FAIL() << "no database for this backend";
    broker_->start();
    admin_ = broker_->client(broker_->admin_pak());
    for (const char* name : {"one", "two"}) {
      Reply generator = call(*admin_, "POST", "/api/v1/generators", std::string(R"({"name":")") + name + R"("})");
      ASSERT_EQ(generator.status, 201) << generator.body;
      generator_ids_.push_back(text_of(*generator.json.find("generator"), "id"));
      generators_.push_back(broker_->client(text_of(generator.json, "pak")));
    }
    // The first agent is registered with generator one when it is created;
    // the second with no generator of its own.
    Reply first = call(*admin_, "POST", "/api/v1/agents",
                       R"({"name":"a1","cluster_name":"c","generator_ids":[")" + generator_ids_[0] + R"("]})");
    ASSERT_EQ(first.status, 201) << first.body;
    Reply second = call(*admin_, "POST", "/api/v1/agents", R"({"name":"a2","cluster_name":"c"})");
    ASSERT_EQ(second.status, 201) << second.body;
    for (const Reply* agent : {&first, &second}) {
      agent_ids_.push_back(text_of(*agent->json.find("agent"), "id"));
      agents_.push_back(broker_->client(text_of(agent->json, "initial_pak")));
    }
  }

  std::string register_path(size_t generator) const {
    return "/api/v1/generators/" + generator_ids_[generator] + "/register";
  }

  std::unique_ptr<BrokerProcess> broker_;
  std::unique_ptr<sindri::http::Client> admin_;
  std::vector<std::string> generator_ids_;
  std::vector<std::unique_ptr<sindri::http::Client>> generators_;
  std::vector<std::string> agent_ids_;
  std::vector<std::unique_ptr<sindri::http::Client>> agents_;
};

TEST_P(Registrations, GeneratorsListOnlyTheAgentsRegisteredWithThem) {
  Reply all = call(*admin_, "GET", "/api/v1/agents");
  ASSERT_EQ(all.status, 200) << all.body;
  EXPECT_EQ(ids_of(all.json), (std::set<std::string>{agent_ids_[0], agent_ids_[1]}));
  Reply one = call(*generators_[0], "GET", "/api/v1/agents");
  ASSERT_EQ(one.status, 200) << one.body;
  EXPECT_EQ(ids_of(one.json), std::set<std::string>{agent_ids_[0]});
  Reply two = call(*generators_[1], "GET", "/api/v1/agents");
  ASSERT_EQ(two.status, 200) << two.body;
  EXPECT_TRUE(ids_of(two.json).empty()) << two.body;
}

TEST_P(Registrations, AnAgentRegistersItselfAndAnAdminAnyAgent) {
  // The agent registers itself: no body, the PAK says who.
  Reply registered = call(*agents_[1], "POST", register_path(1));
  ASSERT_EQ(registered.status, 201) << registered.body;
  EXPECT_EQ(text_of(registered.json, "agent_id"), agent_ids_[1]);
  EXPECT_EQ(text_of(registered.json, "generator_id"), generator_ids_[1]);
  EXPECT_EQ(text_of(registered.json, "id").size(), 36u) << registered.body;
  EXPECT_FALSE(text_of(registered.json, "registered_at").empty()) << registered.body;
  EXPECT_EQ(call(*agents_[1], "POST", register_path(1)).status, 409);
  Reply seen = call(*generators_[1], "GET", "/api/v1/agents");
  EXPECT_EQ(ids_of(seen.json), std::set<std::string>{agent_ids_[1]}) << seen.body;

  // An admin names the agent; without it, the field is missing.
  Reply by_admin = call(*admin_, "POST", register_path(1), R"({"agent_id":")" + agent_ids_[0] + R"("})");
  ASSERT_EQ(by_admin.status, 201) << by_admin.body;
  Reply nameless = call(*admin_, "POST", register_path(1));
  EXPECT_EQ(nameless.status, 400) << nameless.body;
  EXPECT_NE(nameless.body.find("/agent_id"), std::string::npos) << nameless.body;

  Reply listed = call(*generators_[1], "GET", "/api/v1/generators/" + generator_ids_[1] + "/registered-agents");
  ASSERT_EQ(listed.status, 200) << listed.body;
  EXPECT_EQ(ids_of(listed.json, "agent_id"), (std::set<std::string>{agent_ids_[0], agent_ids_[1]}));
  EXPECT_EQ(ids_of(listed.json), (std::set<std::string>{text_of(registered.json, "id"), text_of(by_admin.json, "id")}));

  // The agent's own registrations hold the system generator's, from its creation.
  Reply own = call(*agents_[1], "GET", "/api/v1/agents/" + agent_ids_[1] + "/registrations");
  ASSERT_EQ(own.status, 200) << own.body;
  const std::set<std::string> own_generators = ids_of(own.json, "generator_id");
  EXPECT_EQ(own_generators.size(), 2u) << own.body;
  EXPECT_EQ(own_generators.count(generator_ids_[1]), 1u) << own.body;

  // Deregistering ends it; a second time there is nothing to end.
  EXPECT_EQ(call(*agents_[1], "DELETE", register_path(1)).status, 204);
  Reply gone = call(*agents_[1], "DELETE", register_path(1));
  EXPECT_EQ(gone.status, 404) << gone.body;
  EXPECT_EQ(text_of(gone.json, "code"), "registration_not_found");
  EXPECT_EQ(ids_of(call(*generators_[1], "GET", "/api/v1/agents").json), std::set<std::string>{agent_ids_[0]});
}

TEST_P(Registrations, NobodyReachesAnotherIdentitysRegistrations) {
  // An agent registers only itself; a generator registers nobody.
  Reply other = call(*agents_[1], "POST", register_path(1), R"({"agent_id":")" + agent_ids_[0] + R"("})");
  EXPECT_EQ(other.status, 403) << other.body;
  EXPECT_EQ(call(*generators_[1], "POST", register_path(1)).status, 403);
  EXPECT_EQ(call(*agents_[0], "DELETE", register_path(1), R"({"agent_id":")" + agent_ids_[1] + R"("})").status, 403);
  // Each lists only its own.
  EXPECT_EQ(call(*generators_[0], "GET", "/api/v1/generators/" + generator_ids_[1] + "/registered-agents").status, 403);
  EXPECT_EQ(call(*agents_[0], "GET", "/api/v1/agents/" + agent_ids_[1] + "/registrations").status, 403);
  EXPECT_EQ(call(*agents_[0], "GET", "/api/v1/generators/" + generator_ids_[0] + "/registered-agents").status, 403);
  // Unknown generators and agents are not found.
  const std::string unknown = "00000000-0000-4000-8000-000000000000";
  Reply no_generator = call(*agents_[0], "POST", "/api/v1/generators/" + unknown + "/register");
  EXPECT_EQ(no_generator.status, 404) << no_generator.body;
  Reply no_agent = call(*admin_, "POST", register_path(0), R"({"agent_id":")" + unknown + R"("})");
  EXPECT_EQ(no_agent.status, 404) << no_agent.body;
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/agents/" + unknown + "/registrations").status, 404);
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/generators/" + unknown + "/registered-agents").status, 404);
  // A deleted agent is no longer listed as registered.
  ASSERT_EQ(call(*admin_, "DELETE", "/api/v1/agents/" + agent_ids_[0]).status, 204);
  Reply after = call(*admin_, "GET", "/api/v1/generators/" + generator_ids_[0] + "/registered-agents");
  ASSERT_EQ(after.status, 200) << after.body;
  EXPECT_TRUE(ids_of(after.json).empty()) << after.body;
  EXPECT_TRUE(ids_of(call(*generators_[0], "GET", "/api/v1/agents").json).empty());
}

// A generator points its stacks only at agents that registered with it; an
// admin at any agent.
TEST_P(Registrations, AGeneratorTargetsOnlyAgentsRegisteredWithIt) {
  Reply stack = call(*generators_[0], "POST", "/api/v1/stacks",
                     R"({"name":"s","generator_id":")" + generator_ids_[0] + R"("})");
  ASSERT_EQ(stack.status, 201) << stack.body;
  const std::string target = R"({"stack_id":")" + text_of(stack.json, "id") + R"("})";
  Reply foreign = call(*generators_[0], "POST", "/api/v1/agents/" + agent_ids_[1] + "/targets", target);
  EXPECT_EQ(foreign.status, 403) << foreign.body;
  EXPECT_NE(text_of(foreign.json, "message").find("not registered"), std::string::npos) << foreign.body;
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/agents/" + agent_ids_[1] + "/targets").json.size(), 0u);

  EXPECT_EQ(call(*generators_[0], "POST", "/api/v1/agents/" + agent_ids_[0] + "/targets", target).status, 201);
  ASSERT_EQ(call(*agents_[1], "POST", register_path(0)).status, 201);
  EXPECT_EQ(call(*generators_[0], "POST", "/api/v1/agents/" + agent_ids_[1] + "/targets", target).status, 201);
  EXPECT_EQ(call(*agents_[1], "GET", "/api/v1/agents/" + agent_ids_[1] + "/targets").json.size(), 1u);

  // Deregistering takes the generator's hand-made targets away with it.
  ASSERT_EQ(call(*agents_[1], "DELETE", register_path(0)).status, 204);
  EXPECT_EQ(call(*agents_[1], "GET", "/api/v1/agents/" + agent_ids_[1] + "/targets").json.size(), 0u);
  EXPECT_EQ(call(*agents_[0], "GET", "/api/v1/agents/" + agent_ids_[0] + "/targets").json.size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Backends, Registrations, ::testing::Values(Backend::Sqlite, Backend::Postgres), backend_name);

}  // namespace
}  // namespace sindri_test
