// The paths the broker answers itself (/healthz, /readyz, /metrics, the
// OpenAPI document) take GET and HEAD; any other method is a 405 naming
// them in Allow, with or without a body and a PAK; they take no body, and a
// GET or HEAD with one is refused before it is read. Every 429 and 503
// carries Retry-After.

#include "broker_process.hpp"
#include "support/raw_connection.hpp"

namespace sindri_test {
namespace {

TEST(ServiceEndpoints, OtherMethodsThanGetAndHeadAre405WithAllow) {
  BrokerProcess broker(Backend::Sqlite);
  broker.start();
  auto anonymous = broker.client("");
  auto admin = broker.client(broker.admin_pak());
  for (const char* path : {"/healthz", "/readyz", "/metrics", "/api/v1/openapi.json"}) {
    EXPECT_EQ(call(*anonymous, "GET", path).status, 200) << path;
    EXPECT_EQ(call(*anonymous, "HEAD", path).status, 200) << path;
    for (const char* method : {"POST", "PUT", "PATCH", "DELETE"}) {
      for (auto* client : {anonymous.get(), admin.get()}) {
        for (const std::string body : {"", "{}"}) {
          Reply reply = call(*client, method, path, body);
          EXPECT_EQ(reply.status, 405) << method << " " << path << ": " << reply.body;
          EXPECT_EQ(reply.header_allow, "GET, HEAD") << method << " " << path;
          EXPECT_EQ(text_of(reply.json, "code"), "method_not_allowed") << reply.body;
        }
      }
    }
  }
  // Still alive and answering.
  EXPECT_EQ(call(*anonymous, "GET", "/healthz").status, 200);
}

TEST(ServiceEndpoints, AGetWithABodyIsRefusedBeforeTheBodyIsRead) {
  BrokerProcess broker(Backend::Sqlite);
  broker.start();
  auto anonymous = broker.client("");
  auto admin = broker.client(broker.admin_pak());
  for (const char* path : {"/healthz", "/readyz", "/metrics", "/api/v1/openapi.json"}) {
    for (auto* client : {anonymous.get(), admin.get()}) {
      const Reply reply = call(*client, "GET", path, "{}");
      EXPECT_EQ(reply.status, 400) << path << ": " << reply.body;
      EXPECT_EQ(text_of(reply.json, "code"), "body_not_allowed") << reply.body;
      EXPECT_EQ(text_of(reply.json, "message"), std::string("GET ") + path + " takes no request body") << reply.body;
    }
  }

  // A body announced and never sent is not waited for: the answer comes from
  // the headers, and the connection closes.
  RawConnection holding(broker.port());
  ASSERT_TRUE(holding.connected());
  holding.send("GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n");
  const std::string answer = holding.read_all();
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 400")) << answer;
  EXPECT_NE(answer.find("body_not_allowed"), std::string::npos) << answer;
  EXPECT_EQ(call(*anonymous, "GET", "/healthz").status, 200);
}

// A broker whose database has gone: /readyz's 503 and an API request's 503
// both tell the client when to retry.
TEST(ServiceEndpoints, The503sOfADatabaseThatHasGoneCarryRetryAfter) {
  BrokerProcess broker(Backend::PostgresPublic);
  if (!broker.usable()) GTEST_SKIP() << "no PostgreSQL";
  broker.start();
  auto anonymous = broker.client("");
  auto admin = broker.client(broker.admin_pak());
  ASSERT_EQ(call(*admin, "GET", "/api/v1/generators").status, 200);
  ASSERT_TRUE(run_on_postgres_server(broker.admin_url(), "DROP DATABASE " + broker.owned_database() + " WITH (FORCE)"));

  auto ready = anonymous->request("GET", "/readyz", "", "");
  ASSERT_TRUE(ready.ok()) << ready.error().message;
  EXPECT_EQ(ready->status, 503) << ready->body;
  EXPECT_EQ(ready->header("Retry-After"), "1");

  auto listed = admin->request("POST", "/api/v1/generators", R"({"name": "after"})", "application/json");
  ASSERT_TRUE(listed.ok()) << listed.error().message;
  EXPECT_EQ(listed->status, 503) << listed->body;
  EXPECT_NE(listed->body.find("database_unavailable"), std::string::npos) << listed->body;
  EXPECT_EQ(listed->header("Retry-After"), "1");
  EXPECT_EQ(broker.stop(), 0) << broker.log();
}

}  // namespace
}  // namespace sindri_test
