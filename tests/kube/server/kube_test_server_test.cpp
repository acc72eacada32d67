// The Kubernetes API test server through its fixture, spoken to over HTTPS
// with the bearer token: authentication, server-side apply (ownership,
// conflicts, lists merged by key), selectors, deletion and the test controls.

#include "kube/server/kube_test_server.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "http/client.hpp"
#include "value/json.hpp"
#include "value/pointer.hpp"

namespace {

using sindri::Value;
using sindri_test::KubeTestServer;

struct Reply {
  int status = 0;
  Value json;
  std::string body;
};

// One server for the suite (certificates and a python start are the slow
// part), reset before each test.
class KubeTestServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new KubeTestServer(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    server_->reset();
    client_ = std::make_unique<sindri::http::Client>(server_->url());
    client_->set_ca_file(server_->ca_file);
  }

  Reply call(std::string_view method, std::string_view path, std::string_view body = {},
             std::string_view content_type = "application/json", bool authenticated = true) {
    client_->set_authorization(authenticated ? "Bearer test-token" : "");
    auto response = client_->request(method, path, body, content_type);
    EXPECT_TRUE(response.ok()) << (response.ok() ? "" : response.error().message);
    if (!response.ok()) return {};
    Reply reply{response->status, Value(), response->body};
    auto parsed = sindri::parse_json(response->body);
    if (parsed.ok()) reply.json = std::move(parsed).value();
    return reply;
  }
  Reply apply(std::string_view path, std::string_view yaml, std::string_view manager, bool force = false) {
    return call("PATCH",
                std::string(path) + "?fieldManager=" + std::string(manager) + (force ? "&force=true" : ""), yaml,
                "application/apply-patch+yaml");
  }
  static std::string text(const Value& value, std::string_view pointer) {
    const Value* found = sindri::follow_pointer(value, pointer);
    return found != nullptr && found->is_string() ? std::string(found->get_string()) : std::string("<none>");
  }
  static int64_t number(const Value& value, std::string_view pointer) {
    const Value* found = sindri::follow_pointer(value, pointer);
    return found != nullptr && found->is_int() ? found->get_int() : -1;
  }

  static inline KubeTestServer* server_ = nullptr;
  std::unique_ptr<sindri::http::Client> client_;
};

constexpr std::string_view kDeployments = "/apis/apps/v1/namespaces/default/deployments";

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

TEST_F(KubeTestServerTest, AnswersVersionAndRefusesTheUnauthenticatedWithAStatus) {
  const Reply version = call("GET", "/version");
  EXPECT_EQ(version.status, 200);
  EXPECT_EQ(text(version.json, "/major"), "1");
  EXPECT_EQ(call("GET", "/healthz").body, "ok");
  // Without credentials only the public paths answer; a wrong token is refused even there.
  EXPECT_EQ(call("GET", "/readyz", {}, "application/json", false).body, "ok");
  sindri::http::Client wrong_token(server_->url());
  wrong_token.set_ca_file(server_->ca_file);
  wrong_token.set_authorization("Bearer wrong");
  auto refused_version = wrong_token.request("GET", "/version");
  ASSERT_TRUE(refused_version.ok());
  EXPECT_EQ(refused_version->status, 401);
  const Reply refused = call("GET", "/api/v1/namespaces", {}, "application/json", false);
  EXPECT_EQ(refused.status, 401);
  EXPECT_EQ(text(refused.json, "/kind"), "Status");
  EXPECT_EQ(text(refused.json, "/reason"), "Unauthorized");
}

TEST_F(KubeTestServerTest, ServesDiscovery) {
  const Reply groups = call("GET", "/apis");
  EXPECT_EQ(text(groups.json, "/kind"), "APIGroupList");
  const Reply apps = call("GET", "/apis/apps/v1");
  EXPECT_EQ(text(apps.json, "/kind"), "APIResourceList");
  EXPECT_NE(apps.body.find(R"("kind": "Deployment")"), std::string::npos);
  const Reply core = call("GET", "/api/v1");
  EXPECT_NE(core.body.find(R"("name": "pods/log")"), std::string::npos);
}

TEST_F(KubeTestServerTest, ServerSideApplyCreatesThenMergesContainersByName) {
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

TEST_F(KubeTestServerTest, ConflictsNameTheFieldAndManagerUnlessForced) {
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

TEST_F(KubeTestServerTest, FieldsAManagerStopsApplyingAreRemoved) {
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

TEST_F(KubeTestServerTest, DryRunStoresNothingAndFieldManagerIsRequired) {
  const Reply dry = call("PATCH", std::string(kDeployments) + "/web?fieldManager=x&dryRun=All", kWeb,
                         "application/apply-patch+yaml");
  EXPECT_EQ(dry.status, 201);
  EXPECT_EQ(call("GET", std::string(kDeployments) + "/web").status, 404);
  const Reply missing =
      call("PATCH", std::string(kDeployments) + "/web", kWeb, "application/apply-patch+yaml");
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(text(missing.json, "/kind"), "Status");
}

TEST_F(KubeTestServerTest, RefusesInvalidObjectsAndMissingNamespaces) {
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

TEST_F(KubeTestServerTest, ListsByLabelSelectorInPages) {
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

TEST_F(KubeTestServerTest, NamespacesCarryTheirNameLabel) {
  ASSERT_EQ(apply("/api/v1/namespaces/shop", "apiVersion: v1\nkind: Namespace\nmetadata: {labels: {team: a}}\n", "x")
                .status,
            201);
  const Reply shop = call("GET", "/api/v1/namespaces?labelSelector=kubernetes.io/metadata.name%3Dshop");
  ASSERT_EQ(shop.json.find("items")->size(), 1u) << shop.body;
  EXPECT_EQ(text(shop.json, "/items/0/metadata/labels/team"), "a");
  EXPECT_EQ(text(shop.json, "/items/0/status/phase"), "Active");
}

TEST_F(KubeTestServerTest, InjectedFailuresAnswerTheStatusThenStop) {
  server_->inject_failures("GET", "/api/v1/namespaces", 503, 2);
  EXPECT_EQ(call("GET", "/api/v1/namespaces").status, 503);
  EXPECT_EQ(text(call("GET", "/api/v1/namespaces/default").json, "/reason"), "ServiceUnavailable");
  EXPECT_EQ(call("GET", "/api/v1/namespaces").status, 200);
  const Value requests = server_->requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(text(requests, "/1/path"), "/api/v1/namespaces/default");
  server_->clear_requests();
  EXPECT_EQ(server_->requests().size(), 0u);
}

TEST_F(KubeTestServerTest, ADroppedConnectionIsATransportError) {
  server_->inject_failures("*", "/version", 0, 1);
  sindri::http::Client client(server_->url());
  client.set_ca_file(server_->ca_file);
  client.set_authorization("Bearer test-token");
  EXPECT_FALSE(client.request("GET", "/version").ok());
  EXPECT_TRUE(client.request("GET", "/version").ok());
}

TEST_F(KubeTestServerTest, AHeldRequestIsLoggedAtOnceAndAnsweredLate) {
  server_->hold_requests("PATCH", "/api/v1/namespaces/default/configmaps/slow", 0.5, 1);
  std::thread slow([&] {
    sindri::http::Client client(server_->url());
    client.set_ca_file(server_->ca_file);
    client.set_authorization("Bearer test-token");
    auto answer = client.request("PATCH", "/api/v1/namespaces/default/configmaps/slow?fieldManager=x",
                                 "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: slow}\n",
                                 "application/apply-patch+yaml");
    EXPECT_TRUE(answer.ok() && answer->status == 201);
  });
  // The request is in the log while its answer waits: the object is not stored yet.
  bool seen = false;
  for (int attempt = 0; attempt < 100 && !seen; ++attempt) {
    seen = server_->requests().size() == 1;
    if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(seen);
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/configmaps/slow").status, 404);
  slow.join();
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/configmaps/slow").status, 200);
}

TEST_F(KubeTestServerTest, PutObjectStoresStatusAndLogsAreServed) {
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

TEST_F(KubeTestServerTest, CreatesAndReplacesAsUpdatesOfTheirManager) {
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

TEST_F(KubeTestServerTest, DeletionPropagatesToDependentsOrOrphansThem) {
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

TEST_F(KubeTestServerTest, FieldSelectorsOfEvents) {
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

TEST_F(KubeTestServerTest, BadInputIsAStatusNeverAHangOrCrash) {
  const std::string configmaps = "/api/v1/namespaces/default/configmaps";
  const std::string apply_type = "application/apply-patch+yaml";
  const Reply not_json = call("POST", configmaps, "{", "application/json");
  EXPECT_EQ(not_json.status, 400);
  EXPECT_EQ(text(not_json.json, "/kind"), "Status");
  EXPECT_EQ(call("PATCH", configmaps + "/c?fieldManager=x", "a: [", apply_type).status, 400);
  EXPECT_EQ(call("PATCH", configmaps + "/c?fieldManager=x", "- 1\n- 2\n", apply_type).status, 400);
  EXPECT_EQ(call("PATCH", configmaps + "/c?fieldManager=x", "{}", "application/merge-patch+json").status, 415);
  EXPECT_EQ(call("PATCH", configmaps + "/c?fieldManager=x",
                 "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, labels: {a: 1}}\n", apply_type)
                .status,
            422);
  EXPECT_EQ(call("GET", configmaps + "?limit=many").status, 400);
  EXPECT_EQ(call("GET", configmaps + "?continue=garbage").status, 400);
  EXPECT_EQ(call("GET", "/apis/nothing.example.com/v1/things").status, 404);
  EXPECT_EQ(call("DELETE", configmaps + "/absent").status, 404);
  EXPECT_EQ(call("GET", configmaps + "?watch=true").status, 405);
  const std::string plain = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n";
  const Reply created = call("PATCH", configmaps + "/c?fieldManager=x", plain, apply_type);
  ASSERT_EQ(created.status, 201);
  const Reply stale = call("PATCH", configmaps + "/c?fieldManager=x",
                           "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, resourceVersion: \"1\"}\n", apply_type);
  EXPECT_EQ(stale.status, 409);
  // An apply that changes nothing is no new version.
  const Reply again = call("PATCH", configmaps + "/c?fieldManager=x", plain, apply_type);
  EXPECT_EQ(text(again.json, "/metadata/resourceVersion"), text(created.json, "/metadata/resourceVersion"));
}

// What no HTTP client here would send, through `openssl s_client` as a raw
// TLS connection: the server's whole answer, or "" when it gave none.
std::string raw_tls_exchange(const KubeTestServer& server, const std::string& request) {
  const std::filesystem::path request_file = server.directory() / "raw-request";
  std::ofstream(request_file, std::ios::binary) << request;
  const std::string command = "timeout 10 openssl s_client -connect 127.0.0.1:" + std::to_string(server.port()) +
                              " -CAfile " + server.ca_file + " -quiet -ign_eof < " + request_file.string() +
                              " 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  std::string answer;
  char buffer[4096];
  size_t read = 0;
  while (pipe && (read = fread(buffer, 1, sizeof buffer, pipe.get())) > 0) answer.append(buffer, read);
  return answer;
}

TEST_F(KubeTestServerTest, ReadsChunkedBodiesAndRefusesMalformedFraming) {
  const std::string head =
      "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer test-token\r\n"
      "Content-Type: application/json\r\nConnection: close\r\n";
  const std::string first = R"({"apiVersion":")";
  const std::string second = R"(v1","kind":"ConfigMap","metadata":{"name":"chunked"}})";
  const auto hex = [](size_t n) {
    char text[16];
    std::snprintf(text, sizeof text, "%zx", n);
    return std::string(text);
  };
  const std::string chunked = head + "Transfer-Encoding: chunked\r\n\r\n" + hex(first.size()) + "\r\n" + first +
                              "\r\n" + hex(second.size()) + "\r\n" + second + "\r\n0\r\n\r\n";
  EXPECT_EQ(raw_tls_exchange(*server_, chunked).rfind("HTTP/1.1 201 ", 0), 0u);
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/configmaps/chunked").status, 200);

  EXPECT_EQ(raw_tls_exchange(*server_, head + "Transfer-Encoding: chunked\r\n\r\nzz\r\n").rfind("HTTP/1.1 400 ", 0),
            0u);
  EXPECT_EQ(raw_tls_exchange(*server_, head + "Content-Length: many\r\n\r\n").rfind("HTTP/1.1 400 ", 0), 0u);
}

TEST_F(KubeTestServerTest, PlainHttpOnTheTlsPortIsRefusedAndTheServerGoesOn) {
  sindri::http::Client plain("http://127.0.0.1:" + std::to_string(server_->port()));
  plain.set_timeout_ms(5000);
  auto answer = plain.request("GET", "/version");
  EXPECT_FALSE(answer.ok() && answer->status == 200);
  EXPECT_EQ(call("GET", "/version").status, 200);
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
