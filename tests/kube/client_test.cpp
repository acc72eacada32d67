// The Kubernetes client against the test API server (tests/kube/server):
// authentication, TLS, discovery, the calls and their requests, retries.

#include "kube/client.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "kube/quick_client.hpp"
#include "kube/server/kube_test_server.hpp"
#include "value/json.hpp"

namespace {

using sindri::Value;
using sindri::kube::Client;
using sindri::kube::ClusterConfig;
using sindri_test::config_of;
using sindri_test::KubeTestServer;
using sindri_test::quick_retries;

Value json(std::string_view text) { return sindri::parse_json(text).value(); }

Value config_map(const std::string& name, const std::string& ns, const std::string& labels = "{}") {
  return json(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name + R"(","namespace":")" + ns +
              R"(","labels":)" + labels + R"(},"data":{"key":"value"}})");
}

std::string text(const Value& value, std::string_view key) {
  const Value* member = value.find(key);
  return member != nullptr && member->is_string() ? std::string(member->get_string()) : "";
}

// The API requests seen, as "METHOD path?query".
std::vector<std::string> request_lines(const KubeTestServer& server) {
  std::vector<std::string> lines;
  const Value requests = server.requests();
  for (const Value& request : requests.get_array()) {
    const std::string query = text(request, "query");
    lines.push_back(text(request, "method") + " " + text(request, "path") + (query.empty() ? "" : "?" + query));
  }
  return lines;
}

class KubeClient : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new KubeTestServer(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { server_->reset(); }
  static KubeTestServer* server_;
};
KubeTestServer* KubeClient::server_ = nullptr;

TEST_F(KubeClient, AuthenticatesWithAClientCertificate) {
  Client client(config_of(server_->kubeconfig_path()), quick_retries());
  auto version = client.version();
  ASSERT_TRUE(version.ok()) << version.error().message;
  EXPECT_FALSE(text(version.value(), "gitVersion").empty());
}

TEST_F(KubeClient, AuthenticatesWithATokenAndATokenFile) {
  Client with_token(config_of(server_->token_kubeconfig_path()), quick_retries());
  ASSERT_TRUE(with_token.version().ok());

  ClusterConfig config = config_of(server_->token_kubeconfig_path());
  config.token.clear();
  config.token_file = (server_->directory() / "token-file").string();
  std::ofstream(config.token_file) << "stale\n";
  Client with_file(config, quick_retries());
  auto refused = with_file.version();
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().status, 401);
  EXPECT_FALSE(refused.error().retryable());
  // A rotated token is read again: its file changed.
  std::ofstream(config.token_file) << "test-token\n";
  std::filesystem::last_write_time(config.token_file,
                                   std::filesystem::last_write_time(config.token_file) + std::chrono::seconds(1));
  EXPECT_TRUE(with_file.version().ok());
}

TEST_F(KubeClient, RefusesAServerItsCaDidNotSign) {
  ClusterConfig config = config_of(server_->kubeconfig_path());
  std::ifstream other(server_->client_cert_file);  // a certificate, but not the one that signed the server's
  config.ca_pem.assign(std::istreambuf_iterator<char>(other), std::istreambuf_iterator<char>());
  sindri::kube::RetryPolicy no_retries = quick_retries();
  no_retries.give_up_after = 0;
  Client client(config, no_retries);
  auto refused = client.version();
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().status, 0);
  EXPECT_NE(refused.error().message.find("certificate verify failed"), std::string::npos) << refused.error().message;

  config.insecure_skip_tls_verify = true;
  Client insecure(config, no_retries);
  EXPECT_TRUE(insecure.version().ok());
}

TEST_F(KubeClient, AnExecPluginsCredentialIsCachedAndFetchedAgainOnA401) {
  const std::filesystem::path dir = server_->directory();
  const std::string counter = (dir / "plugin-runs").string();
  std::filesystem::remove(counter);
  const std::string script = (dir / "plugin.sh").string();
  // The first run hands out a token the server refuses, later runs the right one.
  std::ofstream(script) << "#!/bin/sh\necho run >> '" << counter << "'\n"
                        << "if [ $(wc -l < '" << counter << "') -eq 1 ]; then token=wrong; else token=test-token; fi\n"
                        << "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
                           "\"status\":{\"token\":\"%s\"}}' $token\n";
  chmod(script.c_str(), 0755);
  ClusterConfig config = config_of(server_->token_kubeconfig_path());
  config.token.clear();
  config.exec = sindri::kube::ExecPlugin{script, {}, {}, "client.authentication.k8s.io/v1"};
  Client client(config, quick_retries());
  ASSERT_TRUE(client.version().ok());
  ASSERT_TRUE(client.version().ok());
  std::ifstream runs(counter);
  const auto lines = std::count(std::istreambuf_iterator<char>(runs), std::istreambuf_iterator<char>(), '\n');
  EXPECT_EQ(lines, 2);  // once refused, once accepted, then cached
  EXPECT_EQ(request_lines(*server_), (std::vector<std::string>{"GET /version", "GET /version", "GET /version"}));
}

TEST_F(KubeClient, AGroupVersionsDiscoveryIsRetriedAndOneThatStaysUnavailableIsNamed) {
  server_->inject_failures("GET", "/apis/apps/v1", 503, 1);
  Client client(config_of(server_->kubeconfig_path()), quick_retries());
  auto once = client.discovery();
  ASSERT_TRUE(once.ok()) << once.error().message;
  EXPECT_FALSE(once->partial());
  EXPECT_TRUE(client.find_type("apps/v1", "Deployment").ok());

  server_->inject_failures("GET", "/apis/apps/v1", 503, 1000);
  client.forget_discovery();
  auto down = client.discovery();
  ASSERT_TRUE(down.ok()) << down.error().message;
  EXPECT_EQ(down->unavailable, (std::vector<std::string>{"apps/v1"}));
  EXPECT_TRUE(client.find_type("v1", "ConfigMap").ok());
  EXPECT_EQ(client.find_type("apps/v1", "Deployment").error().status, 404);
}

TEST_F(KubeClient, AGroupVersionsDiscoveryRefusedOtherwiseFailsDiscovery) {
  server_->inject_failures("GET", "/apis/apps/v1", 403, 1);
  Client client(config_of(server_->kubeconfig_path()), quick_retries());
  auto types = client.resource_types();
  ASSERT_FALSE(types.ok());
  EXPECT_EQ(types.error().status, 403);
  EXPECT_NE(types.error().message.find("discovery /apis/apps/v1"), std::string::npos) << types.error().message;
  ASSERT_TRUE(client.resource_types().ok());  // a failed discovery is not cached
}

TEST_F(KubeClient, DiscoversKindsWithoutSubresources) {
  Client client(config_of(server_->kubeconfig_path()), quick_retries());
  auto types = client.resource_types();
  ASSERT_TRUE(types.ok()) << types.error().message;
  bool saw_pods = false;
  for (const auto& type : types.value()) {
    EXPECT_EQ(type.plural.find('/'), std::string::npos) << type.plural;
    saw_pods = saw_pods || type.plural == "pods";
  }
  EXPECT_TRUE(saw_pods);
  auto deployment = client.find_type("apps/v1", "Deployment");
  ASSERT_TRUE(deployment.ok());
  EXPECT_EQ(deployment->plural, "deployments");
  EXPECT_TRUE(deployment->namespaced);
  EXPECT_EQ(deployment->api_version(), "apps/v1");
  auto ns = client.find_type("v1", "Namespace");
  ASSERT_TRUE(ns.ok());
  EXPECT_FALSE(ns->namespaced);

  // Discovery is cached; a miss asks again once, then fails as NotFound.
  server_->clear_requests();
  ASSERT_TRUE(client.find_type("v1", "ConfigMap").ok());
  EXPECT_TRUE(request_lines(*server_).empty());
  auto unknown = client.find_type("example.com/v1", "Widget");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().status, 404);
  EXPECT_EQ(unknown.error().reason, "NotFound");
  EXPECT_NE(unknown.error().message.find("Widget"), std::string::npos);
  const auto lines = request_lines(*server_);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "GET /api");
  EXPECT_EQ(std::count(lines.begin(), lines.end(), "GET /api"), 1);
}

TEST_F(KubeClient, AppliesServerSideAndDryRuns) {
  Client client(config_of(server_->kubeconfig_path()), quick_retries());
  auto type = client.find_type("v1", "ConfigMap").value();
  server_->clear_requests();
  sindri::kube::ApplyOptions dry_run{"validation", true, true};
  auto checked = client.apply(type, "default", config_map("web", "default"), dry_run);
  ASSERT_TRUE(checked.ok()) << checked.error().message;
  auto absent = client.get(type, "default", "web");
  ASSERT_FALSE(absent.ok());
  EXPECT_EQ(absent.error().status, 404);
  EXPECT_EQ(absent.error().reason, "NotFound");
  EXPECT_EQ(absent.error().message.rfind("GET v1 ConfigMap default/web: ", 0), 0u) << absent.error().message;

  auto applied = client.apply(type, "default", config_map("web", "default"), {});
  ASSERT_TRUE(applied.ok()) << applied.error().message;
  auto got = client.get(type, "default", "web");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(text(*got->find("data"), "key"), "value");

  const Value requests = server_->requests();
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_EQ(text(*requests.at(0), "method"), "PATCH");
  EXPECT_EQ(text(*requests.at(0), "path"), "/api/v1/namespaces/default/configmaps/web");
  EXPECT_EQ(text(*requests.at(0), "query"), "fieldManager=validation&force=true&dryRun=All");
  EXPECT_EQ(text(*requests.at(0), "content_type"), "application/apply-patch+yaml");
  EXPECT_EQ(text(*requests.at(2), "query"), "fieldManager=brokkr-controller&force=true");
  EXPECT_EQ(json(text(*requests.at(2), "body")), config_map("web", "default"));

  auto nameless = client.apply(type, "default", json(R"({"apiVersion":"v1","kind":"ConfigMap"})"), {});
  ASSERT_FALSE(nameless.ok());
  EXPECT_EQ(nameless.error().status, 400);
}

TEST_F(KubeClient, AConflictFailsAtOnceWithTheServersReason) {
  Client client(config_of(server_->kubeconfig_path()), quick_retries());
  auto type = client.find_type("v1", "ConfigMap").value();
  ASSERT_TRUE(client.apply(type, "default", config_map("web", "default"), {}).ok());
  Value changed = config_map("web", "default");
  changed.set("data", json(R"({"key":"other"})"));
  server_->clear_requests();
  auto conflict = client.apply(type, "default", changed, {"someone-else", false, false});
  ASSERT_FALSE(conflict.ok());
  EXPECT_EQ(conflict.error().status, 409);
  EXPECT_EQ(conflict.error().reason, "Conflict");
  EXPECT_FALSE(conflict.error().retryable());
  EXPECT_EQ(request_lines(*server_).size(), 1u);
}

TEST_F(KubeClient, ListsByLabelAndAcrossNamespaces) {
  Client client(config_of(server_->kubeconfig_path()), quick_retries());
  auto type = client.find_type("v1", "ConfigMap").value();
  auto ns_type = client.find_type("v1", "Namespace").value();
  ASSERT_TRUE(
      client.apply(ns_type, "", json(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop"}})"), {}).ok());
  ASSERT_TRUE(client.apply(type, "default", config_map("a", "default", R"({"app":"web"})"), {}).ok());
  ASSERT_TRUE(client.apply(type, "shop", config_map("b", "shop", R"({"app":"web"})"), {}).ok());
  ASSERT_TRUE(client.apply(type, "shop", config_map("c", "shop", R"({"app":"db"})"), {}).ok());
  server_->clear_requests();

  auto web = client.list(type, "", "app=web");
  ASSERT_TRUE(web.ok()) << web.error().message;
  ASSERT_EQ(web->size(), 2u);
  EXPECT_EQ(text((*web)[0], "kind"), "ConfigMap");
  EXPECT_EQ(text((*web)[0], "apiVersion"), "v1");
  auto in_shop = client.list(type, "shop");
  ASSERT_TRUE(in_shop.ok());
  EXPECT_EQ(in_shop->size(), 2u);
  auto by_name = client.list(type, "shop", {}, "metadata.name=c");
  ASSERT_TRUE(by_name.ok());
  ASSERT_EQ(by_name->size(), 1u);
  EXPECT_EQ(
      request_lines(*server_),
      (std::vector<std::string>{"GET /api/v1/configmaps?limit=500&labelSelector=app%3Dweb",
                                "GET /api/v1/namespaces/shop/configmaps?limit=500",
                                "GET /api/v1/namespaces/shop/configmaps?limit=500&fieldSelector=metadata.name%3Dc"}));
}

TEST_F(KubeClient, ListsEveryPageFollowingContinueTokens) {
  Client client(config_of(server_->kubeconfig_path()), quick_retries());
  client.set_list_page_size(2);
  auto type = client.find_type("v1", "ConfigMap").value();
  for (const char* name : {"a", "b", "c", "d", "e"}) {
    ASSERT_TRUE(client.apply(type, "default", config_map(name, "default"), {}).ok());
  }
  server_->clear_requests();
  auto all = client.list(type, "default");
  ASSERT_TRUE(all.ok()) << all.error().message;
  std::vector<std::string> names;
  for (const Value& item : all.value()) names.push_back(text(*item.find("metadata"), "name"));
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c", "d", "e"}));
  const auto lines = request_lines(*server_);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "GET /api/v1/namespaces/default/configmaps?limit=2");
  EXPECT_NE(lines[1].find("&continue="), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("&continue="), std::string::npos) << lines[2];
}

TEST_F(KubeClient, DeletesWithAPropagationPolicyAndTakesNotFoundAsDone) {
  Client client(config_of(server_->kubeconfig_path()), quick_retries());
  auto type = client.find_type("v1", "ConfigMap").value();
  ASSERT_TRUE(client.apply(type, "default", config_map("web", "default"), {}).ok());
  server_->clear_requests();
  ASSERT_TRUE(client.remove(type, "default", "web", "Foreground").ok());
  ASSERT_TRUE(client.remove(type, "default", "web").ok());
  const Value requests = server_->requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(text(*requests.at(0), "method"), "DELETE");
  EXPECT_EQ(text(*requests.at(0), "path"), "/api/v1/namespaces/default/configmaps/web");
  EXPECT_EQ(text(json(text(*requests.at(0), "body")), "propagationPolicy"), "Foreground");
  EXPECT_EQ(text(json(text(*requests.at(1), "body")), "propagationPolicy"), "Background");
  EXPECT_FALSE(client.get(type, "default", "web").ok());
}

TEST_F(KubeClient, RetriesTooManyRequestsAndServerErrors) {
  Client client(config_of(server_->kubeconfig_path()), quick_retries());
  auto type = client.find_type("v1", "ConfigMap").value();
  for (int status : {429, 500, 503, 504}) {
    server_->clear_requests();
    server_->inject_failures("PATCH", "/api/v1/namespaces/default/configmaps/web", status, 2);
    auto applied = client.apply(type, "default", config_map("web", "default"), {});
    ASSERT_TRUE(applied.ok()) << status << ": " << applied.error().message;
    EXPECT_EQ(request_lines(*server_).size(), 3u) << status;
  }
  // Other errors fail at once.
  server_->clear_requests();
  server_->inject_failures("GET", "/api/v1/namespaces/default/configmaps/web", 403, 1);
  auto forbidden = client.get(type, "default", "web");
  ASSERT_FALSE(forbidden.ok());
  EXPECT_EQ(forbidden.error().status, 403);
  EXPECT_EQ(request_lines(*server_).size(), 1u);
}

TEST_F(KubeClient, GivesUpWhenTheNextWaitWouldPassTheRetryPolicysTime) {
  sindri::kube::RetryPolicy policy = quick_retries();
  policy.give_up_after = 0;
  Client client(config_of(server_->kubeconfig_path()), policy);
  server_->inject_failures("GET", "/version", 503, 2);
  auto version = client.version();
  ASSERT_FALSE(version.ok());
  EXPECT_EQ(version.error().status, 503);
  EXPECT_NE(version.error().message.find("(gave up after 1 attempt)"), std::string::npos) << version.error().message;
  EXPECT_EQ(request_lines(*server_).size(), 1u);
}

TEST_F(KubeClient, AProbeIsNotRetried) {
  Client client(config_of(server_->kubeconfig_path()), quick_retries());
  server_->inject_failures("GET", "/version", 503, 1);
  auto probe = client.version(Client::Retries::none);
  ASSERT_FALSE(probe.ok());
  EXPECT_EQ(probe.error().status, 503);
  EXPECT_EQ(request_lines(*server_).size(), 1u);
  EXPECT_TRUE(client.version(Client::Retries::none).ok());
}

TEST_F(KubeClient, AStoppingClientRetriesNoMore) {
  Client client(config_of(server_->kubeconfig_path()), quick_retries());
  std::atomic<bool> stopping{true};
  client.stop_retrying_when(&stopping);
  server_->inject_failures("GET", "/version", 503, 3);
  auto version = client.version();
  ASSERT_FALSE(version.ok());
  EXPECT_NE(version.error().message.find("(gave up after 1 attempt)"), std::string::npos) << version.error().message;
  EXPECT_EQ(request_lines(*server_).size(), 1u);
  stopping = false;
  EXPECT_TRUE(client.version().ok());
  EXPECT_EQ(request_lines(*server_).size(), 4u);
}

TEST_F(KubeClient, ADroppedConnectionIsRetriedOnANewOne) {
  Client client(config_of(server_->kubeconfig_path()), quick_retries());
  ASSERT_TRUE(client.version().ok());
  server_->clear_requests();
  server_->inject_failures("GET", "/version", 0, 2);
  auto version = client.version();
  ASSERT_TRUE(version.ok()) << version.error().message;
  EXPECT_EQ(request_lines(*server_).size(), 3u);
}

TEST_F(KubeClient, AServerThatIsGoneIsATransportError) {
  ClusterConfig config = config_of(server_->kubeconfig_path());
  config.server = "https://127.0.0.1:1";
  sindri::kube::RetryPolicy policy = quick_retries();
  policy.give_up_after = 0.01;
  Client client(config, policy);
  auto version = client.version();
  ASSERT_FALSE(version.ok());
  EXPECT_EQ(version.error().status, 0);
  EXPECT_TRUE(version.error().retryable());
  EXPECT_NE(version.error().message.find("GET /version"), std::string::npos);
}

TEST_F(KubeClient, ReadsTextAndReportsEachOperation) {
  Client client(config_of(server_->kubeconfig_path()), quick_retries());
  std::vector<std::string> seen;
  client.on_operation([&seen](const sindri::kube::OperationRecord& record) {
    seen.push_back(std::string(record.operation) + (record.ok ? " ok" : " failed"));
  });
  Value pod = json(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default",
      "annotations":{"sindri-test/log":"line one\nline two\n"}},"spec":{"containers":[{"name":"c","image":"i"}]}})");
  server_->put_object(pod);
  auto log = client.get_text("/api/v1/namespaces/default/pods/p/log?container=c");
  ASSERT_TRUE(log.ok()) << log.error().message;
  EXPECT_EQ(log.value(), "line one\nline two\n");
  auto type = client.find_type("v1", "Pod").value();
  EXPECT_FALSE(client.get(type, "default", "absent").ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"get_text ok", "discovery ok", "get failed"}));
}

TEST_F(KubeClient, ServesSeveralThreadsAtOnce) {
  Client client(config_of(server_->kubeconfig_path()), quick_retries());
  auto type = client.find_type("v1", "ConfigMap").value();
  std::atomic<int> applied{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i) {
        const std::string name = "cm-" + std::to_string(t) + "-" + std::to_string(i);
        if (client.apply(type, "default", config_map(name, "default"), {}).ok()) ++applied;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(applied.load(), 20);
  EXPECT_EQ(client.list(type, "default")->size(), 20u);
}

}  // namespace
