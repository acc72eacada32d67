// Objects on the test server: validation and namespaces, lists with
// selectors and pages, deletion and its propagation, objects stored through
// the test controls, pod logs, and the delays of namespace termination and
// CRD discovery.

#include <gtest/gtest.h>

#include <chrono>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "kube/server/server_test_fixture.hpp"
#include "value/rfc3339.hpp"

namespace {

using sindri::Value;
using sindri_test::KubeTestServer;
using sindri_test::Reply;
using sindri_test::kDeployments;
using KubeTestServerObjects = sindri_test::KubeTestServerTest;

TEST_F(KubeTestServerObjects, RefusesInvalidObjectsAndMissingNamespaces) {
  const Reply bad_name = apply(std::string(kDeployments) + "/Web_1",
                               "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: Web_1}\n", "x");
  EXPECT_EQ(bad_name.status, 422);
  EXPECT_EQ(text(bad_name.json, "/reason"), "Invalid");
  const Reply wrong_kind = apply(std::string(kDeployments) + "/web", "apiVersion: v1\nkind: ConfigMap\n", "x");
  EXPECT_EQ(wrong_kind.status, 400);
  const Reply no_namespace =
      apply("/api/v1/namespaces/absent/configmaps/c", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", "x");
  EXPECT_EQ(no_namespace.status, 404);
  EXPECT_EQ(text(no_namespace.json, "/message"), R"(namespaces "absent" not found)");
}

TEST_F(KubeTestServerObjects, ListsByLabelSelectorInPages) {
  for (const char* name : {"a", "b", "c"}) {
    const std::string tier = std::string(name) == "c" ? "back" : "front";
    ASSERT_EQ(apply(std::string("/api/v1/namespaces/default/configmaps/") + name,
                    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + std::string(name) +
                        ", labels: {tier: " + tier + "}}\n",
                    "x")
                  .status,
              201);
  }
  const Reply front = call("GET", "/api/v1/namespaces/default/configmaps?labelSelector=tier%3Dfront");
  EXPECT_EQ(text(front.json, "/kind"), "ConfigMapList");
  EXPECT_EQ(front.json.find("items")->size(), 2u);
  const Reply notin = call("GET", "/api/v1/configmaps?labelSelector=tier%20notin%20(front),tier");
  ASSERT_EQ(notin.json.find("items")->size(), 1u);
  EXPECT_EQ(text(notin.json, "/items/0/metadata/name"), "c");
  const Reply page = call("GET", "/api/v1/namespaces/default/configmaps?limit=2");
  EXPECT_EQ(page.json.find("items")->size(), 2u);
  const std::string token = text(page.json, "/metadata/continue");
  const Reply rest = call("GET", "/api/v1/namespaces/default/configmaps?limit=2&continue=" + token);
  ASSERT_EQ(rest.json.find("items")->size(), 1u);
  EXPECT_EQ(text(rest.json, "/items/0/metadata/name"), "c");
  EXPECT_EQ(call("GET", "/api/v1/configmaps?labelSelector=tier%20in%20front").status, 400);
}

TEST_F(KubeTestServerObjects, NamespacesCarryTheirNameLabel) {
  ASSERT_EQ(apply("/api/v1/namespaces/shop", "apiVersion: v1\nkind: Namespace\nmetadata: {labels: {team: a}}\n", "x")
                .status,
            201);
  const Reply shop = call("GET", "/api/v1/namespaces?labelSelector=kubernetes.io/metadata.name%3Dshop");
  ASSERT_EQ(shop.json.find("items")->size(), 1u) << shop.body;
  EXPECT_EQ(text(shop.json, "/items/0/metadata/labels/team"), "a");
  EXPECT_EQ(text(shop.json, "/items/0/status/phase"), "Active");
}

TEST_F(KubeTestServerObjects, PutObjectStoresStatusAndLogsAreServed) {
  auto pod = sindri::parse_json(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default",
    "annotations":{"sindri-test/log":"one\ntwo\nthree\n"}},"status":{"phase":"Running"}})");
  ASSERT_TRUE(pod.ok());
  server_->put_object(pod.value());
  EXPECT_EQ(text(call("GET", "/api/v1/namespaces/default/pods/p").json, "/status/phase"), "Running");
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/pods/p/log?tailLines=2").body, "two\nthree\n");
  bool found = false;
  const Value objects = server_->objects();
  for (const Value& object : objects.get_array()) found |= text(object, "/metadata/name") == "p";
  EXPECT_TRUE(found);
}

// Lines a test appends come after the annotation's, each stamped later than
// the one before; timestamps=true writes the stamps as the kubelet does,
// sinceTime keeps the lines at or after it, limitBytes cuts the answer.
TEST_F(KubeTestServerObjects, AppendedLogLinesAreStampedAndReadSinceATime) {
  auto pod = sindri::parse_json(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default",
    "creationTimestamp":"2026-01-01T00:00:00Z","annotations":{"sindri-test/log.app":"old\n"}}})");
  ASSERT_TRUE(pod.ok());
  server_->put_object(pod.value());
  server_->append_log("default", "p", "app", "new 1\nnew 2");
  const std::string log = "/api/v1/namespaces/default/pods/p/log?container=app";
  EXPECT_EQ(call("GET", log).body, "old\nnew 1\nnew 2\n");

  std::vector<std::pair<std::string, std::string>> stamped;  // (time, line)
  std::istringstream lines(call("GET", log + "&timestamps=true").body);
  for (std::string line; std::getline(lines, line);) {
    stamped.emplace_back(line.substr(0, line.find(' ')), line.substr(line.find(' ') + 1));
  }
  ASSERT_EQ(stamped.size(), 3u);
  EXPECT_EQ(stamped[0], (std::pair<std::string, std::string>{"2026-01-01T00:00:00Z", "old"}));
  EXPECT_EQ(stamped[1].second, "new 1");
  EXPECT_EQ(stamped[2].second, "new 2");
  const auto first = sindri::rfc3339::parse_micros(stamped[1].first);
  const auto next = sindri::rfc3339::parse_micros(stamped[2].first);
  ASSERT_TRUE(first && next) << stamped[1].first << " " << stamped[2].first;
  EXPECT_LT(*first, *next);
  const std::string new_stamp = stamped[1].first;
  EXPECT_EQ(call("GET", log + "&sinceTime=" + new_stamp).body, "new 1\nnew 2\n");
  EXPECT_EQ(call("GET", log + "&sinceTime=2030-01-01T00:00:00Z").body, "");
  EXPECT_EQ(call("GET", log + "&limitBytes=6").body, "old\nne");
  EXPECT_EQ(call("GET", log + "&sinceTime=yesterday").status, 400);
  EXPECT_EQ(call("POST", "/_test/logs/default/nobody/app", "x").status, 404);
}

// follow=true streams what there is, then each line appended, and ends
// (with the lines not yet sent) when the pod is deleted.
TEST_F(KubeTestServerObjects, AFollowedLogGetsAppendedLinesUntilThePodGoes) {
  auto pod = sindri::parse_json(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default",
    "annotations":{"sindri-test/log":"first\n"}}})");
  ASSERT_TRUE(pod.ok());
  server_->put_object(pod.value());
  std::string followed;
  std::thread follower([&] {
    sindri::http::Client client(server_->url());
    client.set_ca_file(server_->ca_file);
    client.set_authorization("Bearer test-token");
    auto answer = client.request("GET", "/api/v1/namespaces/default/pods/p/log?container=app&follow=true");
    if (answer.ok()) followed = answer->body;
  });
  // Once the follower has asked, lines are appended: in its first answer or as it follows.
  const auto following = [&] {
    for (const Value requests = server_->requests(); const Value& request : requests.get_array()) {
      if (text(request, "/query").find("follow=true") != std::string::npos) return true;
    }
    return false;
  };
  for (int tries = 0; tries < 500 && !following(); ++tries) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  server_->append_log("default", "p", "app", "second\nthird");
  EXPECT_EQ(call("DELETE", "/api/v1/namespaces/default/pods/p").status, 200);
  follower.join();
  EXPECT_EQ(followed, "first\nsecond\nthird\n");
}

TEST_F(KubeTestServerObjects, DeletionPropagatesToDependentsOrOrphansThem) {
  const std::string configmaps = "/api/v1/namespaces/default/configmaps";
  const auto owned_by = [&](const std::string& name, const std::string& owner_uid) {
    return apply(configmaps + "/" + name,
                 "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name +
                     "\n  ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: owner, uid: " + owner_uid + "}]\n",
                 "x");
  };
  std::string uid = text(apply(configmaps + "/owner", "apiVersion: v1\nkind: ConfigMap\n", "x").json, "/metadata/uid");
  ASSERT_EQ(owned_by("child", uid).status, 201);
  EXPECT_EQ(call("DELETE", configmaps + "/owner", R"({"propagationPolicy":"Background"})").status, 200);
  EXPECT_EQ(call("GET", configmaps + "/child").status, 404);

  uid = text(apply(configmaps + "/owner", "apiVersion: v1\nkind: ConfigMap\n", "x").json, "/metadata/uid");
  ASSERT_EQ(owned_by("orphan", uid).status, 201);
  const Reply deleted = call("DELETE", configmaps + "/owner?propagationPolicy=Orphan");
  EXPECT_EQ(text(deleted.json, "/status"), "Success");
  const Reply orphan = call("GET", configmaps + "/orphan");
  EXPECT_EQ(orphan.status, 200);
  EXPECT_EQ(sindri::follow_pointer(orphan.json, "/metadata/ownerReferences/0"), nullptr) << orphan.body;
  EXPECT_EQ(call("DELETE", configmaps + "/orphan?propagationPolicy=Sideways").status, 422);
}

TEST_F(KubeTestServerObjects, FieldSelectorsOfEvents) {
  for (const char* name : {"e1", "e2"}) {
    auto event = sindri::parse_json(std::string(R"({"apiVersion":"v1","kind":"Event","metadata":{"name":")") + name +
                                    R"(","namespace":"default"},"involvedObject":{"kind":"Pod","name":"pod-)" + name +
                                    R"("},"reason":"Started"})");
    ASSERT_TRUE(event.ok());
    server_->put_object(event.value());
  }
  const Reply one = call("GET", "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dpod-e2");
  ASSERT_EQ(one.json.find("items")->size(), 1u) << one.body;
  EXPECT_EQ(text(one.json, "/items/0/metadata/name"), "e2");
  const Reply others = call("GET", "/api/v1/events?fieldSelector=metadata.name!%3De2,reason%3DStarted");
  ASSERT_EQ(others.json.find("items")->size(), 1u) << others.body;
  EXPECT_EQ(text(others.json, "/items/0/metadata/name"), "e1");
  EXPECT_EQ(call("GET", "/api/v1/configmaps?fieldSelector=involvedObject.name%3Dx").status, 400);
}

TEST(KubeTestServerDelays, ANamespaceTerminatesForAWhileThenGoesWithItsContents) {
  KubeTestServer server({.namespace_termination_delay = 0.2});
  sindri::http::Client client(server.url());
  client.set_ca_file(server.ca_file);
  client.set_authorization("Bearer test-token");
  auto send = [&](std::string_view method, std::string_view path, std::string_view body = {},
                  std::string_view type = "application/apply-patch+yaml") {
    auto response = client.request(method, path, body, type);
    EXPECT_TRUE(response.ok());
    return response.ok() ? response->status : 0;
  };
  EXPECT_EQ(send("PATCH", "/api/v1/namespaces/shop?fieldManager=x", "apiVersion: v1\nkind: Namespace\n"), 201);
  EXPECT_EQ(send("PATCH", "/api/v1/namespaces/shop/configmaps/c?fieldManager=x",
                 "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"),
            201);
  EXPECT_EQ(send("DELETE", "/api/v1/namespaces/shop"), 200);
  EXPECT_EQ(send("PATCH", "/api/v1/namespaces/shop/configmaps/d?fieldManager=x",
                 "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d}\n"),
            403);
  int status = 200;
  for (int attempt = 0; attempt < 100 && status == 200; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    status = send("GET", "/api/v1/namespaces/shop");
  }
  EXPECT_EQ(status, 404);
  EXPECT_EQ(send("GET", "/api/v1/namespaces/shop/configmaps/c"), 404);
}

TEST(KubeTestServerDelays, ACustomResourceIsServedOnlyAfterTheDiscoveryDelay) {
  KubeTestServer server({.crd_discovery_delay = 0.2});
  sindri::http::Client client(server.url());
  client.set_ca_file(server.ca_file);
  client.set_authorization("Bearer test-token");
  const std::string crd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets, singular: widget}
  versions: [{name: v1, served: true, storage: true}]
)";
  auto created = client.request("PATCH", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com"
                                "?fieldManager=x", crd, "application/apply-patch+yaml");
  ASSERT_TRUE(created.ok());
  EXPECT_EQ(created->status, 201);
  auto early = client.request("GET", "/apis/example.com/v1");
  ASSERT_TRUE(early.ok());
  EXPECT_EQ(early->status, 404);
  int status = 404;
  for (int attempt = 0; attempt < 100 && status == 404; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    auto later = client.request("GET", "/apis/example.com/v1");
    status = later.ok() ? later->status : 0;
  }
  EXPECT_EQ(status, 200);
  auto widget = client.request("PATCH", "/apis/example.com/v1/namespaces/default/widgets/w?fieldManager=x",
                               "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n",
                               "application/apply-patch+yaml");
  ASSERT_TRUE(widget.ok());
  EXPECT_EQ(widget->status, 201) << widget->body;
}

}  // namespace
