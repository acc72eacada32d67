// check_deployment_health against the Kubernetes API test server: pods found
// by label, by annotation and up controller ownerReferences, the namespace
// watched, and a listing that fails.
#include "agent/workloads/deployment_health.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "value/rfc3339.hpp"
#include "test_cluster.hpp"

namespace sindri::agent {
namespace {

constexpr std::string_view kId = "6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b";
constexpr std::string_view kOtherId = "11111111-2222-4333-8444-555555555555";

class DeploymentHealth : public ClusterTest {
 protected:
  void SetUp() override {
    ClusterTest::SetUp();
    put("{apiVersion: v1, kind: Namespace, metadata: {name: web}}");
  }

  // A pod in `namespace_` with the metadata members `metadata` (flow YAML)
  // and a container in `state`.
  void put_pod(std::string_view namespace_, std::string_view name, std::string_view metadata,
               std::string_view state = "{running: {}}", bool ready = true) {
    put("{apiVersion: v1, kind: Pod, metadata: {name: " + std::string(name) + ", namespace: " +
        std::string(namespace_) + (metadata.empty() ? "" : ", ") + std::string(metadata) +
        "}, spec: {containers: [{name: app, image: web}]}, status: {phase: Running, conditions: [{type: Ready, "
        "status: '" + (ready ? "True" : "False") + "'}], containerStatuses: [{name: app, ready: " +
        (ready ? "true" : "false") + ", restartCount: 0, state: " + std::string(state) + "}]}}");
  }
};

TEST_F(DeploymentHealth, FindsPodsByTheLabelInEveryNamespace) {
  put_pod("web", "a", "labels: {brokkr.io/deployment-object-id: " + std::string(kId) + "}");
  put_pod("default", "b", "labels: {brokkr.io/deployment-object-id: 6F1C2A8E-3B4D-4E5F-8A9B-0C1D2E3F4A5B}",
          "{waiting: {reason: ImagePullBackOff, message: 'no such image'}}", false);
  put_pod("web", "other", "labels: {brokkr.io/deployment-object-id: " + std::string(kOtherId) + "}");
  put_pod("web", "unlabelled", "");
  server().clear_requests();

  const Value report = check_deployment_health(client(), kId, "");
  EXPECT_EQ(report.find("id")->get_string(), kId);
  EXPECT_EQ(report.find("status")->get_string(), "degraded");
  EXPECT_EQ(to_json(*report.find("summary")),
            R"({"conditions":["ImagePullBackOff"],"pods_ready":1,"pods_total":2,"resources":[{"kind":"Pod",)"
            R"("message":"no such image","name":"b","namespace":"default","ready":false}]})");
  EXPECT_TRUE(rfc3339::parse_micros(report.find("checked_at")->get_string()).has_value());
  EXPECT_EQ(requests_to("GET", "/api/v1/pods"), 1u);
}

TEST_F(DeploymentHealth, LooksOnlyInTheWatchedNamespace) {
  put_pod("web", "a", "labels: {brokkr.io/deployment-object-id: " + std::string(kId) + "}");
  put_pod("default", "b", "labels: {brokkr.io/deployment-object-id: " + std::string(kId) + "}");
  server().clear_requests();
  const Value report = check_deployment_health(client(), kId, "web");
  EXPECT_EQ(report.find("status")->get_string(), "healthy");
  EXPECT_EQ(report.find("summary")->find("pods_total")->get_int(), 1);
  EXPECT_EQ(requests_to("GET", "/api/v1/namespaces/web/pods"), 1u);
  EXPECT_EQ(requests_to("GET", "/api/v1/pods"), 0u);
}

TEST_F(DeploymentHealth, FindsABarePodByItsAnnotation) {
  put_pod("web", "bare", "annotations: {brokkr.io/deployment-object-id: " + std::string(kId) + "}",
          "{terminated: {reason: OOMKilled, exitCode: 137}}", false);
  const Value report = check_deployment_health(client(), kId, "web");
  EXPECT_EQ(report.find("status")->get_string(), "degraded");
  EXPECT_EQ(to_json(*report.find("summary")->find("conditions")), R"(["OOMKilled"])");
}

TEST_F(DeploymentHealth, FollowsOwnerReferencesThroughAReplicaSetToTheAnnotatedDeployment) {
  put("{apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: web, uid: d-1, annotations: "
      "{brokkr.io/deployment-object-id: " + std::string(kId) + "}}, spec: {}}");
  put("{apiVersion: apps/v1, kind: ReplicaSet, metadata: {name: web-7d9, namespace: web, uid: rs-1, "
      "ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: d-1, controller: true}]}}");
  const std::string owned_by_replica_set =
      "ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: not-the-controller, uid: cm-1}, "
      "{apiVersion: apps/v1, kind: ReplicaSet, name: web-7d9, uid: rs-1, controller: true}]";
  put_pod("web", "web-7d9-aaaaa", owned_by_replica_set);
  put_pod("web", "web-7d9-bbbbb", owned_by_replica_set, "{waiting: {reason: CrashLoopBackOff}}", false);
  // A Deployment the agent did not apply: its pods belong to nothing.
  put("{apiVersion: apps/v1, kind: Deployment, metadata: {name: theirs, namespace: web, uid: d-2}, spec: {}}");
  put("{apiVersion: apps/v1, kind: ReplicaSet, metadata: {name: theirs-1, namespace: web, uid: rs-2, "
      "ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: theirs, uid: d-2, controller: true}]}}");
  put_pod("web", "theirs-1-ccccc",
          "ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: theirs-1, uid: rs-2, controller: true}]");
  server().clear_requests();

  const Value report = check_deployment_health(client(), kId, "");
  EXPECT_EQ(report.find("status")->get_string(), "degraded");
  EXPECT_EQ(report.find("summary")->find("pods_total")->get_int(), 2);
  EXPECT_EQ(report.find("summary")->find("pods_ready")->get_int(), 1);
  // Each owner is read once: the second pod of the ReplicaSet is remembered.
  EXPECT_EQ(requests_to("GET", "/apis/apps/v1/namespaces/web/replicasets/web-7d9"), 1u);
  EXPECT_EQ(requests_to("GET", "/apis/apps/v1/namespaces/web/deployments/web"), 1u);
  EXPECT_EQ(requests_to("GET", "/apis/apps/v1/namespaces/web/replicasets/theirs-1"), 1u);
  EXPECT_EQ(requests_to("GET", "/api/v1/namespaces/web/configmaps/not-the-controller"), 0u);
}

TEST_F(DeploymentHealth, AnOwnerLoopEndsAfterFourHops) {
  put("{apiVersion: apps/v1, kind: ReplicaSet, metadata: {name: loop, namespace: web, uid: rs-loop, "
      "ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: loop, uid: rs-loop, controller: true}]}}");
  put_pod("web", "loop-aaaaa",
          "ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: loop, uid: rs-loop, controller: true}]");
  server().clear_requests();
  const Value report = check_deployment_health(client(), kId, "web");
  EXPECT_EQ(report.find("status")->get_string(), "unknown");
  EXPECT_EQ(requests_to("GET", "/apis/apps/v1/namespaces/web/replicasets/loop"), 4u);
}

TEST_F(DeploymentHealth, AMissingOwnerOrAnUnknownKindEndsTheWalk) {
  put_pod("web", "orphan",
          "ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: gone, uid: rs-x, controller: true}]");
  put_pod("web", "odd",
          "ownerReferences: [{apiVersion: example.com/v1, kind: Widget, name: w, uid: w-1, controller: true}]");
  const Value report = check_deployment_health(client(), kId, "web");
  EXPECT_EQ(report.find("status")->get_string(), "unknown");
  EXPECT_EQ(report.find("summary")->find("pods_total")->get_int(), 0);
}

TEST_F(DeploymentHealth, NoPodsIsUnknown) {
  const Value report = check_deployment_health(client(), kId, "web");
  EXPECT_EQ(report.find("status")->get_string(), "unknown");
  EXPECT_EQ(to_json(*report.find("summary")), R"({"conditions":[],"pods_ready":0,"pods_total":0,"resources":[]})");
}

TEST_F(DeploymentHealth, PodsThatCannotBeListedAreUnknownNotHealthy) {
  put_pod("web", "a", "labels: {brokkr.io/deployment-object-id: " + std::string(kId) + "}");
  server().inject_failures("GET", "/api/v1/namespaces/web/pods", 403, 1);
  const Value report = check_deployment_health(client(), kId, "web");
  EXPECT_EQ(report.find("status")->get_string(), "unknown");
  EXPECT_EQ(report.find("summary")->find("pods_total")->get_int(), 0);
}

TEST_F(DeploymentHealth, SeveralObjectsShareOneListingAndKeepTheirOrder) {
  put_pod("web", "a", "labels: {brokkr.io/deployment-object-id: " + std::string(kId) + "}");
  put_pod("web", "b", "labels: {brokkr.io/deployment-object-id: " + std::string(kOtherId) + "}",
          "{waiting: {reason: ErrImagePull}}", false);
  server().clear_requests();
  const std::vector<std::string> ids = {std::string(kOtherId), std::string(kId), "not-a-uuid"};
  const Value reports = check_deployments_health(client(), ids, "web");
  ASSERT_EQ(reports.size(), 3u);
  EXPECT_EQ(reports.at(0)->find("id")->get_string(), kOtherId);
  EXPECT_EQ(reports.at(0)->find("status")->get_string(), "degraded");
  EXPECT_EQ(reports.at(1)->find("status")->get_string(), "healthy");
  EXPECT_EQ(reports.at(2)->find("status")->get_string(), "unknown");
  EXPECT_EQ(requests_to("GET", "/api/v1/namespaces/web/pods"), 1u);
}

}  // namespace
}  // namespace sindri::agent
