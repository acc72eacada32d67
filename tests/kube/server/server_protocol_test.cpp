// The test server's protocol: authentication, discovery, injected failures,
// dropped and held requests, bad input, chunked and malformed framing.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "kube/server/server_test_fixture.hpp"

namespace {

using sindri::Value;
using sindri_test::KubeTestServer;
using sindri_test::Reply;
using KubeTestServerProtocol = sindri_test::KubeTestServerTest;

TEST_F(KubeTestServerProtocol, AnswersVersionAndRefusesTheUnauthenticatedWithAStatus) {
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

TEST_F(KubeTestServerProtocol, ServesDiscovery) {
  const Reply groups = call("GET", "/apis");
  EXPECT_EQ(text(groups.json, "/kind"), "APIGroupList");
  const Reply apps = call("GET", "/apis/apps/v1");
  EXPECT_EQ(text(apps.json, "/kind"), "APIResourceList");
  EXPECT_NE(apps.body.find(R"("kind": "Deployment")"), std::string::npos);
  const Reply core = call("GET", "/api/v1");
  EXPECT_NE(core.body.find(R"("name": "pods/log")"), std::string::npos);
}

TEST_F(KubeTestServerProtocol, InjectedFailuresAnswerTheStatusThenStop) {
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

TEST_F(KubeTestServerProtocol, ADroppedConnectionIsATransportError) {
  server_->inject_failures("*", "/version", 0, 1);
  sindri::http::Client client(server_->url());
  client.set_ca_file(server_->ca_file);
  client.set_authorization("Bearer test-token");
  EXPECT_FALSE(client.request("GET", "/version").ok());
  EXPECT_TRUE(client.request("GET", "/version").ok());
}

TEST_F(KubeTestServerProtocol, AHeldRequestIsLoggedAtOnceAndAnsweredLate) {
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

TEST_F(KubeTestServerProtocol, BadInputIsAStatusNeverAHangOrCrash) {
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

TEST_F(KubeTestServerProtocol, ReadsChunkedBodiesAndRefusesMalformedFraming) {
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

TEST_F(KubeTestServerProtocol, PlainHttpOnTheTlsPortIsRefusedAndTheServerGoesOn) {
  sindri::http::Client plain("http://127.0.0.1:" + std::to_string(server_->port()));
  plain.set_timeout_ms(5000);
  auto answer = plain.request("GET", "/version");
  EXPECT_FALSE(answer.ok() && answer->status == 200);
  EXPECT_EQ(call("GET", "/version").status, 200);
}

}  // namespace
