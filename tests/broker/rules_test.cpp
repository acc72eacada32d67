// The API's rules beyond shapes (issue 27): an agent reports events only on
// what is or was in its target state, and the same 403 whether an id exists
// or not; PUT bodies are whole resources whose read-only fields must be as
// stored; statuses and numbers within the values the API gives them.

#include <regex>

#include "broker_process.hpp"

namespace sindri_test {
namespace {

using sindri::Value;

constexpr const char* kUnknownId = "123e4567-e89b-42d3-a456-426614174000";

std::string pointer_of(const Reply& reply) {
  const Value* details = reply.json.find("details");
  return details != nullptr ? text_of(*details, "pointer") : std::string("<none>");
}

// Every pointer the error names, in order.
std::vector<std::string> pointers_of(const Reply& reply) {
  std::vector<std::string> out;
  const Value* details = reply.json.find("details");
  const Value* pointers = details != nullptr ? details->find("pointers") : nullptr;
  if (pointers == nullptr) return {pointer_of(reply)};
  for (const Value& pointer : pointers->get_array()) out.emplace_back(pointer.get_string());
  return out;
}

class Rules : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    broker_ = std::make_unique<BrokerProcess>(GetParam());
    if (!broker_->usable()) GTEST_FAIL() << "no database for this backend";
    broker_->start();
    admin_ = broker_->client(broker_->admin_pak());
    Reply generator = call(*admin_, "POST", "/api/v1/generators", R"({"name":"team-a"})");
    ASSERT_EQ(generator.status, 201) << generator.body;
    generator_id_ = text_of(*generator.json.find("generator"), "id");
    generator_ = broker_->client(text_of(generator.json, "pak"));
    Reply agent = call(*admin_, "POST", "/api/v1/agents", R"({"name":"edge","cluster_name":"c"})");
    ASSERT_EQ(agent.status, 201) << agent.body;
    agent_id_ = text_of(*agent.json.find("agent"), "id");
    agent_ = broker_->client(text_of(agent.json, "initial_pak"));
  }

  std::string make_stack(const std::string& name, const std::string& generator_id) {
    Reply stack = call(*admin_, "POST", "/api/v1/stacks",
                       R"({"name":")" + name + R"(","generator_id":")" + generator_id + R"("})");
    EXPECT_EQ(stack.status, 201) << stack.body;
    return text_of(stack.json, "id");
  }

  std::string make_object(const std::string& stack_id) {
    Reply object = call(*admin_, "POST", "/api/v1/stacks/" + stack_id + "/deployment-objects",
                        R"({"yaml_content":"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"})");
    EXPECT_EQ(object.status, 201) << object.body;
    return text_of(object.json, "id");
  }

  Reply report(const std::string& object_id, const std::string& status = "SUCCESS") {
    return call(*agent_, "POST", "/api/v1/agents/" + agent_id_ + "/events",
                R"({"deployment_object_id":")" + object_id + R"(","event_type":"DEPLOY","status":")" + status + "\"}");
  }

  std::unique_ptr<BrokerProcess> broker_;
  std::unique_ptr<sindri::http::Client> admin_, generator_, agent_;
  std::string generator_id_, agent_id_;
};

// An agent reports on the objects of stacks it targets now or did before
// (so that it may report removing what a stack it left had applied), and on
// nothing else: another tenant's object and an id that exists nowhere get one
// and the same 403, so a report tells nothing of which ids exist.
TEST_P(Rules, AgentEventsOnlyForWhatIsOrWasInTheTargetState) {
  const std::string own_stack = make_stack("own", generator_id_);
  const std::string own_object = make_object(own_stack);
  Reply other_generator = call(*admin_, "POST", "/api/v1/generators", R"({"name":"team-b"})");
  const std::string foreign_object = make_object(make_stack("foreign", text_of(*other_generator.json.find("generator"), "id")));

  ASSERT_EQ(call(*admin_, "POST", "/api/v1/stacks/" + own_stack + "/labels", R"("env=prod")").status, 201);
  ASSERT_EQ(call(*admin_, "POST", "/api/v1/agents/" + agent_id_ + "/labels", R"({"label":"env=prod"})").status, 201);
  Reply applied = report(own_object);
  EXPECT_EQ(applied.status, 201) << applied.body;

  Reply foreign = report(foreign_object);
  Reply unknown = report(kUnknownId);
  EXPECT_EQ(foreign.status, 403) << foreign.body;
  EXPECT_EQ(unknown.status, 403) << unknown.body;
  EXPECT_EQ(text_of(foreign.json, "code"), "deployment_object_not_targeted");
  EXPECT_EQ(pointer_of(foreign), "/deployment_object_id");
  const std::regex id("[0-9a-f-]{36}");
  EXPECT_EQ(std::regex_replace(foreign.body, id, "ID"), std::regex_replace(unknown.body, id, "ID"));
  // Nothing of the refused reports was stored.
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/agents/" + agent_id_ + "/events").json.size(), 1u);

  // The stack leaves the agent's target state: the agent may still report
  // removing what it applied, and on a later object of that stack.
  ASSERT_EQ(call(*admin_, "DELETE", "/api/v1/agents/" + agent_id_ + "/labels/env=prod").status, 204);
  ASSERT_EQ(call(*agent_, "GET", "/api/v1/agents/" + agent_id_ + "/target-state?mode=full").json.size(), 0u);
  EXPECT_EQ(report(own_object, "PENDING").status, 201);
  EXPECT_EQ(report(make_object(own_stack), "FAILURE").status, 201);

  // A target set by hand and removed counts as well.
  const std::string by_hand = make_stack("by-hand", generator_id_);
  const std::string by_hand_object = make_object(by_hand);
  EXPECT_EQ(report(by_hand_object).status, 403);
  ASSERT_EQ(call(*admin_, "POST", "/api/v1/agents/" + agent_id_ + "/targets",
                 R"({"agent_id":")" + agent_id_ + R"(","stack_id":")" + by_hand + R"("})").status, 201);
  ASSERT_EQ(call(*admin_, "DELETE", "/api/v1/agents/" + agent_id_ + "/targets/" + by_hand).status, 204);
  EXPECT_EQ(report(by_hand_object, "IN_PROGRESS").status, 201);
  // The admin reporting for the agent is held to the same rule.
  Reply by_admin = call(*admin_, "POST", "/api/v1/agents/" + agent_id_ + "/events",
                        R"({"deployment_object_id":")" + foreign_object + R"(","event_type":"DEPLOY","status":"SUCCESS"})");
  EXPECT_EQ(by_admin.status, 403) << by_admin.body;
}

// The API file's four statuses, as written; Brokkr's agent sends them so.
TEST_P(Rules, EventStatusIsOneOfTheApiFilesValues) {
  const std::string stack = make_stack("s", generator_id_);
  const std::string object = make_object(stack);
  ASSERT_EQ(call(*admin_, "POST", "/api/v1/agents/" + agent_id_ + "/targets",
                 R"({"agent_id":")" + agent_id_ + R"(","stack_id":")" + stack + R"("})").status, 201);
  for (const char* status : {"EXPLODED", "MAYBE", "success", "Success", "SUCCESS "}) {
    Reply refused = report(object, status);
    EXPECT_EQ(refused.status, 400) << status << ": " << refused.body;
    EXPECT_EQ(pointer_of(refused), "/status") << refused.body;
  }
  for (const char* status : {"SUCCESS", "FAILURE", "IN_PROGRESS", "PENDING"}) {
    EXPECT_EQ(report(object, status).status, 201) << status;
  }
}

TEST_P(Rules, PutStackTakesAWholeStackWithItsReadOnlyFieldsAsStored) {
  const std::string stack_id = make_stack("web", generator_id_);
  const std::string path = "/api/v1/stacks/" + stack_id;
  Reply empty = call(*generator_, "PUT", path, "{}");
  EXPECT_EQ(empty.status, 400) << empty.body;
  EXPECT_EQ(text_of(empty.json, "code"), "missing_field");
  EXPECT_EQ(pointers_of(empty), (std::vector<std::string>{"/id", "/created_at", "/updated_at", "/name", "/generator_id"}));

  Value stack = call(*generator_, "GET", path).json;
  stack.set("name", Value("web-2"));
  Reply renamed = call(*generator_, "PUT", path, sindri::to_json(stack));
  ASSERT_EQ(renamed.status, 200) << renamed.body;
  EXPECT_EQ(text_of(renamed.json, "name"), "web-2");

  // The same instant written another way is the stored value.
  Value current = renamed.json;
  const std::string created = text_of(current, "created_at");
  current.set("created_at", Value(created.substr(0, 19) + created.substr(19, 7) + "+00:00"));
  Reply same_instant = call(*generator_, "PUT", path, sindri::to_json(current));
  EXPECT_EQ(same_instant.status, 200) << same_instant.body;

  Value changed = same_instant.json;
  changed.set("created_at", Value("2020-01-01T00:00:00Z"));
  changed.set("updated_at", Value("2020-01-01T00:00:00Z"));
  changed.set("deleted_at", Value("2020-01-01T00:00:00Z"));
  Reply read_only = call(*generator_, "PUT", path, sindri::to_json(changed));
  EXPECT_EQ(read_only.status, 400) << read_only.body;
  EXPECT_EQ(text_of(read_only.json, "code"), "read_only_field");
  EXPECT_EQ(pointers_of(read_only), (std::vector<std::string>{"/created_at", "/updated_at", "/deleted_at"}));
  EXPECT_EQ(text_of(call(*generator_, "GET", path).json, "name"), "web-2");

  Value stale = renamed.json;  // updated_at has moved on since
  Reply stale_reply = call(*generator_, "PUT", path, sindri::to_json(stale));
  EXPECT_EQ(stale_reply.status, 400) << stale_reply.body;
  EXPECT_EQ(pointers_of(stale_reply), std::vector<std::string>{"/updated_at"});

  Value not_a_time = same_instant.json;
  not_a_time.set("created_at", Value("yesterday"));
  Reply bad_time = call(*generator_, "PUT", path, sindri::to_json(not_a_time));
  EXPECT_EQ(bad_time.status, 400) << bad_time.body;
  EXPECT_EQ(pointer_of(bad_time), "/created_at");

  Value other_id = same_instant.json;
  other_id.set("id", Value(kUnknownId));
  EXPECT_EQ(text_of(call(*generator_, "PUT", path, sindri::to_json(other_id)).json, "code"), "stack_id_mismatch");
}

TEST_P(Rules, PutGeneratorRefusesChangesToIsSystemAndTimestamps) {
  const std::string path = "/api/v1/generators/" + generator_id_;
  Reply empty = call(*generator_, "PUT", path, "{}");
  EXPECT_EQ(empty.status, 400) << empty.body;
  EXPECT_EQ(pointers_of(empty),
            (std::vector<std::string>{"/id", "/created_at", "/updated_at", "/name", "/is_active", "/is_system"}));

  Value generator = call(*generator_, "GET", path).json;
  Value system = generator;
  system.set("is_system", Value(true));
  system.set("last_active_at", Value("2020-01-01T00:00:00Z"));
  Reply refused = call(*admin_, "PUT", path, sindri::to_json(system));
  EXPECT_EQ(refused.status, 400) << refused.body;
  EXPECT_EQ(text_of(refused.json, "code"), "read_only_field");
  EXPECT_EQ(pointers_of(refused), (std::vector<std::string>{"/last_active_at", "/is_system"}));
  EXPECT_FALSE(call(*admin_, "GET", path).json.find("is_system")->get_bool());

  // A generator sends its is_active back as it is; only an admin changes it.
  generator.set("description", Value("pipeline"));
  Reply described = call(*generator_, "PUT", path, sindri::to_json(generator));
  ASSERT_EQ(described.status, 200) << described.body;
  Value inactive = described.json;
  inactive.set("is_active", Value(false));
  EXPECT_EQ(call(*generator_, "PUT", path, sindri::to_json(inactive)).status, 403);
  EXPECT_EQ(call(*admin_, "PUT", path, sindri::to_json(inactive)).status, 200);
}

// PUT /agents/{id} takes any part of an Agent, as Brokkr's does; what the
// agent's reports set is not the caller's to change.
TEST_P(Rules, PutAgentChecksStatusRangesAndReadOnlyFields) {
  const std::string path = "/api/v1/agents/" + agent_id_;
  Reply negative = call(*admin_, "PUT", path, R"({"k8s_api_latency_ms":-1})");
  EXPECT_EQ(negative.status, 400) << negative.body;
  EXPECT_EQ(pointer_of(negative), "/k8s_api_latency_ms");
  EXPECT_NE(text_of(negative.json, "message").find("between 0 and 2147483647"), std::string::npos) << negative.body;

  Reply reported = call(*admin_, "PUT", path, R"({"k8s_api_latency_ms":5,"k8s_reachable":true})");
  EXPECT_EQ(reported.status, 400) << reported.body;
  EXPECT_EQ(pointers_of(reported), (std::vector<std::string>{"/k8s_reachable", "/k8s_api_latency_ms"}));

  for (const char* status : {"EXPLODED", "active", ""}) {
    Reply refused = call(*agent_, "PUT", path, std::string(R"({"status":")") + status + "\"}");
    EXPECT_EQ(refused.status, 400) << status << ": " << refused.body;
    EXPECT_EQ(pointer_of(refused), "/status");
  }
  Reply paused = call(*agent_, "PUT", path, R"({"status":"INACTIVE"})");
  ASSERT_EQ(paused.status, 200) << paused.body;
  // The whole record as GET answers it goes back unchanged.
  Reply whole = call(*admin_, "PUT", path, sindri::to_json(paused.json));
  EXPECT_EQ(whole.status, 200) << whole.body;
  EXPECT_EQ(text_of(whole.json, "status"), "INACTIVE");
}

// Every integer a body carries within the range the API file or sense gives
// it: a 400 naming the field and the range, nothing stored.
TEST_P(Rules, OutOfRangeNumbersAreRefused) {
  const std::string stack = make_stack("s", generator_id_);
  const std::string object = make_object(stack);
  ASSERT_EQ(call(*admin_, "POST", "/api/v1/agents/" + agent_id_ + "/targets",
                 R"({"agent_id":")" + agent_id_ + R"(","stack_id":")" + stack + R"("})").status, 201);
  struct Case {
    sindri::http::Client* client;
    std::string method, path, body, pointer;
  };
  const std::string agent = "/api/v1/agents/" + agent_id_;
  const std::string work_order = R"({"work_type":"build","yaml_content":"a: 1","targeting":{"agent_ids":[")" +
                                 agent_id_ + R"("]},)";
  const std::string webhook = R"({"name":"w","url":"https://example.com/h","event_types":["stack.created"],)";
  const std::string health = R"({"deployment_objects":[{"id":")" + object +
                             R"(","status":"healthy","checked_at":"2026-01-02T03:04:05Z","summary":{)";
  const std::vector<Case> cases = {
      {agent_.get(), "POST", agent + "/heartbeat", R"({"k8s_api_latency_ms":-1})", "/k8s_api_latency_ms"},
      {agent_.get(), "POST", agent + "/heartbeat", R"({"k8s_api_latency_ms":2147483648})", "/k8s_api_latency_ms"},
      {admin_.get(), "POST", "/api/v1/work-orders", work_order + R"("max_retries":-1})", "/max_retries"},
      {admin_.get(), "POST", "/api/v1/work-orders", work_order + R"("backoff_seconds":0})", "/backoff_seconds"},
      {admin_.get(), "POST", "/api/v1/work-orders", work_order + R"("claim_timeout_seconds":-5})",
       "/claim_timeout_seconds"},
      {admin_.get(), "POST", "/api/v1/webhooks", webhook + R"("max_retries":-1})", "/max_retries"},
      {admin_.get(), "POST", "/api/v1/webhooks", webhook + R"("timeout_seconds":0})", "/timeout_seconds"},
      {admin_.get(), "POST", "/api/v1/deployment-objects/" + object + "/diagnostics",
       R"({"agent_id":")" + agent_id_ + R"(","retention_minutes":-1})", "/retention_minutes"},
      {agent_.get(), "PATCH", agent + "/health-status",
       health + R"("pods_ready":-1,"pods_total":1,"conditions":[],"resources":[]}}]})",
       "/deployment_objects/0/summary/pods_ready"},
  };
  for (const Case& bad : cases) {
    Reply reply = call(*bad.client, bad.method, bad.path, bad.body);
    EXPECT_GE(reply.status, 400) << bad.body << " -> " << reply.body;
    EXPECT_LT(reply.status, 500) << bad.body << " -> " << reply.body;
    EXPECT_EQ(pointer_of(reply), bad.pointer) << bad.body << " -> " << reply.body;
  }
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/work-orders").json.size(), 0u);
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/webhooks").json.size(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Backends, Rules, ::testing::Values(Backend::Sqlite, Backend::Postgres), backend_name);

}  // namespace
}  // namespace sindri_test
