// Seed 002's deployment flow, black box over HTTP, on both databases.

#include "broker_process.hpp"
#include "store/database.hpp"
#include "value/digest.hpp"

namespace sindri_test {
namespace {

using sindri::Value;

constexpr const char* kManifest =
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  greeting: hello\n";

class DeploymentFlow : public ::testing::TestWithParam<Backend> {};

// The admin makes a generator "ci" and a stack "web" it owns.
void create_generator_and_stack(sindri::http::Client& admin, std::string& generator_id, std::string& stack_id) {
  Reply generator = call(admin, "POST", "/api/v1/generators", R"({"name":"ci"})");
  ASSERT_EQ(generator.status, 201) << generator.body;
  generator_id = text_of(*generator.json.find("generator"), "id");
  Reply stack = call(admin, "POST", "/api/v1/stacks", R"({"name":"web","generator_id":")" + generator_id + R"("})");
  ASSERT_EQ(stack.status, 201) << stack.body;
  stack_id = text_of(stack.json, "id");
}

TEST_P(DeploymentFlow, MatchingAgentsSeeTheStackAndOthersDoNot) {
  BrokerProcess broker(GetParam());
  if (!broker.usable()) return;
  broker.start();
  auto admin = broker.client(broker.admin_pak());

  // Who am I: the admin.
  Reply me = call(*admin, "POST", "/api/v1/auth/pak");
  ASSERT_EQ(me.status, 200) << me.body;
  EXPECT_TRUE(me.json.find("admin")->get_bool());

  // A generator (a CI pipeline) with its own PAK.
  Reply generator = call(*admin, "POST", "/api/v1/generators", R"({"name":"ci","description":"pipeline"})");
  ASSERT_EQ(generator.status, 201) << generator.body;
  const std::string generator_id = text_of(*generator.json.find("generator"), "id");
  auto ci = broker.client(text_of(generator.json, "pak"));

  // The generator creates a stack for itself and labels it.
  Reply stack = call(*ci, "POST", "/api/v1/stacks", R"({"name":"web","generator_id":")" + generator_id + R"("})");
  ASSERT_EQ(stack.status, 201) << stack.body;
  const std::string stack_id = text_of(stack.json, "id");
  ASSERT_EQ(call(*ci, "POST", "/api/v1/stacks/" + stack_id + "/labels", R"("env=prod")").status, 201);
  Reply annotation = call(*ci, "POST", "/api/v1/stacks/" + stack_id + "/annotations",
                          R"({"stack_id":")" + stack_id + R"(","key":"region","value":"eu"})");
  ASSERT_EQ(annotation.status, 201) << annotation.body;

  // Two agents: one carries the stack's label and annotation, one does not.
  Reply matching = call(*admin, "POST", "/api/v1/agents", R"({"name":"a1","cluster_name":"prod-eu"})");
  ASSERT_EQ(matching.status, 201) << matching.body;
  const std::string matching_id = text_of(*matching.json.find("agent"), "id");
  auto agent = broker.client(text_of(matching.json, "initial_pak"));
  Reply other = call(*admin, "POST", "/api/v1/agents", R"({"name":"a2","cluster_name":"dev"})");
  ASSERT_EQ(other.status, 201) << other.body;
  const std::string other_id = text_of(*other.json.find("agent"), "id");
  auto other_agent = broker.client(text_of(other.json, "initial_pak"));

  ASSERT_EQ(call(*admin, "POST", "/api/v1/agents/" + matching_id + "/labels",
                 R"({"agent_id":")" + matching_id + R"(","label":"env=prod"})").status, 201);
  ASSERT_EQ(call(*admin, "POST", "/api/v1/agents/" + matching_id + "/annotations",
                 R"({"agent_id":")" + matching_id + R"(","key":"region","value":"eu"})").status, 201);
  ASSERT_EQ(call(*admin, "POST", "/api/v1/agents/" + other_id + "/labels",
                 R"({"agent_id":")" + other_id + R"(","label":"env=dev"})").status, 201);

  // The matching engine targeted the first agent only.
  Reply targets = call(*agent, "GET", "/api/v1/agents/" + matching_id + "/targets");
  ASSERT_EQ(targets.status, 200) << targets.body;
  ASSERT_EQ(targets.json.size(), 1u);
  EXPECT_EQ(text_of(*targets.json.at(0), "stack_id"), stack_id);
  EXPECT_EQ(call(*other_agent, "GET", "/api/v1/agents/" + other_id + "/targets").json.size(), 0u);

  // A deployment object in the stack.
  Reply object = call(*ci, "POST", "/api/v1/stacks/" + stack_id + "/deployment-objects",
                      R"({"yaml_content":)" + json_string(kManifest) + "}");
  ASSERT_EQ(object.status, 201) << object.body;
  const std::string object_id = text_of(object.json, "id");
  EXPECT_EQ(text_of(object.json, "yaml_checksum"), sindri::sha256_hex(kManifest));
  EXPECT_FALSE(object.json.find("is_deletion_marker")->get_bool());
  const int64_t first_sequence = object.json.find("sequence_id")->get_int();

  // The matching agent polls its target state and sees it; the other sees nothing.
  Reply state = call(*agent, "GET", "/api/v1/agents/" + matching_id + "/target-state");
  ASSERT_EQ(state.status, 200) << state.body;
  ASSERT_EQ(state.json.size(), 1u) << state.body;
  EXPECT_EQ(text_of(*state.json.at(0), "id"), object_id);
  EXPECT_EQ(text_of(*state.json.at(0), "yaml_content"), kManifest);
  // Compressed when the agent accepts gzip (libcurl decodes it here).
  auto gzip_agent = broker.client(text_of(matching.json, "initial_pak"));
  gzip_agent->set_accept_gzip(true);
  for (int round = 0; round < 2; ++round) {  // computed, then cached
    auto compressed = gzip_agent->request("GET", "/api/v1/agents/" + matching_id + "/target-state");
    ASSERT_TRUE(compressed.ok());
    EXPECT_EQ(compressed->header("Content-Encoding"), "gzip");
    EXPECT_EQ(compressed->body, state.body);
  }
  EXPECT_EQ(call(*agent, "GET", "/api/v1/agents/" + matching_id + "/target-state").body, state.body);
  Reply nothing = call(*other_agent, "GET", "/api/v1/agents/" + other_id + "/target-state");
  ASSERT_EQ(nothing.status, 200);
  EXPECT_EQ(nothing.json.size(), 0u);
  // An agent cannot read another agent's target state.
  EXPECT_EQ(call(*other_agent, "GET", "/api/v1/agents/" + matching_id + "/target-state").status, 403);
  // A poll naming the ETag it holds gets a 304 without a body while the
  // target state stays as it was.
  const std::string state_path = "/api/v1/agents/" + matching_id + "/target-state";
  auto tagged = agent->request("GET", state_path);
  ASSERT_TRUE(tagged.ok());
  const std::string etag(tagged->header("ETag"));
  ASSERT_TRUE(etag.starts_with("W/\"")) << etag;
  auto unchanged = agent->request("GET", state_path, {}, "application/json", {{"If-None-Match", etag}});
  ASSERT_TRUE(unchanged.ok());
  EXPECT_EQ(unchanged->status, 304);
  EXPECT_EQ(unchanged->body, "");
  EXPECT_EQ(unchanged->header("ETag"), etag);
  auto other_tag = agent->request("GET", state_path, {}, "application/json", {{"If-None-Match", "W/\"-1\""}});
  ASSERT_TRUE(other_tag.ok());
  EXPECT_EQ(other_tag->status, 200);
  EXPECT_EQ(other_tag->body, state.body);

  // It reports an event; incremental target state then leaves the object out, full keeps it.
  Reply event = call(*agent, "POST", "/api/v1/agents/" + matching_id + "/events",
                     R"({"agent_id":")" + matching_id + R"(","deployment_object_id":")" + object_id +
                         R"(","event_type":"DEPLOYMENT","status":"SUCCESS","message":"applied"})");
  ASSERT_EQ(event.status, 201) << event.body;
  EXPECT_EQ(text_of(event.json, "status"), "SUCCESS");
  EXPECT_EQ(call(*agent, "GET", "/api/v1/agents/" + matching_id + "/target-state").json.size(), 0u);
  // The event moved the target state on: the ETag held no longer matches.
  auto moved = agent->request("GET", state_path, {}, "application/json", {{"If-None-Match", etag}});
  ASSERT_TRUE(moved.ok());
  EXPECT_EQ(moved->status, 200);
  EXPECT_NE(moved->header("ETag"), etag);
  EXPECT_EQ(call(*agent, "GET", "/api/v1/agents/" + matching_id + "/target-state?mode=full").json.size(), 1u);
  Reply events = call(*admin, "GET", "/api/v1/agents/" + matching_id + "/events");
  ASSERT_EQ(events.status, 200);
  EXPECT_EQ(events.json.size(), 1u);

  // A new version of the stack: a higher sequence id, back in the target state.
  Reply second = call(*ci, "POST", "/api/v1/stacks/" + stack_id + "/deployment-objects",
                      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  greeting: hi\n",
                      "application/yaml");
  ASSERT_EQ(second.status, 201) << second.body;
  EXPECT_GT(second.json.find("sequence_id")->get_int(), first_sequence);
  Reply newer = call(*agent, "GET", "/api/v1/agents/" + matching_id + "/target-state");
  ASSERT_EQ(newer.json.size(), 1u);
  EXPECT_EQ(text_of(*newer.json.at(0), "id"), text_of(second.json, "id"));

  // Another generator can neither read nor change the stack.
  Reply intruder = call(*admin, "POST", "/api/v1/generators", R"({"name":"intruder"})");
  ASSERT_EQ(intruder.status, 201);
  auto stranger = broker.client(text_of(intruder.json, "pak"));
  EXPECT_EQ(call(*stranger, "GET", "/api/v1/stacks/" + stack_id).status, 403);
  EXPECT_EQ(call(*stranger, "GET", "/api/v1/stacks/" + stack_id + "/deployment-objects").status, 403);
  EXPECT_EQ(call(*stranger, "GET", "/api/v1/deployment-objects/" + object_id).status, 403);
  EXPECT_EQ(call(*stranger, "DELETE", "/api/v1/stacks/" + stack_id).status, 403);
  EXPECT_EQ(call(*stranger, "GET", "/api/v1/stacks").json.size(), 0u);
  const size_t objects_before = call(*ci, "GET", "/api/v1/stacks/" + stack_id + "/deployment-objects").json.size();
  Reply intrusion = call(*stranger, "POST", "/api/v1/stacks/" + stack_id + "/deployment-objects",
                         R"({"yaml_content":)" + json_string(kManifest) + "}");
  EXPECT_EQ(intrusion.status, 403) << intrusion.body;
  EXPECT_EQ(call(*stranger, "POST", "/api/v1/stacks/01900000-0000-7000-8000-000000000000/deployment-objects",
                 R"({"yaml_content":)" + json_string(kManifest) + "}")
                .status,
            404);
  EXPECT_EQ(call(*ci, "GET", "/api/v1/stacks/" + stack_id + "/deployment-objects").json.size(), objects_before);

  // Deleting the stack: it disappears; its deletion marker takes its place.
  ASSERT_EQ(call(*ci, "DELETE", "/api/v1/stacks/" + stack_id).status, 204);
  EXPECT_EQ(call(*ci, "POST", "/api/v1/stacks/" + stack_id + "/deployment-objects",
                 R"({"yaml_content":)" + json_string(kManifest) + "}")
                .status,
            404);
  EXPECT_EQ(call(*ci, "GET", "/api/v1/stacks/" + stack_id).status, 404);
  Reply after = call(*agent, "GET", "/api/v1/agents/" + matching_id + "/target-state");
  ASSERT_EQ(after.json.size(), 1u) << after.body;
  EXPECT_TRUE(after.json.at(0)->find("is_deletion_marker")->get_bool());
  EXPECT_EQ(text_of(*after.json.at(0), "stack_id"), stack_id);
  EXPECT_GT(after.json.at(0)->find("sequence_id")->get_int(), second.json.find("sequence_id")->get_int());
  const std::string marker_id = text_of(*after.json.at(0), "id");
  ASSERT_EQ(call(*agent, "POST", "/api/v1/agents/" + matching_id + "/events",
                 R"({"deployment_object_id":")" + marker_id + R"(","event_type":"DELETION","status":"SUCCESS"})")
                .status,
            201);
  EXPECT_EQ(call(*agent, "GET", "/api/v1/agents/" + matching_id + "/target-state").json.size(), 0u);

  // Operations: health, readiness and metrics by route (never by id).
  auto anonymous = broker.client("");
  EXPECT_EQ(call(*anonymous, "GET", "/healthz").status, 200);
  EXPECT_EQ(call(*anonymous, "GET", "/readyz").status, 200);
  Reply metrics = call(*anonymous, "GET", "/metrics");
  ASSERT_EQ(metrics.status, 200);
  EXPECT_NE(metrics.body.find(R"(sindri_http_requests_total{route="/api/v1/agents/{id}/target-state",method="GET",status="200"} )"),
            std::string::npos)
      << metrics.body;
  EXPECT_NE(metrics.body.find("sindri_http_request_duration_seconds_bucket{"), std::string::npos);
  EXPECT_NE(metrics.body.find("sindri_db_pool_in_use "), std::string::npos);
  EXPECT_NE(metrics.body.find("\nsindri_answer_files "), std::string::npos) << metrics.body;
  EXPECT_NE(metrics.body.find("\nsindri_target_state_cached_answers "), std::string::npos) << metrics.body;
  if (GetParam() != Backend::Sqlite) {
    EXPECT_NE(metrics.body.find("\nsindri_db_pool_limit 50\n"), std::string::npos) << metrics.body;
  } else {
    EXPECT_NE(metrics.body.find("\nsindri_db_pool_limit "), std::string::npos) << metrics.body;
  }
  // The flow above wrote; every write took a transaction, shared or not.
  EXPECT_NE(metrics.body.find("# TYPE sindri_db_writes_total counter\n"), std::string::npos);
  EXPECT_EQ(metrics.body.find("sindri_db_writes_total 0\n"), std::string::npos) << metrics.body;
  EXPECT_EQ(metrics.body.find("sindri_db_write_transactions_total 0\n"), std::string::npos);
  EXPECT_EQ(metrics.body.find(matching_id), std::string::npos);
}

TEST_P(DeploymentFlow, LabelChangesRetargetAgents) {
  BrokerProcess broker(GetParam());
  if (!broker.usable()) return;
  broker.start();
  auto admin = broker.client(broker.admin_pak());
  Reply generators = call(*admin, "GET", "/api/v1/generators");
  ASSERT_EQ(generators.status, 200);
  ASSERT_EQ(generators.json.size(), 1u);
  EXPECT_TRUE(generators.json.at(0)->find("is_system")->get_bool());
  const std::string system_id = text_of(*generators.json.at(0), "id");

  const std::string stack_id =
      text_of(call(*admin, "POST", "/api/v1/stacks", R"({"name":"s","generator_id":")" + system_id + R"("})").json, "id");
  Reply agent = call(*admin, "POST", "/api/v1/agents", R"({"name":"a","cluster_name":"c"})");
  const std::string agent_id = text_of(*agent.json.find("agent"), "id");
  auto targets = [&] { return call(*admin, "GET", "/api/v1/agents/" + agent_id + "/targets").json.size(); };

  // A stack without labels targets nobody by itself.
  EXPECT_EQ(targets(), 0u);
  ASSERT_EQ(call(*admin, "POST", "/api/v1/agents/" + agent_id + "/labels", R"("tier=web")").status, 201);
  EXPECT_EQ(targets(), 0u);
  ASSERT_EQ(call(*admin, "POST", "/api/v1/stacks/" + stack_id + "/labels", R"("tier=web")").status, 201);
  EXPECT_EQ(targets(), 1u);
  // A second stack label the agent lacks: no longer a match.
  ASSERT_EQ(call(*admin, "POST", "/api/v1/stacks/" + stack_id + "/labels", R"("gpu")").status, 201);
  EXPECT_EQ(targets(), 0u);
  ASSERT_EQ(call(*admin, "POST", "/api/v1/agents/" + agent_id + "/labels", R"("gpu")").status, 201);
  EXPECT_EQ(targets(), 1u);
  ASSERT_EQ(call(*admin, "DELETE", "/api/v1/agents/" + agent_id + "/labels/gpu").status, 204);
  EXPECT_EQ(targets(), 0u);
  // A target added by hand stays whatever the labels say.
  ASSERT_EQ(call(*admin, "POST", "/api/v1/agents/" + agent_id + "/targets", R"({"stack_id":")" + stack_id + R"("})")
                .status,
            201);
  EXPECT_EQ(targets(), 1u);
  ASSERT_EQ(call(*admin, "DELETE", "/api/v1/stacks/" + stack_id + "/labels/gpu").status, 204);
  EXPECT_EQ(targets(), 1u);
  ASSERT_EQ(call(*admin, "DELETE", "/api/v1/agents/" + agent_id + "/targets/" + stack_id).status, 204);
  // Removing a target is honoured, even one the labels would match, until
  // the labels change again.
  EXPECT_EQ(targets(), 0u);
  ASSERT_EQ(call(*admin, "POST", "/api/v1/stacks/" + stack_id + "/annotations", R"({"key":"owner","value":"ops"})")
                .status,
            201);
  EXPECT_EQ(targets(), 0u);
  ASSERT_EQ(call(*admin, "POST", "/api/v1/agents/" + agent_id + "/annotations", R"({"key":"owner","value":"ops"})")
                .status,
            201);
  EXPECT_EQ(targets(), 1u);
}

// A label that matches a fleet adds its targets in statements of a few
// hundred rows: every agent is targeted, across the statements' bounds.
TEST_P(DeploymentFlow, ALabelMatchingManyAgentsTargetsEveryOne) {
  BrokerProcess broker(GetParam());
  if (!broker.usable()) return;
  broker.start();
  auto admin = broker.client(broker.admin_pak());
  Reply generators = call(*admin, "GET", "/api/v1/generators");
  const std::string system_id = text_of(*generators.json.at(0), "id");
  const std::string stack_id =
      text_of(call(*admin, "POST", "/api/v1/stacks", R"({"name":"s","generator_id":")" + system_id + R"("})").json, "id");
  constexpr int kAgents = 650;
  std::vector<std::string> agent_ids;
  for (int i = 0; i < kAgents; ++i) {
    Reply agent = call(*admin, "POST", "/api/v1/agents",
                       R"({"name":"a)" + std::to_string(i) + R"(","cluster_name":"c"})");
    ASSERT_EQ(agent.status, 201) << agent.body;
    agent_ids.push_back(text_of(*agent.json.find("agent"), "id"));
    ASSERT_EQ(call(*admin, "POST", "/api/v1/agents/" + agent_ids.back() + "/labels", R"("fleet")").status, 201);
  }
  ASSERT_EQ(call(*admin, "POST", "/api/v1/stacks/" + stack_id + "/labels", R"("fleet")").status, 201);
  for (int i : {0, 299, 300, 599, 600, kAgents - 1}) {
    Reply targets = call(*admin, "GET", "/api/v1/agents/" + agent_ids[static_cast<size_t>(i)] + "/targets");
    ASSERT_EQ(targets.json.size(), 1u) << "agent " << i << ": " << targets.body;
    EXPECT_EQ(text_of(*targets.json.at(0), "stack_id"), stack_id);
  }
  ASSERT_EQ(call(*admin, "DELETE", "/api/v1/stacks/" + stack_id + "/labels/fleet").status, 204);
  EXPECT_EQ(call(*admin, "GET", "/api/v1/agents/" + agent_ids.back() + "/targets").json.size(), 0u);
}

// Kubernetes-style keys hold a '/': sent encoded ("%2F") they stay inside
// their path segment, so such labels and annotations can be removed too.
TEST_P(DeploymentFlow, LabelsAndAnnotationKeysWithASlashCanBeRemoved) {
  BrokerProcess broker(GetParam());
  if (!broker.usable()) return;
  broker.start();
  auto admin = broker.client(broker.admin_pak());
  const std::string system_id = text_of(*call(*admin, "GET", "/api/v1/generators").json.at(0), "id");
  const std::string stack = "/api/v1/stacks/" +
      text_of(call(*admin, "POST", "/api/v1/stacks", R"({"name":"s","generator_id":")" + system_id + R"("})").json, "id");
  const std::string agent =
      "/api/v1/agents/" +
      text_of(*call(*admin, "POST", "/api/v1/agents", R"({"name":"a","cluster_name":"c"})").json.find("agent"), "id");
  const std::string tpl =
      "/api/v1/templates/" +
      text_of(call(*admin, "POST", "/api/v1/templates",
                   R"({"name":"t","template_content":"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",)"
                   R"("parameters_schema":"{}"})")
                  .json,
              "id");
  for (const std::string& owner : {stack, agent, tpl}) {
    SCOPED_TRACE(owner);
    ASSERT_EQ(call(*admin, "POST", owner + "/labels", R"("app.kubernetes.io/name=web")").status, 201);
    ASSERT_EQ(call(*admin, "POST", owner + "/annotations", R"({"key":"example.com/owner","value":"ops"})").status,
              201);
    EXPECT_EQ(call(*admin, "DELETE", owner + "/labels/app.kubernetes.io%2Fname=web").status, 204);
    EXPECT_EQ(call(*admin, "DELETE", owner + "/annotations/example.com%2fowner").status, 204);
    EXPECT_EQ(call(*admin, "GET", owner + "/labels").json.size(), 0u);
    EXPECT_EQ(call(*admin, "GET", owner + "/annotations").json.size(), 0u);
    Reply gone = call(*admin, "DELETE", owner + "/labels/app.kubernetes.io%2Fname=web");
    EXPECT_EQ(gone.status, 404) << gone.body;
    EXPECT_NE(gone.body.find("app.kubernetes.io/name=web"), std::string::npos) << gone.body;
  }
  // An unencoded '/' is a separator: that path names no route.
  EXPECT_EQ(call(*admin, "DELETE", stack + "/labels/app.kubernetes.io/name=web").status, 404);
}

TEST_P(DeploymentFlow, RevokedPaksStopWorkingAtOnce) {
  BrokerProcess broker(GetParam());
  if (!broker.usable()) return;
  broker.start();
  auto admin = broker.client(broker.admin_pak());
  Reply generator = call(*admin, "POST", "/api/v1/generators", R"({"name":"g"})");
  const std::string generator_id = text_of(*generator.json.find("generator"), "id");
  auto old_client = broker.client(text_of(generator.json, "pak"));
  ASSERT_EQ(call(*old_client, "POST", "/api/v1/auth/pak").status, 200);

  Reply rotated = call(*old_client, "POST", "/api/v1/generators/" + generator_id + "/rotate-pak");
  ASSERT_EQ(rotated.status, 201) << rotated.body;
  EXPECT_EQ(call(*old_client, "POST", "/api/v1/auth/pak").status, 401);
  auto new_client = broker.client(text_of(rotated.json, "pak"));
  Reply me = call(*new_client, "POST", "/api/v1/auth/pak");
  ASSERT_EQ(me.status, 200);
  EXPECT_EQ(text_of(me.json, "generator"), generator_id);

  ASSERT_EQ(call(*admin, "DELETE", "/api/v1/generators/" + generator_id).status, 204);
  EXPECT_EQ(call(*new_client, "POST", "/api/v1/auth/pak").status, 401);
}

TEST_P(DeploymentFlow, SurvivesARestartAndKeepsTheAdminPak) {
  BrokerProcess broker(GetParam());
  if (!broker.usable()) return;
  broker.start();
  const std::string pak = broker.admin_pak();
  ASSERT_EQ(call(*broker.client(pak), "POST", "/api/v1/generators", R"({"name":"kept"})").status, 201);
  EXPECT_EQ(broker.stop(), 0);
  broker.start();
  EXPECT_EQ(broker.admin_pak(), pak);  // not rewritten: bootstrap ran once
  Reply generators = call(*broker.client(pak), "GET", "/api/v1/generators");
  ASSERT_EQ(generators.status, 200);
  EXPECT_EQ(generators.json.size(), 2u);
}

// Several brokers share one database: what one broker caches (target
// states, PAKs) follows the writes made through another.
TEST_P(DeploymentFlow, BrokersSharingADatabaseFollowEachOthersWrites) {
  BrokerProcess first(GetParam());
  if (!first.usable()) return;
  first.start({"--peer-change-delay-ms", "0"});
  BrokerProcess second(first, BrokerProcess::SharedDatabase{});
  second.start({"--peer-change-delay-ms", "0"});
  const std::string admin_pak = first.admin_pak();
  auto admin = first.client(admin_pak);

  Reply generator = call(*admin, "POST", "/api/v1/generators", R"({"name":"ci"})");
  ASSERT_EQ(generator.status, 201) << generator.body;
  const std::string generator_id = text_of(*generator.json.find("generator"), "id");
  auto ci_on_second = second.client(text_of(generator.json, "pak"));
  Reply stack = call(*ci_on_second, "POST", "/api/v1/stacks", R"({"name":"web","generator_id":")" + generator_id + R"("})");
  ASSERT_EQ(stack.status, 201) << stack.body;
  const std::string stack_id = text_of(stack.json, "id");
  ASSERT_EQ(call(*ci_on_second, "POST", "/api/v1/stacks/" + stack_id + "/labels", R"("env=prod")").status, 201);
  Reply agent = call(*admin, "POST", "/api/v1/agents", R"({"name":"a","cluster_name":"prod"})");
  ASSERT_EQ(agent.status, 201) << agent.body;
  const std::string agent_id = text_of(*agent.json.find("agent"), "id");
  const std::string agent_pak = text_of(agent.json, "initial_pak");
  ASSERT_EQ(call(*admin, "POST", "/api/v1/agents/" + agent_id + "/labels", R"("env=prod")").status, 201);

  auto agent_on_first = first.client(agent_pak);
  const std::string state_path = "/api/v1/agents/" + agent_id + "/target-state";
  auto state_on_first = [&] {
    Reply state = call(*agent_on_first, "GET", state_path);
    EXPECT_EQ(state.status, 200) << state.body;
    return state;
  };
  EXPECT_EQ(state_on_first().json.size(), 0u);  // cached by the first broker

  for (const char* name : {"one", "two"}) {
    const std::string manifest = std::string("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ") + name + "\n";
    Reply object = call(*ci_on_second, "POST", "/api/v1/stacks/" + stack_id + "/deployment-objects",
                        R"({"yaml_content":)" + json_string(manifest) + "}");
    ASSERT_EQ(object.status, 201) << object.body;
    Reply state = state_on_first();
    ASSERT_EQ(state.json.size(), 1u) << state.body;
    EXPECT_EQ(text_of(*state.json.at(0), "id"), text_of(object.json, "id"));
  }

  // The agent loses its label through the second broker: the stack leaves
  // its target state on the first.
  ASSERT_EQ(call(*second.client(admin_pak), "DELETE", "/api/v1/agents/" + agent_id + "/labels/env=prod").status, 204);
  EXPECT_EQ(state_on_first().json.size(), 0u);

  // A PAK rotated through the second broker stops working on the first.
  Reply rotated = call(*second.client(agent_pak), "POST", "/api/v1/agents/" + agent_id + "/rotate-pak");
  ASSERT_EQ(rotated.status, 200) << rotated.body;
  EXPECT_EQ(call(*agent_on_first, "GET", state_path).status, 401);
  EXPECT_EQ(call(*first.client(text_of(rotated.json, "pak")), "GET", state_path).status, 200);
}

int64_t counter_reads(const BrokerProcess& broker) {
  Reply metrics = call(*broker.client(""), "GET", "/metrics");
  const std::string name = "\nsindri_db_counter_reads_total ";
  const size_t at = metrics.body.find(name);
  if (at == std::string::npos) {
    ADD_FAILURE() << "no " << name.substr(1) << "in /metrics:\n" << metrics.body;
    return -1;
  }
  return std::stoll(metrics.body.substr(at + name.size()));
}

struct PeerBrokers {
  BrokerProcess first;
  BrokerProcess second;
  std::string agent_id;
  std::string agent_pak;
  std::string state_path;

  // Two brokers on one database, `first` with the given peer change delay,
  // and an agent created through it.
  PeerBrokers(Backend backend, const std::string& first_delay_ms)
      : first(backend), second(first, BrokerProcess::SharedDatabase{}) {
    if (!first.usable()) return;
    first.start({"--peer-change-delay-ms", first_delay_ms});
    second.start({"--peer-change-delay-ms", "0"});
    Reply agent = call(*first.client(first.admin_pak()), "POST", "/api/v1/agents", R"({"name":"a","cluster_name":"c"})");
    EXPECT_EQ(agent.status, 201) << agent.body;
    agent_id = text_of(*agent.json.find("agent"), "id");
    agent_pak = text_of(agent.json, "initial_pak");
    state_path = "/api/v1/agents/" + agent_id + "/target-state";
  }

  // The agent's PAK rotated through `broker`; the new PAK.
  std::string rotate_through(const BrokerProcess& broker) {
    Reply rotated = call(*broker.client(agent_pak), "POST", "/api/v1/agents/" + agent_id + "/rotate-pak");
    EXPECT_EQ(rotated.status, 200) << rotated.body;
    return text_of(rotated.json, "pak");
  }
};

// A broker answers from one read of the database's counters for its peer
// change delay: its own writes count at once, another broker's only once
// the read is older than the delay.
TEST_P(DeploymentFlow, ACountersReadServesThePeerChangeDelayButNotPastOwnWrites) {
  PeerBrokers brokers(GetParam(), "60000");
  if (!brokers.first.usable()) return;
  auto poll_first = [&](const std::string& pak) { return call(*brokers.first.client(pak), "GET", brokers.state_path); };
  ASSERT_EQ(poll_first(brokers.agent_pak).status, 200);
  int64_t reads = counter_reads(brokers.first);
  for (int poll = 0; poll < 20; ++poll) ASSERT_EQ(poll_first(brokers.agent_pak).status, 200);
  EXPECT_EQ(counter_reads(brokers.first), reads);

  // Writes that change target states: the next poll reads again and sees
  // them; the writes themselves need only the credentials counter.
  auto admin = brokers.first.client(brokers.first.admin_pak());
  Reply generator = call(*admin, "POST", "/api/v1/generators", R"({"name":"ci"})");
  ASSERT_EQ(generator.status, 201) << generator.body;
  auto ci = brokers.first.client(text_of(generator.json, "pak"));
  Reply stack = call(*ci, "POST", "/api/v1/stacks",
                     R"({"name":"web","generator_id":")" + text_of(*generator.json.find("generator"), "id") + R"("})");
  ASSERT_EQ(stack.status, 201) << stack.body;
  const std::string objects_path = "/api/v1/stacks/" + text_of(stack.json, "id") + "/deployment-objects";
  ASSERT_EQ(call(*ci, "POST", "/api/v1/stacks/" + text_of(stack.json, "id") + "/labels", R"("env=prod")").status, 201);
  ASSERT_EQ(call(*admin, "POST", "/api/v1/agents/" + brokers.agent_id + "/labels", R"("env=prod")").status, 201);
  reads = counter_reads(brokers.first);
  for (const char* name : {"one", "two", "three"}) {
    const std::string manifest = std::string("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ") + name + "\n";
    Reply object = call(*ci, "POST", objects_path, R"({"yaml_content":)" + json_string(manifest) + "}");
    ASSERT_EQ(object.status, 201) << object.body;
    Reply state = poll_first(brokers.agent_pak);
    ASSERT_EQ(state.json.size(), 1u) << state.body;
    EXPECT_EQ(text_of(*state.json.at(0), "id"), text_of(object.json, "id"));
  }
  EXPECT_EQ(counter_reads(brokers.first), reads + 3);  // the polls

  // A write that revokes a PAK: the next request of any kind reads again.
  const std::string old_pak = brokers.agent_pak;
  brokers.agent_pak = brokers.rotate_through(brokers.first);
  Reply refused = call(*brokers.first.client(old_pak), "POST", "/api/v1/agents/" + brokers.agent_id + "/heartbeat");
  EXPECT_EQ(refused.status, 401) << refused.body;
  EXPECT_EQ(poll_first(brokers.agent_pak).status, 200);
  EXPECT_EQ(counter_reads(brokers.first), reads + 4);

  // Within the delay, the first broker has not yet seen the second's rotation.
  const std::string rotated_elsewhere = brokers.agent_pak;
  brokers.agent_pak = brokers.rotate_through(brokers.second);
  EXPECT_EQ(poll_first(rotated_elsewhere).status, 200);
}

TEST_P(DeploymentFlow, AnotherBrokersChangesCountOnceThePeerChangeDelayHasPassed) {
  PeerBrokers brokers(GetParam(), "300");
  if (!brokers.first.usable()) return;
  auto first_agent = brokers.first.client(brokers.agent_pak);
  ASSERT_EQ(call(*first_agent, "GET", brokers.state_path).status, 200);
  const std::string new_pak = brokers.rotate_through(brokers.second);
  std::this_thread::sleep_for(std::chrono::milliseconds(350));
  EXPECT_EQ(call(*first_agent, "GET", brokers.state_path).status, 401);
  EXPECT_EQ(call(*brokers.first.client(new_pak), "GET", brokers.state_path).status, 200);
}

// As in Brokkr, a generator's stacks go with it: each as a deletion of the
// stack, so that the agents targeting it remove what they applied.
TEST_P(DeploymentFlow, DeletingAGeneratorDeletesItsStacksForTheirAgents) {
  BrokerProcess broker(GetParam());
  if (!broker.usable()) return;
  broker.start();
  auto admin = broker.client(broker.admin_pak());
  std::string generator_id, stack_id;
  ASSERT_NO_FATAL_FAILURE(create_generator_and_stack(*admin, generator_id, stack_id));
  Reply other_generator = call(*admin, "POST", "/api/v1/generators", R"({"name":"other"})");
  ASSERT_EQ(other_generator.status, 201) << other_generator.body;
  Reply kept_stack = call(*admin, "POST", "/api/v1/stacks",
                          R"({"name":"kept","generator_id":")" + text_of(*other_generator.json.find("generator"), "id") +
                              R"("})");
  ASSERT_EQ(kept_stack.status, 201) << kept_stack.body;
  const std::string kept_stack_id = text_of(kept_stack.json, "id");
  Reply agent = call(*admin, "POST", "/api/v1/agents", R"({"name":"a1","cluster_name":"prod"})");
  ASSERT_EQ(agent.status, 201) << agent.body;
  const std::string agent_id = text_of(*agent.json.find("agent"), "id");
  auto agent_client = broker.client(text_of(agent.json, "initial_pak"));
  for (const std::string& stack : {stack_id, kept_stack_id}) {
    ASSERT_EQ(call(*admin, "POST", "/api/v1/stacks/" + stack + "/deployment-objects",
                   R"({"yaml_content":)" + json_string(kManifest) + "}")
                  .status,
              201);
    ASSERT_EQ(call(*admin, "POST", "/api/v1/agents/" + agent_id + "/targets",
                   R"({"agent_id":")" + agent_id + R"(","stack_id":")" + stack + R"("})")
                  .status,
              201);
  }
  ASSERT_EQ(call(*agent_client, "GET", "/api/v1/agents/" + agent_id + "/target-state").json.size(), 2u);

  ASSERT_EQ(call(*admin, "DELETE", "/api/v1/generators/" + generator_id).status, 204);
  EXPECT_EQ(call(*admin, "GET", "/api/v1/stacks/" + stack_id).status, 404);
  EXPECT_EQ(call(*admin, "GET", "/api/v1/stacks/" + kept_stack_id).status, 200);
  Reply after = call(*agent_client, "GET", "/api/v1/agents/" + agent_id + "/target-state");
  ASSERT_EQ(after.json.size(), 2u) << after.body;
  for (size_t i = 0; i < after.json.size(); ++i) {
    const Value& object = *after.json.at(i);
    EXPECT_EQ(object.find("is_deletion_marker")->get_bool(), text_of(object, "stack_id") == stack_id) << after.body;
  }
  Reply stacks = call(*admin, "GET", "/api/v1/stacks");
  ASSERT_EQ(stacks.json.size(), 1u) << stacks.body;
  EXPECT_EQ(text_of(*stacks.json.at(0), "id"), kept_stack_id);
}

// Deleting through the API hides a record from every read, but its row stays
// in the database with deleted_at set (seed 002: soft delete everywhere).
TEST_P(DeploymentFlow, DeletesAreSoftTheRowsStayWithDeletedAt) {
  BrokerProcess broker(GetParam());
  if (!broker.usable()) return;
  broker.start();
  auto admin = broker.client(broker.admin_pak());
  std::string generator_id, stack_id;
  ASSERT_NO_FATAL_FAILURE(create_generator_and_stack(*admin, generator_id, stack_id));
  Reply object = call(*admin, "POST", "/api/v1/stacks/" + stack_id + "/deployment-objects",
                      R"({"yaml_content":)" + json_string(kManifest) + "}");
  ASSERT_EQ(object.status, 201) << object.body;
  Reply agent = call(*admin, "POST", "/api/v1/agents", R"({"name":"a1","cluster_name":"prod"})");
  ASSERT_EQ(agent.status, 201) << agent.body;
  const std::string agent_id = text_of(*agent.json.find("agent"), "id");
  Reply template_version = call(*admin, "POST", "/api/v1/templates",
                                R"({"name":"cm","template_content":"kind: ConfigMap","parameters_schema":"{}"})");
  ASSERT_EQ(template_version.status, 201) << template_version.body;
  const std::string template_id = text_of(template_version.json, "id");

  const std::vector<std::pair<std::string, std::string>> deleted = {
      {"stacks", stack_id}, {"agents", agent_id}, {"templates", template_id}, {"generators", generator_id}};
  for (const auto& [resource, id] : deleted) {
    const std::string path = "/api/v1/" + resource + "/" + id;
    EXPECT_EQ(call(*admin, "DELETE", path).status, 204) << path;
    EXPECT_EQ(call(*admin, "GET", path).status, 404) << path;
  }

  sindri::store::OpenOptions options;
  options.tenant_schema = broker.schema();
  auto db = sindri::store::Database::open(broker.database(), options);
  ASSERT_TRUE(db.ok()) << db.error().message;
  const std::vector<std::pair<std::string, std::string>> rows = {{"stacks", stack_id},
                                                                 {"agents", agent_id},
                                                                 {"stack_templates", template_id},
                                                                 {"generators", generator_id}};
  for (const auto& [table, id] : rows) {
    auto found = (*db)->read_statement("SELECT deleted_at FROM " + table + " WHERE id = $1", {Value(id)});
    ASSERT_TRUE(found.ok()) << table << ": " << found.error().message;
    ASSERT_EQ(found->rows.size(), 1u) << table << " lost the row";
    EXPECT_FALSE(found->rows[0][0].is_null()) << table << " row has no deleted_at";
  }
}

// An agent's PAK reaches its own record only: every operation on another
// agent is refused, and changes nothing.
TEST(AgentAccess, AnAgentCannotReachAnotherAgent) {
  BrokerProcess broker(Backend::Sqlite);
  broker.start();
  auto admin = broker.client(broker.admin_pak());
  std::string generator_id, stack_id;
  ASSERT_NO_FATAL_FAILURE(create_generator_and_stack(*admin, generator_id, stack_id));
  Reply first = call(*admin, "POST", "/api/v1/agents", R"({"name":"a1","cluster_name":"one"})");
  Reply second = call(*admin, "POST", "/api/v1/agents", R"({"name":"a2","cluster_name":"two"})");
  ASSERT_EQ(first.status, 201) << first.body;
  ASSERT_EQ(second.status, 201) << second.body;
  auto intruder = broker.client(text_of(first.json, "initial_pak"));
  const std::string victim_pak = text_of(second.json, "initial_pak");
  const std::string victim_id = text_of(*second.json.find("agent"), "id");
  const std::string victim = "/api/v1/agents/" + victim_id;
  ASSERT_EQ(call(*admin, "POST", victim + "/labels", R"({"agent_id":")" + victim_id + R"(","label":"keep"})").status,
            201);

  const std::string some_id = "01234567-0000-4000-8000-000000000000";
  const std::vector<std::tuple<std::string, std::string, std::string>> calls = {
      {"GET", "", ""},
      {"PUT", "", R"({"name":"taken"})"},
      {"DELETE", "", ""},
      {"GET", "/labels", ""},
      {"POST", "/labels", R"({"agent_id":")" + victim_id + R"(","label":"x"})"},
      {"DELETE", "/labels/keep", ""},
      {"GET", "/annotations", ""},
      {"POST", "/annotations", R"({"agent_id":")" + victim_id + R"(","key":"k","value":"v"})"},
      {"DELETE", "/annotations/k", ""},
      {"GET", "/events", ""},
      {"POST", "/events", R"({"deployment_object_id":")" + some_id + R"(","event_type":"DEPLOY","status":"SUCCESS"})"},
      {"POST", "/heartbeat", ""},
      {"POST", "/rotate-pak", ""},
      {"GET", "/stacks", ""},
      {"GET", "/target-state", ""},
      {"GET", "/targets", ""},
      {"POST", "/targets", R"({"agent_id":")" + victim_id + R"(","stack_id":")" + stack_id +
                               R"("})"},
      {"DELETE", "/targets/" + stack_id, ""},
      {"GET", "/registrations", ""},
  };
  for (const auto& [method, suffix, body] : calls) {
    const Reply refused = call(*intruder, method, victim + suffix, body);
    EXPECT_EQ(refused.status, 403) << method << " " << suffix << ": " << refused.body;
    // Brokkr's codes: the agent is not this one, or the change is an admin's;
    // a route closed to agents says only that.
    const std::string code = text_of(refused.json, "code");
    EXPECT_TRUE(code == "agent_pak_mismatch" || code == "admin_required" || code == "forbidden")
        << method << " " << suffix << ": " << refused.body;
  }

  // Nothing changed: the victim's PAK, name and label are as they were.
  auto own = broker.client(victim_pak);
  const Reply record = call(*own, "GET", victim);
  ASSERT_EQ(record.status, 200) << record.body;
  EXPECT_EQ(text_of(record.json, "name"), "a2");
  const Reply labels = call(*own, "GET", victim + "/labels");
  ASSERT_EQ(labels.json.size(), 1u) << labels.body;
  EXPECT_EQ(text_of(*labels.json.at(0), "label"), "keep");
}

// Readiness asks the database; health does not. A broker whose database has
// gone answers 503 on /readyz, keeps running, and says why.
TEST(Readiness, ADatabaseThatHasGoneMakesTheBrokerNotReady) {
  BrokerProcess broker(Backend::PostgresPublic);
  if (!broker.usable()) return;
  broker.start();
  auto anonymous = broker.client("");
  EXPECT_EQ(call(*anonymous, "GET", "/readyz").status, 200);
  ASSERT_TRUE(run_on_postgres_server(broker.admin_url(), "DROP DATABASE " + broker.owned_database() + " WITH (FORCE)"));

  const Reply ready = call(*anonymous, "GET", "/readyz");
  EXPECT_EQ(ready.status, 503) << ready.body;
  EXPECT_EQ(text_of(ready.json, "code"), "not_ready") << ready.body;
  EXPECT_NE(text_of(ready.json, "message").find("database"), std::string::npos) << ready.body;
  EXPECT_EQ(call(*anonymous, "GET", "/healthz").status, 200);
  EXPECT_TRUE(broker.running());
  EXPECT_EQ(broker.stop(), 0) << broker.log();
}

// PostgresPublic: the default mode, no tenant schema.
INSTANTIATE_TEST_SUITE_P(Backends, DeploymentFlow,
                         ::testing::Values(Backend::Sqlite, Backend::Postgres, Backend::PostgresPublic), backend_name);

}  // namespace
}  // namespace sindri_test
