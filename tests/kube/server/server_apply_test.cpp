// Server-side apply on the test server: creation, lists merged by key,
// conflicts and forced take-overs, fields given up, dry runs, and POST and
// PUT as Update operations of their field manager.

#include <gtest/gtest.h>

#include <string>

#include "kube/server/server_test_fixture.hpp"

namespace {

using sindri_test::Reply;
using sindri_test::kDeployments;
using KubeTestServerApply = sindri_test::KubeTestServerTest;

constexpr std::string_view kWeb = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web, tier: front}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.25
        ports: [{containerPort: 80}]
        env: [{name: A, value: "1"}]
)";

TEST_F(KubeTestServerApply, ServerSideApplyCreatesThenMergesContainersByName) {
  const Reply created = apply(std::string(kDeployments) + "/web", kWeb, "first");
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(number(created.json, "/metadata/generation"), 1);
  EXPECT_EQ(text(created.json, "/metadata/managedFields/0/manager"), "first");

  // A second manager adds a sidecar and an env entry: lists merge by key.
  const Reply merged = apply(std::string(kDeployments) + "/web", R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      containers:
      - name: web
        env: [{name: B, value: "2"}]
      - name: sidecar
        image: busybox
)",
                             "second");
  ASSERT_EQ(merged.status, 200) << merged.body;
  EXPECT_EQ(text(merged.json, "/spec/template/spec/containers/0/image"), "nginx:1.25");
  EXPECT_EQ(text(merged.json, "/spec/template/spec/containers/0/env/0/name"), "A");
  EXPECT_EQ(text(merged.json, "/spec/template/spec/containers/0/env/1/name"), "B");
  EXPECT_EQ(text(merged.json, "/spec/template/spec/containers/1/name"), "sidecar");
  EXPECT_EQ(number(merged.json, "/metadata/generation"), 2);
}

TEST_F(KubeTestServerApply, ConflictsNameTheFieldAndManagerUnlessForced) {
  ASSERT_EQ(apply(std::string(kDeployments) + "/web", kWeb, "first").status, 201);
  std::string three(kWeb);
  three.replace(three.find("replicas: 2"), 11, "replicas: 3");
  const Reply conflict = apply(std::string(kDeployments) + "/web", three, "second");
  EXPECT_EQ(conflict.status, 409);
  EXPECT_EQ(text(conflict.json, "/reason"), "Conflict");
  EXPECT_NE(text(conflict.json, "/message").find(R"(conflict with "first": .spec.replicas)"), std::string::npos)
      << conflict.body;
  const Reply forced = apply(std::string(kDeployments) + "/web", three, "second", true);
  EXPECT_EQ(forced.status, 200);
  EXPECT_EQ(number(forced.json, "/spec/replicas"), 3);
  // The first manager no longer owns replicas: dropping it from its
  // configuration leaves the value the second one set.
  std::string without(kWeb);
  without.erase(without.find("  replicas: 2\n"), 14);
  const Reply reapplied = apply(std::string(kDeployments) + "/web", without, "first");
  EXPECT_EQ(number(reapplied.json, "/spec/replicas"), 3);
}

TEST_F(KubeTestServerApply, FieldsAManagerStopsApplyingAreRemoved) {
  ASSERT_EQ(apply(std::string(kDeployments) + "/web", kWeb, "first").status, 201);
  std::string without(kWeb);
  without.erase(without.find(", tier: front"), 13);
  const Reply reapplied = apply(std::string(kDeployments) + "/web", without, "first");
  EXPECT_EQ(text(reapplied.json, "/metadata/labels/tier"), "<none>");
  EXPECT_EQ(text(reapplied.json, "/metadata/labels/app"), "web");
  // A list item goes, and the list with it once it is empty.
  std::string no_env(kWeb);
  const std::string env_line = "        env: [{name: A, value: \"1\"}]\n";
  no_env.erase(no_env.find(env_line), env_line.size());
  const Reply without_env = apply(std::string(kDeployments) + "/web", no_env, "first");
  EXPECT_EQ(sindri::follow_pointer(without_env.json, "/spec/template/spec/containers/0/env"), nullptr)
      << without_env.body;
  EXPECT_EQ(text(without_env.json, "/spec/template/spec/containers/0/image"), "nginx:1.25");
}

TEST_F(KubeTestServerApply, DryRunStoresNothingAndFieldManagerIsRequired) {
  const Reply dry = call("PATCH", std::string(kDeployments) + "/web?fieldManager=x&dryRun=All", kWeb,
                         "application/apply-patch+yaml");
  EXPECT_EQ(dry.status, 201);
  EXPECT_EQ(call("GET", std::string(kDeployments) + "/web").status, 404);
  const Reply missing =
      call("PATCH", std::string(kDeployments) + "/web", kWeb, "application/apply-patch+yaml");
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(text(missing.json, "/kind"), "Status");
}

TEST_F(KubeTestServerApply, CreatesAndReplacesAsUpdatesOfTheirManager) {
  const std::string configmaps = "/api/v1/namespaces/default/configmaps";
  const std::string body = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}})";
  const Reply created = call("POST", configmaps + "?fieldManager=maker", body);
  ASSERT_EQ(created.status, 201) << created.body;
  EXPECT_EQ(text(created.json, "/metadata/managedFields/0/operation"), "Update");
  EXPECT_EQ(text(created.json, "/metadata/managedFields/0/manager"), "maker");
  EXPECT_EQ(text(call("POST", configmaps, body).json, "/reason"), "AlreadyExists");
  const Reply generated =
      call("POST", configmaps, R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"job-"}})");
  EXPECT_EQ(generated.status, 201);
  EXPECT_EQ(text(generated.json, "/metadata/name").size(), 9u) << generated.body;
  EXPECT_EQ(text(generated.json, "/metadata/name").rfind("job-", 0), 0u);

  const std::string version = text(created.json, "/metadata/resourceVersion");
  const std::string replaced_body = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","resourceVersion":")" +
                                    version + R"("},"data":{"a":"2"}})";
  const Reply replaced = call("PUT", configmaps + "/c?fieldManager=editor", replaced_body);
  ASSERT_EQ(replaced.status, 200) << replaced.body;
  EXPECT_EQ(text(replaced.json, "/data/a"), "2");
  // The same resourceVersion again is stale now.
  EXPECT_EQ(call("PUT", configmaps + "/c", replaced_body).status, 409);
  // The editor's value is the editor's: an apply changing it conflicts with it.
  const Reply conflict =
      apply(configmaps + "/c", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: \"3\"}\n", "agent");
  EXPECT_EQ(conflict.status, 409);
  EXPECT_NE(text(conflict.json, "/message").find(R"(conflict with "editor" using v1: .data.a)"), std::string::npos)
      << conflict.body;
}

}  // namespace
