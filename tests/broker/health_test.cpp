// Deployment health, black box over HTTP on both databases: agents report
// the health of the objects they deploy, one record per agent and object;
// admins read it per object and per stack, the worst status winning; bad
// reports and callers are refused with the field or rule named.

#include <algorithm>

#include "broker_process.hpp"

namespace sindri_test {
namespace {

using sindri::Value;

const std::string kUnknownId = "00000000-0000-4000-8000-000000000000";

std::string report_body(const std::string& object_id, const std::string& status,
                        const std::string& extra = R"(,"checked_at":"2026-01-02T03:04:05Z")") {
  return R"({"deployment_objects":[{"id":")" + object_id + R"(","status":")" + status + "\"" + extra + "}]}";
}

class DeploymentHealth : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    broker_ = std::make_unique<BrokerProcess>(GetParam());
    if (!broker_->usable()) GTEST_FAIL() << "no database for this backend";
    broker_->start();
    admin_ = broker_->client(broker_->admin_pak());
    Reply generator = call(*admin_, "POST", "/api/v1/generators", R"({"name":"g"})");
    ASSERT_EQ(generator.status, 201) << generator.body;
    generator_ = broker_->client(text_of(generator.json, "pak"));
    const std::string generator_id = text_of(*generator.json.find("generator"), "id");
    Reply stack = call(*generator_, "POST", "/api/v1/stacks", R"({"name":"s","generator_id":")" + generator_id + "\"}");
    ASSERT_EQ(stack.status, 201) << stack.body;
    stack_id_ = text_of(stack.json, "id");
    for (const char* name : {"one", "two"}) {
      Reply object = call(*generator_, "POST", "/api/v1/stacks/" + stack_id_ + "/deployment-objects",
                          std::string(R"({"yaml_content":"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: )") +
                              name + "\\n\"}");
      ASSERT_EQ(object.status, 201) << object.body;
      object_ids_.push_back(text_of(object.json, "id"));
    }
    // Agents a0 and a1 target the stack; a2 does not.
    for (const char* name : {"a0", "a1", "a2"}) {
      Reply agent = call(*admin_, "POST", "/api/v1/agents",
                         std::string(R"({"name":")") + name + R"(","cluster_name":"c"})");
      ASSERT_EQ(agent.status, 201) << agent.body;
      agent_ids_.push_back(text_of(*agent.json.find("agent"), "id"));
      agents_.push_back(broker_->client(text_of(agent.json, "initial_pak")));
    }
    for (size_t i = 0; i < 2; ++i) {
      Reply target = call(*admin_, "POST", "/api/v1/agents/" + agent_ids_[i] + "/targets",
                          R"({"stack_id":")" + stack_id_ + "\"}");
      ASSERT_EQ(target.status, 201) << target.body;
    }
  }

  Reply report(size_t agent, const std::string& body) {
    return call(*agents_[agent], "PATCH", "/api/v1/agents/" + agent_ids_[agent] + "/health-status", body);
  }
  Reply object_health(size_t object) {
    return call(*admin_, "GET", "/api/v1/deployment-objects/" + object_ids_[object] + "/health");
  }
  Reply stack_health() { return call(*admin_, "GET", "/api/v1/stacks/" + stack_id_ + "/health"); }

  std::unique_ptr<BrokerProcess> broker_;
  std::unique_ptr<sindri::http::Client> admin_, generator_;
  std::string stack_id_;
  std::vector<std::string> object_ids_, agent_ids_;
  std::vector<std::unique_ptr<sindri::http::Client>> agents_;
};

TEST_P(DeploymentHealth, NothingReportedIsUnknown) {
  Reply object = object_health(0);
  ASSERT_EQ(object.status, 200) << object.body;
  EXPECT_EQ(text_of(object.json, "deployment_object_id"), object_ids_[0]);
  EXPECT_EQ(text_of(object.json, "overall_status"), "unknown");
  EXPECT_EQ(object.json.find("health_records")->size(), 0u);
  Reply stack = stack_health();
  ASSERT_EQ(stack.status, 200) << stack.body;
  EXPECT_EQ(text_of(stack.json, "stack_id"), stack_id_);
  EXPECT_EQ(text_of(stack.json, "overall_status"), "unknown");
  EXPECT_EQ(stack.json.find("deployment_objects")->size(), 0u);
  // An empty report changes nothing.
  EXPECT_EQ(report(0, R"({"deployment_objects":[]})").status, 200);
}

TEST_P(DeploymentHealth, ReportsAreUpsertedAndTheWorstStatusWins) {
  const std::string summary =
      R"(,"summary":{"pods_ready":2,"pods_total":3,"conditions":["ImagePullBackOff"],)"
      R"("resources":[{"kind":"Deployment","name":"web","namespace":"default","ready":false,"message":null}]})"
      R"(,"checked_at":"2026-01-02T04:04:05.5+01:00")";
  Reply first = report(0, report_body(object_ids_[0], "healthy", summary));
  ASSERT_EQ(first.status, 200) << first.body;
  Reply object = object_health(0);
  ASSERT_EQ(object.status, 200) << object.body;
  EXPECT_EQ(text_of(object.json, "overall_status"), "healthy");
  ASSERT_EQ(object.json.find("health_records")->size(), 1u) << object.body;
  const Value& record = *object.json.find("health_records")->at(0);
  EXPECT_EQ(text_of(record, "agent_id"), agent_ids_[0]);
  EXPECT_EQ(text_of(record, "deployment_object_id"), object_ids_[0]);
  EXPECT_EQ(text_of(record, "status"), "healthy");
  // The offset is folded into UTC, in the broker's fixed-width form.
  EXPECT_EQ(text_of(record, "checked_at"), "2026-01-02T03:04:05.500000Z");
  EXPECT_EQ(text_of(record, "id").size(), 36u);
  EXPECT_FALSE(text_of(record, "created_at").empty());
  auto summary_json = sindri::parse_json(text_of(record, "summary"));
  ASSERT_TRUE(summary_json.ok()) << record.find("summary")->kind_name();
  EXPECT_EQ(summary_json->find("pods_total")->get_int(), 3);

  // The same agent reports again: its one record changes.
  ASSERT_EQ(report(0, report_body(object_ids_[0], "degraded")).status, 200);
  object = object_health(0);
  ASSERT_EQ(object.json.find("health_records")->size(), 1u) << object.body;
  EXPECT_EQ(text_of(object.json, "overall_status"), "degraded");
  EXPECT_TRUE(object.json.find("health_records")->at(0)->find("summary")->is_null()) << object.body;

  // Another agent finds it failing: the object and the stack are failing.
  const std::string both = R"({"deployment_objects":[{"id":")" + object_ids_[0] +
                           R"(","status":"failing","checked_at":"2026-01-02T03:04:06Z"},{"id":")" + object_ids_[1] +
                           R"(","status":"unknown","checked_at":"2026-01-02T03:04:06Z"}]})";
  ASSERT_EQ(report(1, both).status, 200);
  object = object_health(0);
  EXPECT_EQ(object.json.find("health_records")->size(), 2u) << object.body;
  EXPECT_EQ(text_of(object.json, "overall_status"), "failing");
  Reply stack = stack_health();
  ASSERT_EQ(stack.status, 200) << stack.body;
  EXPECT_EQ(text_of(stack.json, "overall_status"), "failing");
  const Value& objects = *stack.json.find("deployment_objects");
  ASSERT_EQ(objects.size(), 2u) << stack.body;
  EXPECT_EQ(text_of(*objects.at(0), "id"), object_ids_[0]);
  EXPECT_EQ(text_of(*objects.at(0), "status"), "failing");
  EXPECT_EQ(objects.at(0)->find("degraded_agents")->get_int(), 1);
  EXPECT_EQ(objects.at(0)->find("failing_agents")->get_int(), 1);
  EXPECT_EQ(objects.at(0)->find("healthy_agents")->get_int(), 0);
  EXPECT_EQ(text_of(*objects.at(1), "status"), "unknown");

  // Both recover: the worst left is degraded, then healthy.
  ASSERT_EQ(report(1, report_body(object_ids_[0], "healthy")).status, 200);
  EXPECT_EQ(text_of(stack_health().json, "overall_status"), "degraded");
  ASSERT_EQ(report(0, report_body(object_ids_[0], "healthy")).status, 200);
  EXPECT_EQ(text_of(stack_health().json, "overall_status"), "healthy");
}

TEST_P(DeploymentHealth, AnAgentReportsOnlyForItselfAndWhatItTargets) {
  Reply other = call(*agents_[1], "PATCH", "/api/v1/agents/" + agent_ids_[0] + "/health-status",
                     report_body(object_ids_[0], "healthy"));
  EXPECT_EQ(other.status, 403) << other.body;
  EXPECT_EQ(text_of(other.json, "code"), "agent_pak_mismatch");
  Reply untargeted = report(2, report_body(object_ids_[0], "healthy"));
  EXPECT_EQ(untargeted.status, 403) << untargeted.body;
  EXPECT_NE(untargeted.body.find("/deployment_objects/0/id"), std::string::npos) << untargeted.body;
  // brokkr-v1.json lets only agents report and only admins read.
  EXPECT_EQ(call(*admin_, "PATCH", "/api/v1/agents/" + agent_ids_[0] + "/health-status",
                 report_body(object_ids_[0], "healthy"))
                .status,
            403);
  EXPECT_EQ(call(*generator_, "GET", "/api/v1/stacks/" + stack_id_ + "/health").status, 403);
  EXPECT_EQ(call(*agents_[0], "GET", "/api/v1/deployment-objects/" + object_ids_[0] + "/health").status, 403);
  auto anonymous = broker_->client("");
  EXPECT_EQ(call(*anonymous, "GET", "/api/v1/stacks/" + stack_id_ + "/health").status, 401);
  // Nothing was recorded by the refused reports.
  EXPECT_EQ(object_health(0).json.find("health_records")->size(), 0u);
}

TEST_P(DeploymentHealth, BadReportsNameTheField) {
  struct Case {
    std::string body;
    int status;
    std::string names;
  };
  const std::vector<Case> cases = {
      {report_body(object_ids_[0], "sick"), 422, "/deployment_objects/0/status"},
      {report_body(object_ids_[0], "Healthy"), 422, "healthy, degraded, failing, unknown"},
      {R"({"deployment_objects":[{"id":")" + object_ids_[0] + R"(","status":3,"checked_at":"2026-01-02T03:04:05Z"}]})",
       400, "/deployment_objects/0/status"},
      {report_body(object_ids_[0], "healthy", ""), 400, "/deployment_objects/0/checked_at"},
      {report_body(object_ids_[0], "healthy", R"(,"checked_at":"yesterday")"), 400,
       "/deployment_objects/0/checked_at"},
      {report_body(object_ids_[0], "healthy", R"(,"checked_at":"2026-02-30T00:00:00Z")"), 400,
       "/deployment_objects/0/checked_at"},
      {report_body("not-a-uuid", "healthy"), 400, "/deployment_objects/0/id"},
      {report_body(kUnknownId, "healthy"), 403, "/deployment_objects/0/id"},  // as another tenant's object
      {report_body(object_ids_[0], "healthy", R"(,"checked_at":"2026-01-02T03:04:05Z","colour":"red")"), 400,
       "/deployment_objects/0/colour"},
      {report_body(object_ids_[0], "healthy", R"(,"checked_at":"2026-01-02T03:04:05Z","summary":{"pods_ready":1})"),
       400, "/deployment_objects/0/summary/pods_total"},
      {report_body(object_ids_[0], "healthy",
                   R"(,"checked_at":"2026-01-02T03:04:05Z","summary":{"pods_ready":1,"pods_total":-1,"conditions":[]})"),
       400, "/deployment_objects/0/summary/pods_total"},
      {report_body(object_ids_[0], "healthy",
                   R"(,"checked_at":"2026-01-02T03:04:05Z","summary":{"pods_ready":1,"pods_total":1,"conditions":[1]})"),
       400, "/deployment_objects/0/summary/conditions/0"},
      {report_body(object_ids_[0], "healthy",
                   R"(,"checked_at":"2026-01-02T03:04:05Z","summary":{"pods_ready":1,"pods_total":1,"conditions":[],)"
                   R"("resources":[{"kind":"Pod","name":"p","namespace":"n","ready":"yes"}]})"),
       400, "/deployment_objects/0/summary/resources/0/ready"},
      {R"({"deployment_objects":{}})", 400, "/deployment_objects"},
      {R"({"deployment_objects":[7]})", 400, "/deployment_objects/0"},
      {R"({})", 400, "/deployment_objects"},
      {R"([])", 400, "JSON object"},
      {R"({"deployment_objects":[],"extra":1})", 400, "/extra"},
  };
  for (const Case& bad : cases) {
    Reply reply = report(0, bad.body);
    EXPECT_EQ(reply.status, bad.status) << bad.body << " -> " << reply.body;
    EXPECT_NE(reply.body.find(bad.names), std::string::npos) << bad.body << " -> " << reply.body;
  }
  Reply sick = report(0, report_body(object_ids_[0], "sick"));
  EXPECT_EQ(text_of(sick.json, "code"), "invalid_health_record");
  // A bad second record leaves the good first one unwritten.
  const std::string mixed = R"({"deployment_objects":[{"id":")" + object_ids_[0] +
                            R"(","status":"healthy","checked_at":"2026-01-02T03:04:05Z"},{"id":")" + kUnknownId +
                            R"(","status":"healthy","checked_at":"2026-01-02T03:04:05Z"}]})";
  // An id that exists nowhere is answered as another tenant's object is.
  Reply unknown = report(0, mixed);
  EXPECT_EQ(unknown.status, 403) << unknown.body;
  EXPECT_EQ(text_of(unknown.json, "code"), "agent_not_associated");
  EXPECT_EQ(object_health(0).json.find("health_records")->size(), 0u);
}

TEST_P(DeploymentHealth, UnknownAndMalformedIdsOnReads) {
  Reply object = call(*admin_, "GET", "/api/v1/deployment-objects/" + kUnknownId + "/health");
  EXPECT_EQ(object.status, 404) << object.body;
  EXPECT_EQ(text_of(object.json, "code"), "deployment_object_not_found");
  Reply stack = call(*admin_, "GET", "/api/v1/stacks/" + kUnknownId + "/health");
  EXPECT_EQ(stack.status, 404) << stack.body;
  EXPECT_EQ(text_of(stack.json, "code"), "stack_not_found");
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/stacks/nope/health").status, 400);
  EXPECT_EQ(call(*agents_[0], "PATCH", "/api/v1/agents/nope/health-status", report_body(object_ids_[0], "healthy"))
                .status,
            400);
}

// A deleted agent's reports no longer count.
TEST_P(DeploymentHealth, ADeletedAgentsReportsAreLeftOut) {
  ASSERT_EQ(report(0, report_body(object_ids_[0], "failing")).status, 200);
  ASSERT_EQ(report(1, report_body(object_ids_[0], "healthy")).status, 200);
  EXPECT_EQ(text_of(stack_health().json, "overall_status"), "failing");
  ASSERT_EQ(call(*admin_, "DELETE", "/api/v1/agents/" + agent_ids_[0]).status, 204);
  EXPECT_EQ(text_of(stack_health().json, "overall_status"), "healthy");
  EXPECT_EQ(object_health(0).json.find("health_records")->size(), 1u);
}

// Beyond Brokkr: a change of an agent's status for an object is a
// health.changed event, so webhooks hear of it; a repeated status is not.
TEST_P(DeploymentHealth, AChangedStatusRaisesHealthChanged) {
  // Deliveries an agent carries out stay pending here: nothing delivers them.
  Reply webhook = call(*admin_, "POST", "/api/v1/webhooks",
                       R"({"name":"health","url":"https://hooks.example/in","event_types":["health.*"],)"
                       R"("target_labels":["nowhere"]})");
  ASSERT_EQ(webhook.status, 201) << webhook.body;
  const std::string deliveries = "/api/v1/webhooks/" + text_of(webhook.json, "id") + "/deliveries";
  ASSERT_EQ(report(0, report_body(object_ids_[0], "unknown")).status, 200);
  ASSERT_EQ(report(0, report_body(object_ids_[0], "healthy")).status, 200);
  ASSERT_EQ(report(0, report_body(object_ids_[0], "healthy")).status, 200);
  ASSERT_EQ(report(0, report_body(object_ids_[0], "failing")).status, 200);
  Reply listed = call(*admin_, "GET", deliveries);
  ASSERT_EQ(listed.status, 200) << listed.body;
  ASSERT_EQ(listed.json.size(), 2u) << listed.body;
  std::vector<std::pair<Value, Value>> changes;
  for (const Value& delivery : listed.json.get_array()) {
    EXPECT_EQ(text_of(delivery, "event_type"), "health.changed");
    const Value* payload = delivery.find("payload");
    ASSERT_NE(payload, nullptr) << listed.body;
    Value parsed = *payload;
    if (payload->is_string()) parsed = sindri::parse_json(payload->get_string()).value();
    const Value& data = *parsed.find("data");
    EXPECT_EQ(text_of(data, "agent_id"), agent_ids_[0]);
    EXPECT_EQ(text_of(data, "stack_id"), stack_id_);
    EXPECT_EQ(text_of(data, "deployment_object_id"), object_ids_[0]);
    changes.emplace_back(*data.find("old_status"), *data.find("new_status"));
  }
  std::sort(changes.begin(), changes.end(), [](const auto& a, const auto& b) {
    return sindri::to_json(a.second) < sindri::to_json(b.second);
  });
  EXPECT_EQ(sindri::to_json(changes[0].first), R"("healthy")");
  EXPECT_EQ(sindri::to_json(changes[0].second), R"("failing")");
  EXPECT_EQ(sindri::to_json(changes[1].first), R"("unknown")");
  EXPECT_EQ(sindri::to_json(changes[1].second), R"("healthy")");
}

INSTANTIATE_TEST_SUITE_P(Backends, DeploymentHealth, ::testing::Values(Backend::Sqlite, Backend::Postgres),
                         backend_name);

}  // namespace
}  // namespace sindri_test
