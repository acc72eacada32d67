// CORS, black box over HTTP: no origin is allowed by default; an allowed
// origin's preflight is answered before authentication with the path's
// methods, and its requests carry the headers a browser needs to read the
// answer (a refusal's too); another origin gets no CORS headers.

#include "broker_process.hpp"

namespace sindri_test {
namespace {

using sindri::http::ClientResponse;
using sindri::http::Header;

constexpr const char* kConsole = "https://console.example.com";

class Cors : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    broker_ = std::make_unique<BrokerProcess>(GetParam());
    if (!broker_->usable()) GTEST_FAIL() << "no database for this backend";
  }

  ClientResponse send(const std::string& method, const std::string& path, std::vector<Header> headers,
                      const std::string& pak = "", const std::string& body = "") {
    sindri::http::Client client(broker_->url());
    if (!pak.empty()) client.set_authorization("Bearer " + pak);
    client.set_headers(std::move(headers));
    auto response = client.request(method, path, body);
    if (!response.ok()) throw std::runtime_error(response.error().message);
    return std::move(response).value();
  }

  ClientResponse preflight(const std::string& path, const std::string& origin, const std::string& method,
                           const std::string& headers = "") {
    std::vector<Header> sent = {{"Origin", origin}, {"Access-Control-Request-Method", method}};
    if (!headers.empty()) sent.push_back({"Access-Control-Request-Headers", headers});
    return send("OPTIONS", path, std::move(sent));
  }

  std::unique_ptr<BrokerProcess> broker_;
};

TEST_P(Cors, NoOriginIsAllowedByDefault) {
  broker_->start();
  ClientResponse answer = preflight("/api/v1/stacks", kConsole, "GET");
  EXPECT_EQ(answer.status, 403) << answer.body;
  EXPECT_NE(answer.body.find("origin_not_allowed"), std::string::npos) << answer.body;
  EXPECT_EQ(answer.header("Access-Control-Allow-Origin"), "");
  ClientResponse read = send("GET", "/api/v1/stacks", {{"Origin", kConsole}}, broker_->admin_pak());
  EXPECT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(read.header("Access-Control-Allow-Origin"), "");
}

TEST_P(Cors, AnAllowedOriginsPreflightIsAnsweredBeforeAuthentication) {
  broker_->start({"--cors-allowed-origins", std::string(kConsole) + ",https://other.example.com",
                  "--cors-max-age-seconds", "600"});
  ClientResponse answer = preflight("/api/v1/stacks", kConsole, "POST", "authorization, content-type, x-custom");
  ASSERT_EQ(answer.status, 204) << answer.body;
  EXPECT_EQ(answer.header("Access-Control-Allow-Origin"), kConsole);
  EXPECT_EQ(answer.header("Vary"), "Origin");
  EXPECT_EQ(answer.header("Access-Control-Allow-Methods"), "GET, POST");
  EXPECT_EQ(answer.header("Access-Control-Allow-Headers"), "Authorization, Content-Type");
  EXPECT_EQ(answer.header("Access-Control-Max-Age"), "600");

  ClientResponse one = preflight("/api/v1/stacks/00000000-0000-0000-0000-000000000001", kConsole, "DELETE",
                                 "If-None-Match");
  ASSERT_EQ(one.status, 204) << one.body;
  EXPECT_EQ(one.header("Access-Control-Allow-Methods"), "GET, PUT, DELETE");
  EXPECT_EQ(one.header("Access-Control-Allow-Headers"), "Authorization, Content-Type, If-None-Match");

  EXPECT_EQ(preflight("/api/v1/openapi.json", kConsole, "GET").header("Access-Control-Allow-Methods"), "GET, HEAD");
  ClientResponse nowhere = preflight("/api/v1/no-such-thing", kConsole, "GET");
  EXPECT_EQ(nowhere.status, 404) << nowhere.body;

  ClientResponse stranger = preflight("/api/v1/stacks", "https://evil.example.com", "GET");
  EXPECT_EQ(stranger.status, 403) << stranger.body;
  EXPECT_EQ(stranger.header("Access-Control-Allow-Origin"), "");
  EXPECT_EQ(stranger.header("Access-Control-Allow-Methods"), "");
}

TEST_P(Cors, AnAllowedOriginsRequestsAndRefusalsCarryTheHeaders) {
  broker_->start({"--cors-allowed-origins", kConsole});
  ClientResponse read = send("GET", "/api/v1/stacks", {{"Origin", kConsole}}, broker_->admin_pak());
  EXPECT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(read.header("Access-Control-Allow-Origin"), kConsole);
  EXPECT_EQ(read.header("Vary"), "Origin");
  EXPECT_NE(read.header("Access-Control-Expose-Headers").find("Allow"), std::string::npos);

  // A page must be able to read why it was refused: before the body
  // (refuse_before_body) and after it.
  ClientResponse unauthenticated = send("GET", "/api/v1/stacks", {{"Origin", kConsole}});
  EXPECT_EQ(unauthenticated.status, 401) << unauthenticated.body;
  EXPECT_EQ(unauthenticated.header("Access-Control-Allow-Origin"), kConsole);
  ClientResponse refused_write =
      send("POST", "/api/v1/generators", {{"Origin", kConsole}}, "not-a-pak", R"({"name":"g"})");
  EXPECT_EQ(refused_write.status, 401) << refused_write.body;
  EXPECT_EQ(refused_write.header("Access-Control-Allow-Origin"), kConsole);

  ClientResponse stranger = send("GET", "/api/v1/stacks", {{"Origin", "https://evil.example.com"}},
                                 broker_->admin_pak());
  EXPECT_EQ(stranger.status, 200) << stranger.body;
  EXPECT_EQ(stranger.header("Access-Control-Allow-Origin"), "");
  EXPECT_EQ(stranger.header("Vary"), "Origin");
}

TEST_P(Cors, AStarAllowsAnyOriginAndNamesIt) {
  broker_->start({"--cors-allowed-origins", "*"});
  ClientResponse answer = preflight("/api/v1/agents", "http://localhost:3000", "GET");
  ASSERT_EQ(answer.status, 204) << answer.body;
  EXPECT_EQ(answer.header("Access-Control-Allow-Origin"), "http://localhost:3000");
  ClientResponse read = send("GET", "/healthz", {{"Origin", "http://localhost:3000"}});
  EXPECT_EQ(read.header("Access-Control-Allow-Origin"), "http://localhost:3000");
  // Without an Origin header a request is not a cross-origin one.
  EXPECT_EQ(send("GET", "/healthz", {}).header("Access-Control-Allow-Origin"), "");
}

INSTANTIATE_TEST_SUITE_P(Backends, Cors, ::testing::Values(Backend::Sqlite, Backend::Postgres), backend_name);

}  // namespace
}  // namespace sindri_test
