// The Kubernetes sink against the test API server (tests/kube/server): the
// requests an apply sends and their order, what is left in the cluster,
// rollback of namespaces, prunes that touch only what this agent owns.

#include "agent/kube_sink.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "kube/client.hpp"
#include "kube/quick_client.hpp"
#include "kube/server/kube_test_server.hpp"
#include "value/json.hpp"

namespace {

using sindri::Value;
using sindri::agent::DeploymentObject;
using sindri::agent::KubeSink;
using sindri::agent::KubeSinkOptions;
using sindri_test::config_of;
using sindri_test::KubeTestServer;
using sindri_test::quick_retries;

constexpr const char* kAgent = "agent-1";

Value json(std::string_view text) { return sindri::parse_json(text).value(); }

std::string text(const Value& value, std::string_view key) {
  const Value* member = value.find(key);
  return member != nullptr && member->is_string() ? std::string(member->get_string()) : "";
}

std::string annotation(const Value& object, std::string_view key) {
  const Value* metadata = object.find("metadata");
  const Value* annotations = metadata != nullptr ? metadata->find("annotations") : nullptr;
  return annotations != nullptr ? text(*annotations, key) : "";
}

bool is_discovery(const std::string& path) {
  const auto slashes = std::count(path.begin(), path.end(), '/');
  return path == "/api" || path == "/apis" || (path.starts_with("/api/") && slashes == 2) ||
         (path.starts_with("/apis/") && slashes == 3);
}

// The API requests other than discovery, as "METHOD path?query".
std::vector<std::string> calls(const KubeTestServer& server) {
  std::vector<std::string> lines;
  const Value requests = server.requests();
  for (const Value& request : requests.get_array()) {
    const std::string path = text(request, "path");
    if (is_discovery(path)) continue;
    const std::string query = text(request, "query");
    lines.push_back(text(request, "method") + " " + path + (query.empty() ? "" : "?" + query));
  }
  return lines;
}

std::vector<std::string> with_method(const std::vector<std::string>& lines, std::string_view method) {
  std::vector<std::string> out;
  for (const std::string& line : lines) {
    if (line.starts_with(std::string(method) + " ")) out.push_back(line);
  }
  return out;
}

DeploymentObject object(std::string id, std::string stack, std::string checksum, std::string yaml) {
  DeploymentObject out;
  out.id = std::move(id);
  out.stack_id = std::move(stack);
  out.checksum = std::move(checksum);
  out.yaml = std::move(yaml);
  return out;
}

std::string config_map_yaml(const std::string& name, const std::string& ns = "") {
  return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + (ns.empty() ? "" : "\n  namespace: " + ns) +
         "\ndata:\n  key: value\n";
}

const std::string kApply = "?fieldManager=brokkr-controller&force=true";
const std::string kDryRun = "?fieldManager=validation&force=true&dryRun=All";

class KubeSinkTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new KubeTestServer(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    server_->reset();
    client_ = std::make_unique<sindri::kube::Client>(config_of(server_->kubeconfig_path()), quick_retries());
  }
  KubeSink sink(std::string watch_namespace = "") {
    return KubeSink(*client_, KubeSinkOptions{kAgent, std::move(watch_namespace), 1, 0.01});
  }
  Value get(std::string_view api_version, std::string_view kind, std::string_view ns, std::string_view name) {
    auto type = client_->find_type(api_version, kind);
    auto found = client_->get(type.value(), ns, name);
    return found.ok() ? found.value() : Value();
  }
  void store(const std::string& name, const std::string& stack, const std::string& owner, const std::string& checksum,
             bool owner_references = false) {
    Value config_map = json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name +
                            R"(","namespace":"default","annotations":{"k8s.brokkr.io/stack":")" + stack +
                            R"(","brokkr.io/owner-id":")" + owner + R"(","k8s.brokkr.io/deployment-checksum":")" +
                            checksum + R"("}}})");
    if (owner_references) {
      Value metadata = *config_map.find("metadata");
      metadata.set("ownerReferences", json(R"([{"apiVersion":"apps/v1","kind":"Deployment","name":"web",
          "uid":"0b7c6d6e-1111-2222-3333-444455556666","controller":true}])"));
      config_map.set("metadata", metadata);
    }
    server_->put_object(config_map);
  }
  static KubeTestServer* server_;
  std::unique_ptr<sindri::kube::Client> client_;
};
KubeTestServer* KubeSinkTest::server_ = nullptr;

TEST_F(KubeSinkTest, AppliesNamespacesFirstThenDryRunsThenApplies) {
  KubeSink kube = sink();
  auto outcome = kube.apply(object("do-1", "stack-1", "sum-1",
                                   config_map_yaml("settings") +
                                       "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: "
                                       "shop}\nspec:\n  template:\n    spec:\n      containers: [{name: web, image: "
                                       "nginx}]\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n"));
  ASSERT_TRUE(outcome.success) << outcome.message;
  EXPECT_EQ(outcome.message, "applied 3 documents");
  EXPECT_EQ(calls(*server_), (std::vector<std::string>{
                                 "GET /api/v1/namespaces/shop",
                                 "PATCH /api/v1/namespaces/shop" + kApply,
                                 "PATCH /api/v1/namespaces/default/configmaps/settings" + kDryRun,
                                 "PATCH /apis/apps/v1/namespaces/shop/deployments/web" + kDryRun,
                                 "PATCH /api/v1/namespaces/default/configmaps/settings" + kApply,
                                 "PATCH /apis/apps/v1/namespaces/shop/deployments/web" + kApply,
                             }));
  const Value requests = server_->requests();
  for (const Value& request : requests.get_array()) {
    if (text(request, "method") == "PATCH") {
      EXPECT_EQ(text(request, "content_type"), "application/apply-patch+yaml");
    }
  }
  const Value settings = get("v1", "ConfigMap", "default", "settings");
  EXPECT_EQ(annotation(settings, "k8s.brokkr.io/stack"), "stack-1");
  EXPECT_EQ(annotation(settings, "k8s.brokkr.io/deployment-checksum"), "sum-1");
  EXPECT_EQ(annotation(settings, "brokkr.io/deployment-object-id"), "do-1");
  EXPECT_EQ(annotation(settings, "k8s.brokkr.io/last-config-applied"), "sum-1");
  EXPECT_EQ(annotation(settings, "brokkr.io/owner-id"), kAgent);
  EXPECT_EQ(annotation(get("apps/v1", "Deployment", "shop", "web"), "brokkr.io/owner-id"), kAgent);
  EXPECT_EQ(annotation(get("v1", "Namespace", "", "shop"), "k8s.brokkr.io/stack"), "stack-1");
}

TEST_F(KubeSinkTest, ObjectsWithoutANamespaceGoToTheWatchedOne) {
  ASSERT_TRUE(
      sink()
          .apply(object("do-0", "stack-0", "sum-0", "apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n"))
          .success);
  auto outcome = sink("team").apply(object("do-1", "stack-1", "sum-1", config_map_yaml("settings")));
  ASSERT_TRUE(outcome.success) << outcome.message;
  EXPECT_FALSE(get("v1", "ConfigMap", "team", "settings").is_null());
  EXPECT_TRUE(get("v1", "ConfigMap", "default", "settings").is_null());
}

TEST_F(KubeSinkTest, ClusterScopedKindsGoWithoutANamespace) {
  auto outcome =
      sink("team").apply(object("do-1", "stack-1", "sum-1",
                                "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: reader, "
                                "namespace: somewhere}\nrules: []\n"));
  ASSERT_TRUE(outcome.success) << outcome.message;
  EXPECT_EQ(with_method(calls(*server_), "PATCH").back(),
            "PATCH /apis/rbac.authorization.k8s.io/v1/clusterroles/reader" + kApply);
  const Value reader = get("rbac.authorization.k8s.io/v1", "ClusterRole", "", "reader");
  EXPECT_EQ(text(*reader.find("metadata"), "namespace"), "");
  EXPECT_EQ(annotation(reader, "brokkr.io/owner-id"), kAgent);
}

TEST_F(KubeSinkTest, AnUnknownKindFailsBeforeAnythingIsApplied) {
  auto outcome = sink().apply(object("do-1", "stack-1", "sum-1",
                                     "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\n" +
                                         config_map_yaml("settings") +
                                         "---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n"));
  ASSERT_FALSE(outcome.success);
  EXPECT_NE(outcome.message.find("document 3 (example.com/v1 Widget w)"), std::string::npos) << outcome.message;
  EXPECT_NE(outcome.message.find("not served"), std::string::npos) << outcome.message;
  EXPECT_TRUE(with_method(calls(*server_), "PATCH").empty());
  EXPECT_TRUE(get("v1", "Namespace", "", "shop").is_null());
}

TEST_F(KubeSinkTest, ADryRunFailureAppliesNothingAndRemovesOnlyTheNamespaceItCreated) {
  ASSERT_TRUE(sink()
                  .apply(object("do-0", "other", "sum-0", "apiVersion: v1\nkind: Namespace\nmetadata: {name: kept}\n"))
                  .success);
  server_->clear_requests();
  auto outcome =
      sink().apply(object("do-1", "stack-1", "sum-1",
                          "apiVersion: v1\nkind: Namespace\nmetadata: {name: fresh}\n---\n"
                          "apiVersion: v1\nkind: Namespace\nmetadata: {name: kept}\n---\n" +
                              config_map_yaml("good", "fresh") + "---\n" + config_map_yaml("Not_A_Name", "kept")));
  ASSERT_FALSE(outcome.success);
  EXPECT_NE(outcome.message.find("document 4 (v1 ConfigMap kept/Not_A_Name)"), std::string::npos) << outcome.message;
  EXPECT_NE(outcome.message.find("(Invalid)"), std::string::npos) << outcome.message;
  EXPECT_NE(outcome.message.find("namespaces created for it removed again: fresh"), std::string::npos)
      << outcome.message;
  const auto lines = calls(*server_);
  for (const std::string& line : with_method(lines, "PATCH")) {
    EXPECT_TRUE(line.find("namespaces/fresh?") != std::string::npos ||
                line.find("namespaces/kept?") != std::string::npos || line.ends_with(kDryRun))
        << line;
  }
  EXPECT_EQ(with_method(lines, "DELETE"), (std::vector<std::string>{"DELETE /api/v1/namespaces/fresh"}));
  EXPECT_TRUE(get("v1", "Namespace", "", "fresh").is_null());
  EXPECT_FALSE(get("v1", "Namespace", "", "kept").is_null());
}

TEST_F(KubeSinkTest, ANamespaceThatCannotBeCreatedFailsTheObject) {
  auto outcome = sink().apply(object("do-1", "stack-1", "sum-1",
                                     "apiVersion: v1\nkind: Namespace\nmetadata: {name: Not_A_Namespace}\n---\n" +
                                         config_map_yaml("a", "Not_A_Namespace")));
  ASSERT_FALSE(outcome.success);
  EXPECT_NE(outcome.message.find("document 1 (v1 Namespace Not_A_Namespace)"), std::string::npos) << outcome.message;
  EXPECT_NE(outcome.message.find("(Invalid)"), std::string::npos) << outcome.message;
  EXPECT_EQ(with_method(calls(*server_), "PATCH").size(), 1u);
}

TEST_F(KubeSinkTest, UnparseableYamlFailsWithItsPosition) {
  auto outcome = sink().apply(object("do-1", "stack-1", "sum-1", config_map_yaml("a") + "---\nkind: [\n"));
  ASSERT_FALSE(outcome.success);
  EXPECT_NE(outcome.message.find("document 2"), std::string::npos) << outcome.message;
  EXPECT_TRUE(with_method(calls(*server_), "PATCH").empty());
}

TEST_F(KubeSinkTest, ARetryableErrorIsRetried) {
  server_->inject_failures("PATCH", "/api/v1/namespaces/default/configmaps/settings", 503, 2);
  auto outcome = sink().apply(object("do-1", "stack-1", "sum-1", config_map_yaml("settings")));
  ASSERT_TRUE(outcome.success) << outcome.message;
  EXPECT_EQ(with_method(calls(*server_), "PATCH").size(), 4u);  // 2 refused, the dry run, the apply
}

TEST_F(KubeSinkTest, PruneDeletesOnlyWhatThisAgentOwnsOfOtherChecksums) {
  KubeSink kube = sink();
  ASSERT_TRUE(
      kube.apply(object("do-1", "stack-1", "sum-1", config_map_yaml("a") + "---\n" + config_map_yaml("b"))).success);
  ASSERT_TRUE(kube.apply(object("do-2", "stack-1", "sum-2", config_map_yaml("a"))).success);
  ASSERT_TRUE(kube.apply(object("do-3", "stack-2", "sum-3", config_map_yaml("elsewhere"))).success);
  store("theirs", "stack-1", "agent-2", "sum-1");
  store("adopted", "stack-1", kAgent, "sum-1", true);
  server_->clear_requests();

  auto pruned = kube.prune("stack-1", "sum-2");
  ASSERT_TRUE(pruned.ok()) << pruned.error().message;
  EXPECT_EQ(with_method(calls(*server_), "DELETE"),
            (std::vector<std::string>{"DELETE /api/v1/namespaces/default/configmaps/b"}));
  EXPECT_FALSE(get("v1", "ConfigMap", "default", "a").is_null());
  EXPECT_FALSE(get("v1", "ConfigMap", "default", "theirs").is_null());
  EXPECT_FALSE(get("v1", "ConfigMap", "default", "adopted").is_null());

  server_->clear_requests();
  ASSERT_TRUE(kube.prune("stack-1", "").ok());
  EXPECT_EQ(with_method(calls(*server_), "DELETE"),
            (std::vector<std::string>{"DELETE /api/v1/namespaces/default/configmaps/a"}));
  EXPECT_FALSE(get("v1", "ConfigMap", "default", "elsewhere").is_null());
}

TEST_F(KubeSinkTest, PruneDeletesNamespacedObjectsBeforeTheirNamespace) {
  KubeSink kube = sink();
  ASSERT_TRUE(kube.apply(object("do-1", "stack-1", "sum-1",
                                "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\n" +
                                    config_map_yaml("a", "shop")))
                  .success);
  server_->clear_requests();
  ASSERT_TRUE(kube.prune("stack-1", "").ok());
  EXPECT_EQ(
      with_method(calls(*server_), "DELETE"),
      (std::vector<std::string>{"DELETE /api/v1/namespaces/shop/configmaps/a", "DELETE /api/v1/namespaces/shop"}));
}

TEST_F(KubeSinkTest, ANamespaceThatExistedBeforeTheStackNamedItIsNeverPruned) {
  server_->put_object(json(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team",
      "labels":{"kubernetes.io/metadata.name":"team"}}})"));
  server_->put_object(json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"theirs","namespace":"team"}})"));
  KubeSink kube = sink();
  const std::string yaml = "apiVersion: v1\nkind: Namespace\nmetadata: {name: team, labels: {tier: web}}\n---\n" +
                           config_map_yaml("a", "team");
  ASSERT_TRUE(kube.apply(object("do-1", "stack-1", "sum-1", yaml)).success);
  const Value team = get("v1", "Namespace", "", "team");
  EXPECT_EQ(annotation(team, "k8s.brokkr.io/stack"), "stack-1");
  EXPECT_EQ(annotation(team, "brokkr.io/owner-id"), "");
  // Applied again (a resync), it stays unowned.
  ASSERT_TRUE(kube.apply(object("do-1", "stack-1", "sum-1", yaml)).success);
  EXPECT_EQ(annotation(get("v1", "Namespace", "", "team"), "brokkr.io/owner-id"), "");

  server_->clear_requests();
  ASSERT_TRUE(kube.prune("stack-1", "").ok());
  EXPECT_EQ(with_method(calls(*server_), "DELETE"),
            (std::vector<std::string>{"DELETE /api/v1/namespaces/team/configmaps/a"}));
  EXPECT_FALSE(get("v1", "ConfigMap", "team", "theirs").is_null());
  EXPECT_FALSE(get("v1", "Namespace", "", "team").is_null());
}

TEST_F(KubeSinkTest, ANamespaceTheAgentCreatedKeepsItsOwnerIdWhenAppliedAgain) {
  KubeSink kube = sink();
  const std::string yaml = "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n";
  ASSERT_TRUE(kube.apply(object("do-1", "stack-1", "sum-1", yaml)).success);
  ASSERT_TRUE(kube.apply(object("do-2", "stack-1", "sum-2", yaml)).success);
  EXPECT_EQ(annotation(get("v1", "Namespace", "", "shop"), "brokkr.io/owner-id"), kAgent);
}

TEST_F(KubeSinkTest, ANamespaceAnotherStackCreatedStaysThatStacks) {
  KubeSink kube = sink();
  const std::string apps = "apiVersion: v1\nkind: Namespace\nmetadata: {name: apps, labels: {tier: web}}\n---\n";
  ASSERT_TRUE(kube.apply(object("do-1", "stack-1", "sum-1", apps + config_map_yaml("a", "apps"))).success);
  auto outcome = kube.apply(object("do-2", "stack-2", "sum-2", apps + config_map_yaml("b", "apps")));
  ASSERT_TRUE(outcome.success) << outcome.message;
  const Value namespace_apps = get("v1", "Namespace", "", "apps");
  EXPECT_EQ(annotation(namespace_apps, "k8s.brokkr.io/stack"), "stack-1");
  EXPECT_EQ(annotation(namespace_apps, "k8s.brokkr.io/deployment-checksum"), "sum-1");
  EXPECT_EQ(annotation(namespace_apps, "brokkr.io/owner-id"), kAgent);

  server_->clear_requests();
  ASSERT_TRUE(kube.prune("stack-2", "").ok());
  EXPECT_EQ(with_method(calls(*server_), "DELETE"),
            (std::vector<std::string>{"DELETE /api/v1/namespaces/apps/configmaps/b"}));
  EXPECT_FALSE(get("v1", "ConfigMap", "apps", "a").is_null());
}

TEST_F(KubeSinkTest, ANamespaceStillHoldingKeptObjectsIsNotPruned) {
  KubeSink kube = sink();
  ASSERT_TRUE(kube.apply(object("do-1", "stack-1", "sum-1",
                                "apiVersion: v1\nkind: Namespace\nmetadata: {name: apps}\n---\n" +
                                    config_map_yaml("a", "apps")))
                  .success);
  // The next version drops the Namespace document but keeps an object in it.
  ASSERT_TRUE(kube.apply(object("do-2", "stack-1", "sum-2", config_map_yaml("a", "apps"))).success);
  server_->clear_requests();
  ASSERT_TRUE(kube.prune("stack-1", "sum-2").ok());
  EXPECT_TRUE(with_method(calls(*server_), "DELETE").empty());
  EXPECT_FALSE(get("v1", "Namespace", "", "apps").is_null());

  server_->clear_requests();
  ASSERT_TRUE(kube.prune("stack-1", "").ok());
  EXPECT_EQ(
      with_method(calls(*server_), "DELETE"),
      (std::vector<std::string>{"DELETE /api/v1/namespaces/apps/configmaps/a", "DELETE /api/v1/namespaces/apps"}));
}

TEST_F(KubeSinkTest, AnObjectOutsideTheWatchedNamespaceFailsBeforeAnythingIsApplied) {
  ASSERT_TRUE(
      sink()
          .apply(object("do-0", "stack-0", "sum-0", "apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n"))
          .success);
  server_->clear_requests();
  auto outcome = sink("team").apply(object(
      "do-1", "stack-1", "sum-1", config_map_yaml("mine", "team") + "---\n" + config_map_yaml("stray", "other")));
  ASSERT_FALSE(outcome.success);
  EXPECT_EQ(outcome.message,
            "document 2 (v1 ConfigMap other/stray): namespace other is outside the namespace the agent watches, team");
  EXPECT_TRUE(with_method(calls(*server_), "PATCH").empty());

  // A kind a CRD of the same object defines is checked before the CRD is applied.
  auto custom = sink("team").apply(object("do-2", "stack-2", "sum-2",
                                          "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
                                          "metadata: {name: gadgets.example.com}\nspec:\n  group: example.com\n"
                                          "  scope: Namespaced\n  names: {kind: Gadget, plural: gadgets}\n"
                                          "  versions: [{name: v1, served: true, storage: true}]\n---\n"
                                          "apiVersion: example.com/v1\nkind: Gadget\n"
                                          "metadata: {name: g, namespace: other}\n"));
  ASSERT_FALSE(custom.success);
  EXPECT_NE(custom.message.find("document 2 (example.com/v1 Gadget other/g): namespace other is outside"),
            std::string::npos)
      << custom.message;
  EXPECT_TRUE(with_method(calls(*server_), "PATCH").empty());
}

TEST_F(KubeSinkTest, OwnedReadsTheStacksFromTheCluster) {
  KubeSink kube = sink();
  ASSERT_TRUE(kube.apply(object("do-1", "stack-1", "sum-1", config_map_yaml("a"))).success);
  ASSERT_TRUE(kube.apply(object("do-2", "stack-2", "sum-2",
                                "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\n" +
                                    config_map_yaml("b", "shop")))
                  .success);
  store("theirs", "stack-3", "agent-2", "sum-3");
  store("old", "stack-1", kAgent, "sum-0");
  auto owned = kube.owned();
  ASSERT_TRUE(owned.ok()) << owned.error().message;
  ASSERT_EQ(owned->size(), 2u);
  EXPECT_EQ((*owned)[0].stack_id, "stack-1");
  auto checksums = (*owned)[0].checksums;
  std::sort(checksums.begin(), checksums.end());
  EXPECT_EQ(checksums, (std::vector<std::string>{"sum-0", "sum-1"}));
  EXPECT_EQ((*owned)[1].stack_id, "stack-2");
  EXPECT_EQ((*owned)[1].checksums, (std::vector<std::string>{"sum-2"}));
}

TEST_F(KubeSinkTest, ListingFailuresFailThePruneInsteadOfForgetting) {
  KubeSink kube = sink();
  ASSERT_TRUE(kube.apply(object("do-1", "stack-1", "sum-1", config_map_yaml("a"))).success);
  ASSERT_TRUE(kube.owned().ok());  // discovery is cached by now
  server_->inject_failures("GET", "/api/v1/configmaps", 400, 1);
  auto pruned = kube.prune("stack-1", "");
  ASSERT_FALSE(pruned.ok());
  EXPECT_NE(pruned.error().message.find("cannot list what the agent owns"), std::string::npos);
  EXPECT_FALSE(get("v1", "ConfigMap", "default", "a").is_null());
}

TEST_F(KubeSinkTest, AGroupVersionThatKeepsFailingDiscoveryFailsThePrune) {
  server_->inject_failures("GET", "/apis/apps/v1", 503, 1000);
  KubeSink kube = sink();
  ASSERT_TRUE(kube.apply(object("do-1", "stack-1", "sum-1", config_map_yaml("a"))).success);
  auto pruned = kube.prune("stack-1", "");
  ASSERT_FALSE(pruned.ok());
  EXPECT_EQ(pruned.error().message,
            "cannot list what the agent owns: the discovery of apps/v1 keeps answering 503 (Service Unavailable)");
  EXPECT_FALSE(get("v1", "ConfigMap", "default", "a").is_null());
  ASSERT_FALSE(kube.owned().ok());
}

TEST_F(KubeSinkTest, AGroupVersionThatFailsDiscoveryOnceIsAskedAgain) {
  ASSERT_TRUE(sink()
                  .apply(object("do-1", "stack-1", "sum-1",
                                "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n"
                                "    spec:\n      containers: [{name: web, image: nginx}]\n"))
                  .success);
  client_ = std::make_unique<sindri::kube::Client>(config_of(server_->kubeconfig_path()), quick_retries());  // discovery not cached
  server_->inject_failures("GET", "/apis/apps/v1", 503, 1);
  KubeSink restarted = sink();
  auto owned = restarted.owned();
  ASSERT_TRUE(owned.ok()) << owned.error().message;
  ASSERT_EQ(owned->size(), 1u);
  EXPECT_EQ((*owned)[0].stack_id, "stack-1");
}

TEST(KubeSinkTerminating, AnObjectForANamespaceBeingDeletedFails) {
  KubeTestServer server(KubeTestServer::Options{true, "test-token", 0, 30});
  sindri::kube::Client client(config_of(server.kubeconfig_path()), quick_retries());
  KubeSink kube(client, KubeSinkOptions{kAgent, "", 1, 0.01});
  ASSERT_TRUE(kube.apply(object("do-1", "stack-1", "sum-1", "apiVersion: v1\nkind: Namespace\nmetadata: {name: old}\n"))
                  .success);
  ASSERT_TRUE(kube.prune("stack-1", "").ok());
  auto outcome = kube.apply(object("do-2", "stack-2", "sum-2", config_map_yaml("a", "old")));
  ASSERT_FALSE(outcome.success);
  EXPECT_NE(outcome.message.find("document 1 (v1 ConfigMap old/a)"), std::string::npos) << outcome.message;
  EXPECT_NE(outcome.message.find("being terminated"), std::string::npos) << outcome.message;
}

const std::string kWidgetCrd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets, singular: widget}
  versions: [{name: v1, served: true, storage: true}]
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
spec: {size: 3}
)";

TEST(KubeSinkCrd, WaitsForTheKindsOfACrdItApplied) {
  KubeTestServer server(KubeTestServer::Options{true, "test-token", 0.3, 0});
  sindri::kube::Client client(config_of(server.kubeconfig_path()), quick_retries());
  KubeSink kube(client, KubeSinkOptions{kAgent, "", 10, 0.02});
  auto outcome = kube.apply(object("do-1", "stack-1", "sum-1", kWidgetCrd));
  ASSERT_TRUE(outcome.success) << outcome.message;
  auto widget_type = client.find_type("example.com/v1", "Widget");
  ASSERT_TRUE(widget_type.ok());
  EXPECT_TRUE(client.get(widget_type.value(), "default", "w").ok());
}

TEST(KubeSinkCrd, AStoppingAgentDoesNotWaitForACrdsKinds) {
  KubeTestServer server(KubeTestServer::Options{true, "test-token", 30, 0});
  sindri::kube::Client client(config_of(server.kubeconfig_path()), quick_retries());
  const std::atomic<bool> stopping = true;
  KubeSink kube(client, KubeSinkOptions{kAgent, "", 2, 0.01, &stopping});
  auto outcome = kube.apply(object("do-1", "stack-1", "sum-1", kWidgetCrd));
  ASSERT_FALSE(outcome.success);
  EXPECT_NE(outcome.message.find("document 2 (example.com/v1 Widget w): the agent is stopping"), std::string::npos)
      << outcome.message;
}

TEST(KubeSinkCrd, GivesUpOnACrdsKindsAfterItsWait) {
  KubeTestServer server(KubeTestServer::Options{true, "test-token", 30, 0});
  sindri::kube::Client client(config_of(server.kubeconfig_path()), quick_retries());
  KubeSink kube(client, KubeSinkOptions{kAgent, "", 0.05, 0.01});
  auto outcome = kube.apply(object("do-1", "stack-1", "sum-1", kWidgetCrd));
  ASSERT_FALSE(outcome.success);
  EXPECT_NE(outcome.message.find("document 2 (example.com/v1 Widget w)"), std::string::npos) << outcome.message;
}

}  // namespace
