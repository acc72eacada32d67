// The paths the broker answers itself (/healthz, /readyz, /metrics, the
// OpenAPI document) take GET and HEAD; any other method is a 405 naming
// them in Allow, with or without a body and a PAK.

#include "broker_process.hpp"

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

}  // namespace
}  // namespace sindri_test
