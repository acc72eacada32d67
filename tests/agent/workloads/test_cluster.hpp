#pragma once
// One Kubernetes API test server (tests/kube/server) for a test suite,
// reset before each test, and a client of it per test whose retries take
// hundredths of a second.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>

#include "kube/client.hpp"
#include "kube/config.hpp"
#include "kube/server/kube_test_server.hpp"
#include "value/json.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::agent {

class ClusterTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new sindri_test::KubeTestServer(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }

  void SetUp() override {
    server().reset();
    auto config = kube::load_kubeconfig(kube::KubeconfigOptions{.path = server().kubeconfig_path(), .context = "test"});
    ASSERT_TRUE(config.ok()) << config.error().message;
    client_ = std::make_unique<kube::Client>(
        *config, kube::RetryPolicy{.initial_delay = 0.01, .max_delay = 0.02, .give_up_after = 0.1});
  }

  static sindri_test::KubeTestServer& server() { return *server_; }
  kube::Client& client() { return *client_; }

  // One object written as YAML.
  static Value yaml(std::string_view text) {
    auto parsed = parse_yaml(text);
    EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.error().describe());
    return parsed.ok() ? *parsed : Value();
  }
  static Value json(std::string_view text) {
    auto parsed = parse_json(text);
    EXPECT_TRUE(parsed.ok()) << text;
    return parsed.ok() ? *parsed : Value();
  }
  void put(std::string_view yaml_text) { server().put_object(yaml(yaml_text)); }

  // The API requests seen whose method is `method` and path is `path`.
  static size_t requests_to(std::string_view method, std::string_view path) {
    size_t count = 0;
    for (const Value requests = server().requests(); const Value& request : requests.get_array()) {
      if (request.find("method")->get_string() == method && request.find("path")->get_string() == path) ++count;
    }
    return count;
  }

 private:
  static inline sindri_test::KubeTestServer* server_ = nullptr;
  std::unique_ptr<kube::Client> client_;
};

}  // namespace sindri::agent
