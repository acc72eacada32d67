// collect_diagnostics against the Kubernetes API test server: the namespaces
// a deployment object's YAML names, its pods' statuses, the newest events,
// log tails, and Brokkr's error form.
#include "agent/workloads/diagnostics.hpp"

#include <gtest/gtest.h>

#include <string>

#include "value/rfc3339.hpp"
#include "test_cluster.hpp"

namespace sindri::agent {
namespace {

constexpr std::string_view kId = "6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b";

constexpr std::string_view kDeploymentObjectYaml = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: web
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: web
)";

class Diagnostics : public ClusterTest {
 protected:
  void SetUp() override {
    ClusterTest::SetUp();
    put("{apiVersion: v1, kind: Namespace, metadata: {name: web}}");
    put("{apiVersion: v1, kind: Namespace, metadata: {name: apps}}");
  }

  // The members of a result that are JSON text, read back.
  static Value decoded(const Value& result, std::string_view member) {
    const Value* text = result.find(member);
    EXPECT_TRUE(text && text->is_string()) << member;
    return text && text->is_string() ? json(text->get_string()) : Value();
  }

  void put_event(std::string_view namespace_, int number, std::string_view last_timestamp) {
    put("{apiVersion: v1, kind: Event, metadata: {name: e" + std::to_string(number) + ", namespace: " +
        std::string(namespace_) + "}, type: Normal, reason: R" + std::to_string(number) +
        ", message: 'event " + std::to_string(number) + "', count: 1, involvedObject: {kind: Pod, name: web-a}" +
        (last_timestamp.empty() ? "" : ", lastTimestamp: '" + std::string(last_timestamp) + "'") + "}");
  }
};

TEST_F(Diagnostics, CollectsPodsEventsAndLogTailsOfTheDeploymentObject) {
  std::string app_log_block;  // 150 lines, as a literal block scalar in the annotation
  for (int line = 1; line <= 150; ++line) app_log_block += "      line " + std::to_string(line) + "\n";
  put("apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-a\n  namespace: web\n"
      "  labels: {brokkr.io/deployment-object-id: " + std::string(kId) + "}\n"
      "  annotations:\n    sindri-test/log.app: |\n" + app_log_block +
      "    sindri-test/log.sidecar: \"sidecar started\\n\"\n"
      "spec:\n  containers: [{name: app, image: web}, {name: sidecar, image: proxy}]\n"
      "status:\n  phase: Pending\n"
      "  conditions: [{type: Ready, status: 'False', reason: ContainersNotReady, "
      "message: 'containers with unready status: [app]'}]\n"
      "  containerStatuses:\n"
      "  - {name: app, ready: false, restartCount: 3, state: {waiting: {reason: CrashLoopBackOff, message: back-off}}}\n"
      "  - {name: sidecar, ready: true, restartCount: 0, state: {running: {startedAt: '2026-11-26T10:00:00Z'}}}\n");
  put("{apiVersion: v1, kind: Pod, metadata: {name: someone-else, namespace: web}, spec: {containers: [{name: x, image: x}]}}");
  // 61 events in web: R1..R59 at 10:01..10:59, R60 at 10:00, R0 with no time.
  put_event("web", 0, "");
  for (int number = 1; number <= 60; ++number) {
    const int minute = number % 60;
    put_event("web", number, "2026-11-26T10:" + std::string(minute < 10 ? "0" : "") + std::to_string(minute) + ":00Z");
  }
  put_event("apps", 99, "2026-11-26T09:00:00Z");
  server().clear_requests();

  const Value result = collect_diagnostics(client(), kId, kDeploymentObjectYaml, "apps");

  EXPECT_TRUE(rfc3339::parse_micros(result.find("collected_at")->get_string()).has_value());
  const Value pods = decoded(result, "pod_statuses");
  EXPECT_EQ(to_json(pods),
            R"([{"conditions":[{"condition_type":"Ready","message":"containers with unready status: [app]",)"
            R"("reason":"ContainersNotReady","status":"False"}],"containers":[{"name":"app","ready":false,)"
            R"("restart_count":3,"state":"Waiting","state_message":"back-off","state_reason":"CrashLoopBackOff"},)"
            R"({"name":"sidecar","ready":true,"restart_count":0,"state":"Running",)"
            R"("state_message":"Started at 2026-11-26T10:00:00Z","state_reason":null}],"name":"web-a",)"
            R"("namespace":"web","phase":"Pending"}])");

  // The namespaces named, first seen first: web, then apps for the ConfigMap.
  const Value events = decoded(result, "events");
  ASSERT_EQ(events.size(), 51u) << "50 newest of web, then apps' one";
  EXPECT_EQ(events.at(0)->find("reason")->get_string(), "R59") << "10:59 is the newest; R60 is at 10:00";
  EXPECT_EQ(to_json(*events.at(0)),
            R"({"count":1,"event_type":"Normal","first_timestamp":null,"involved_object":"web-a",)"
            R"("involved_object_kind":"Pod","last_timestamp":"2026-11-26T10:59:00Z","message":"event 59","reason":"R59"})");
  for (size_t i = 0; i < 50; ++i) EXPECT_NE(events.at(i)->find("reason")->get_string(), "R0") << "untimed sorts last";
  EXPECT_EQ(events.at(50)->find("reason")->get_string(), "R99");

  const Value logs = decoded(result, "log_tails");
  ASSERT_EQ(logs.size(), 2u);
  const std::string_view app_log = logs.find("web-a/app")->get_string();
  EXPECT_TRUE(app_log.starts_with("line 51\n")) << app_log.substr(0, 40);
  EXPECT_TRUE(app_log.ends_with("line 150\n"));
  EXPECT_EQ(logs.find("web-a/sidecar")->get_string(), "sidecar started\n");

  EXPECT_EQ(requests_to("GET", "/api/v1/namespaces/web/pods"), 1u);
  EXPECT_EQ(requests_to("GET", "/api/v1/namespaces/apps/pods"), 1u);
  EXPECT_EQ(requests_to("GET", "/api/v1/namespaces/web/pods/web-a/log"), 2u);
  EXPECT_EQ(requests_to("GET", "/api/v1/namespaces/web/pods/someone-else/log"), 0u);
  bool asked_for_the_tail = false;
  for (const Value requests = server().requests(); const Value& request : requests.get_array()) {
    if (request.find("path")->get_string() == "/api/v1/namespaces/web/pods/web-a/log") {
      asked_for_the_tail = asked_for_the_tail || request.find("query")->get_string() == "container=app&tailLines=100";
    }
  }
  EXPECT_TRUE(asked_for_the_tail);
}

TEST_F(Diagnostics, DocumentsWithoutANamespaceAreLookedForInDefaultWithoutAWatchedNamespace) {
  server().clear_requests();
  const Value result = collect_diagnostics(client(), kId, "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}", "");
  EXPECT_EQ(result.find("pod_statuses")->get_string(), "[]");
  EXPECT_EQ(result.find("events")->get_string(), "[]");
  EXPECT_EQ(result.find("log_tails")->get_string(), "{}");
  EXPECT_EQ(requests_to("GET", "/api/v1/namespaces/default/pods"), 1u);
  EXPECT_EQ(requests_to("GET", "/api/v1/namespaces/default/events"), 1u);
}

TEST_F(Diagnostics, UnparseableYamlFallsBackToTheWatchedNamespace) {
  server().clear_requests();
  const Value result = collect_diagnostics(client(), kId, "kind: [unclosed", "apps");
  EXPECT_EQ(result.find("pod_statuses")->get_string(), "[]");
  EXPECT_EQ(requests_to("GET", "/api/v1/namespaces/apps/pods"), 1u);
  EXPECT_EQ(server().requests().size(), 2u) << "pods and events of apps, nothing else";
}

TEST_F(Diagnostics, AContainerLogThatCannotBeReadSaysWhyInItsPlace) {
  put("{apiVersion: v1, kind: Pod, metadata: {name: web-a, namespace: web, annotations: {sindri-test/log: ok}, labels: "
      "{brokkr.io/deployment-object-id: " + std::string(kId) +
      "}}, spec: {containers: [{name: app, image: web}, {name: sidecar, image: proxy}]}}");
  server().inject_failures("GET", "/api/v1/namespaces/web/pods/web-a/log", 403, 1);
  const Value result = collect_diagnostics(client(), kId, kDeploymentObjectYaml, "");
  const Value logs = decoded(result, "log_tails");
  EXPECT_TRUE(logs.find("web-a/app")->get_string().starts_with("Error: ")) << logs.find("web-a/app")->get_string();
  EXPECT_EQ(logs.find("web-a/sidecar")->get_string(), "ok");
  const Value pods = decoded(result, "pod_statuses");
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_EQ(pods.at(0)->find("phase")->get_string(), "Unknown") << "a pod with no status yet";
}

TEST_F(Diagnostics, PodsThatCannotBeListedGiveBrokkrsErrorForm) {
  server().inject_failures("GET", "/api/v1/namespaces/web/pods", 403, 1);
  const Value result = collect_diagnostics(client(), kId, kDeploymentObjectYaml, "");
  EXPECT_EQ(result.find("pod_statuses")->get_string(), "[]");
  EXPECT_TRUE(result.find("log_tails")->is_null());
  const Value events = decoded(result, "events");
  ASSERT_EQ(events.size(), 1u);
  const std::string_view error = events.at(0)->find("error")->get_string();
  EXPECT_NE(error.find("injected failure"), std::string_view::npos) << error;
  EXPECT_TRUE(rfc3339::parse_micros(result.find("collected_at")->get_string()).has_value());
}

TEST_F(Diagnostics, EventsThatCannotBeListedGiveTheErrorFormToo) {
  server().inject_failures("GET", "/api/v1/namespaces/web/events", 403, 1);
  const Value result = collect_diagnostics(client(), kId, kDeploymentObjectYaml, "");
  EXPECT_EQ(result.find("pod_statuses")->get_string(), "[]");
  EXPECT_EQ(decoded(result, "events").size(), 1u);
}

}  // namespace
}  // namespace sindri::agent
