#pragma once
// The fixture of the test server's own tests: one server for a suite (its
// certificates and the python start are the slow part), reset before each
// test, and a client speaking to it with the bearer token.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>

#include "http/client.hpp"
#include "kube/server/kube_test_server.hpp"
#include "value/json.hpp"
#include "value/pointer.hpp"

namespace sindri_test {

struct Reply {
  int status = 0;
  sindri::Value json;
  std::string body;
};

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
    Reply reply{response->status, sindri::Value(), response->body};
    auto parsed = sindri::parse_json(response->body);
    if (parsed.ok()) reply.json = std::move(parsed).value();
    return reply;
  }
  Reply apply(std::string_view path, std::string_view yaml, std::string_view manager, bool force = false) {
    return call("PATCH",
                std::string(path) + "?fieldManager=" + std::string(manager) + (force ? "&force=true" : ""), yaml,
                "application/apply-patch+yaml");
  }
  static std::string text(const sindri::Value& value, std::string_view pointer) {
    const sindri::Value* found = sindri::follow_pointer(value, pointer);
    return found != nullptr && found->is_string() ? std::string(found->get_string()) : std::string("<none>");
  }
  static int64_t number(const sindri::Value& value, std::string_view pointer) {
    const sindri::Value* found = sindri::follow_pointer(value, pointer);
    return found != nullptr && found->is_int() ? found->get_int() : -1;
  }

  static inline KubeTestServer* server_ = nullptr;
  std::unique_ptr<sindri::http::Client> client_;
};

inline constexpr std::string_view kDeployments = "/apis/apps/v1/namespaces/default/deployments";

}  // namespace sindri_test
