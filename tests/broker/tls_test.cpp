// HTTPS end to end: `sindri serve` with tls.cert_file and tls.key_file
// (certificates the openssl command makes for the test), and the clients
// that speak to it: the API and /metrics, an agent's target state applied
// by `sindri agent run`, the `sindri` verbs with and without the CA. A
// rotated certificate is served without a restart, a client certificate is
// required when tls.client_ca_file is set, and plain HTTP sent to the TLS
// port gets a plain answer saying so rather than a hang.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "agent/agent_process.hpp"
#include "broker/broker_process.hpp"
#include "cli/sindri_process.hpp"
#include "http/client.hpp"
#include "support/raw_connection.hpp"
#include "support/test_certificates.hpp"
#include "value/json.hpp"

namespace sindri_test {
namespace {

using namespace std::chrono_literals;
using sindri::http::Client;

// Polls `condition` every 10 ms until it holds or 10 s pass.
bool eventually(const std::function<bool()>& condition) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

// Sets an environment variable for one scope; the `sindri` children inherit it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) { setenv(name, value.c_str(), 1); }
  ~ScopedEnv() { unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

// As cert-manager writes a Secret's files: aside, then renamed over the old.
void install(const fs::path& from, const fs::path& to) {
  const fs::path aside = to.string() + ".new";
  fs::copy_file(from, aside, fs::copy_options::overwrite_existing);
  fs::rename(aside, to);
}

class TlsBroker : public SindriTest {
 protected:
  void SetUp() override {
    SindriTest::SetUp();
    unsetenv("SINDRI_PAK");
    unsetenv("SINDRI_BROKER");
    unsetenv("SINDRI_CA_FILE");
    unsetenv("SINDRI_INSECURE_SKIP_TLS_VERIFY");
    // Copies the rotation test replaces.
    fs::copy_file(certificates_.server.cert, cert_file_);
    fs::copy_file(certificates_.server.key, key_file_);
  }

  void start(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> flags = {"--tls-cert-file", cert_file_.string(), "--tls-key-file", key_file_.string(),
                                      "--tls-reload-check-interval", "0.05"};
    flags.insert(flags.end(), extra.begin(), extra.end());
    broker_.start(flags);
    url_ = "https://127.0.0.1:" + std::to_string(broker_.port());
  }

  // A client of the broker's URL that trusts `ca` alone, with a PAK.
  std::unique_ptr<Client> client_trusting(const fs::path& ca, const std::string& pak) const {
    auto client = std::make_unique<Client>(url_);
    Client::TlsSettings tls;
    tls.ca_pem = TestCertificates::read(ca);
    client->set_tls(std::move(tls));
    if (!pak.empty()) client->set_authorization("Bearer " + pak);
    return client;
  }
  std::unique_ptr<Client> admin() const { return client_trusting(certificates_.ca.cert, broker_.admin_pak()); }

  TestCertificates certificates_;
  BrokerProcess broker_{Backend::Sqlite};
  const fs::path cert_file_ = broker_.dir() / "tls.crt";
  const fs::path key_file_ = broker_.dir() / "tls.key";
  std::string url_;
};

TEST_F(TlsBroker, ServesTheApiAndTheMetricsOverHttps) {
  start();
  auto client = admin();
  Reply generator = call(*client, "POST", "/api/v1/generators", R"({"name":"ci"})");
  EXPECT_EQ(generator.status, 201) << generator.body;
  const std::string generator_id = text_of(*generator.json.find("generator"), "id");
  Reply fetched = call(*client, "GET", "/api/v1/generators/" + generator_id);
  EXPECT_EQ(fetched.status, 200) << fetched.body;
  EXPECT_EQ(text_of(fetched.json, "name"), "ci");
  Reply health = call(*client, "GET", "/healthz");
  EXPECT_EQ(health.status, 200) << health.body;
  Reply metrics = call(*client, "GET", "/metrics");
  EXPECT_EQ(metrics.status, 200) << metrics.body;
  EXPECT_NE(metrics.body.find("# TYPE"), std::string::npos) << metrics.body;
}

TEST_F(TlsBroker, AnAgentAppliesItsTargetStateOverHttps) {
  start();
  auto client = admin();
  Reply generator = call(*client, "POST", "/api/v1/generators", R"({"name":"ci"})");
  ASSERT_EQ(generator.status, 201) << generator.body;
  const std::string generator_id = text_of(*generator.json.find("generator"), "id");
  Reply stack = call(*client, "POST", "/api/v1/stacks", R"({"name":"web","generator_id":")" + generator_id + R"("})");
  ASSERT_EQ(stack.status, 201) << stack.body;
  const std::string stack_id = text_of(stack.json, "id");
  ASSERT_EQ(call(*client, "POST", "/api/v1/stacks/" + stack_id + "/labels", R"("env=prod")").status, 201);
  Reply agent = call(*client, "POST", "/api/v1/agents", R"({"name":"a1","cluster_name":"c1"})");
  ASSERT_EQ(agent.status, 201) << agent.body;
  const std::string agent_id = text_of(*agent.json.find("agent"), "id");
  ASSERT_EQ(call(*client, "POST", "/api/v1/agents/" + agent_id + "/labels",
                 R"({"agent_id":")" + agent_id + R"(","label":"env=prod"})")
                .status,
            201);
  const std::string manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  greeting: hello\n";
  std::string body = R"({"yaml_content":)";
  sindri::append_json_string(body, manifest);
  ASSERT_EQ(call(*client, "POST", "/api/v1/stacks/" + stack_id + "/deployment-objects", body + "}").status, 201);
  const fs::path pak_file = dir_ / "agent.pak";
  std::ofstream(pak_file) << text_of(agent.json, "initial_pak") << "\n";
  const fs::path sink = dir_ / "sink";
  const auto agent_args = [&](const std::vector<std::string>& tls_flags) {
    std::vector<std::string> args = {
        "--broker-url", url_,         "--pak-file", pak_file.string(), "--agent-name", "a1",
        "--cluster-name", "c1",       "--sink",     "dir:" + sink.string(), "--health-port", "0",
        "--polling-interval", "0.05", "--startup-retry-interval", "0.05", "--max-retries", "2"};
    args.insert(args.end(), tls_flags.begin(), tls_flags.end());
    return args;
  };

  // Without the CA the agent cannot start, and says why and what to set.
  AgentProcess untrusting(agent_args({}), dir_ / "untrusting.log");
  EXPECT_EQ(untrusting.wait(), 1) << untrusting.log();
  EXPECT_NE(untrusting.log().find("the server's certificate is not trusted (certificate verify failed: unable to get "
                                  "local issuer certificate); give its CA with agent.ca_file (--ca-file, "
                                  "SINDRI_AGENT_CA_FILE)"),
            std::string::npos)
      << untrusting.log();

  AgentProcess trusting(agent_args({"--ca-file", certificates_.ca.cert.string()}), dir_ / "agent.log");
  const fs::path applied = sink / stack_id / "core_ConfigMap_default_web.yaml";
  EXPECT_TRUE(eventually([&] { return fs::exists(applied); })) << trusting.log();
  EXPECT_EQ(trusting.stop(), 0) << trusting.log();
}

TEST_F(TlsBroker, AnAgentToldToSkipVerificationTakesAnyCertificate) {
  start();
  Reply agent = call(*admin(), "POST", "/api/v1/agents", R"({"name":"a1","cluster_name":"c1"})");
  ASSERT_EQ(agent.status, 201) << agent.body;
  AgentProcess skipping({"--broker-url", url_, "--pak", text_of(agent.json, "initial_pak"), "--agent-name", "a1",
                         "--cluster-name", "c1", "--sink", "dir:" + (dir_ / "sink").string(), "--health-port", "0",
                         "--polling-interval", "0.05", "--insecure-skip-tls-verify", "true"},
                        dir_ / "agent.log");
  EXPECT_TRUE(eventually([&] {
    Reply record = call(*admin(), "GET", "/api/v1/agents/" + text_of(*agent.json.find("agent"), "id"));
    return !text_of(record.json, "last_heartbeat").empty();
  })) << skipping.log();
  EXPECT_EQ(skipping.stop(), 0) << skipping.log();
}

TEST_F(TlsBroker, TheCliTrustsTheCaItIsGivenAndRefusesWithoutIt) {
  start();
  const std::string pak = broker_.admin_pak();
  Outcome with_ca =
      sindri({"stack", "list", "--broker", url_, "--pak", pak, "--ca-file", certificates_.ca.cert.string()});
  EXPECT_EQ(with_ca.exit_code, 0) << with_ca.err;

  Outcome without = sindri({"stack", "list", "--broker", url_, "--pak", pak});
  EXPECT_EQ(without.exit_code, 1);
  EXPECT_EQ(without.err, "error: cannot reach the broker: GET " + url_ +
                             "/api/v1/stacks: the server's certificate is not trusted (certificate verify failed: "
                             "unable to get local issuer certificate); give its CA with --ca-file or "
                             "SINDRI_CA_FILE\n");

  Outcome skipping = sindri({"stack", "list", "--broker", url_, "--pak", pak, "--insecure-skip-tls-verify"});
  EXPECT_EQ(skipping.exit_code, 0) << skipping.err;
  {
    ScopedEnv ca("SINDRI_CA_FILE", certificates_.ca.cert.string());
    Outcome from_environment = sindri({"stack", "list", "--broker", url_, "--pak", pak});
    EXPECT_EQ(from_environment.exit_code, 0) << from_environment.err;
  }
  {
    ScopedEnv skip("SINDRI_INSECURE_SKIP_TLS_VERIFY", "true");
    Outcome from_environment = sindri({"template", "list", "--broker", url_, "--pak", pak});
    EXPECT_EQ(from_environment.exit_code, 0) << from_environment.err;
  }
  {
    ScopedEnv skip("SINDRI_INSECURE_SKIP_TLS_VERIFY", "yes");
    Outcome bad = sindri({"stack", "list", "--broker", url_, "--pak", pak});
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("SINDRI_INSECURE_SKIP_TLS_VERIFY: expected true or false, got `yes`"), std::string::npos)
        << bad.err;
  }
  // The wrong CA is refused the same way.
  Outcome other_ca =
      sindri({"stack", "list", "--broker", url_, "--pak", pak, "--ca-file", certificates_.second_ca.cert.string()});
  EXPECT_EQ(other_ca.exit_code, 1);
  EXPECT_NE(other_ca.err.find("the server's certificate is not trusted"), std::string::npos) << other_ca.err;
}

TEST_F(TlsBroker, ARotatedCertificateIsServedWithoutARestart) {
  start();
  const std::string pak = broker_.admin_pak();
  // A connection made before the rotation keeps working on its own context.
  auto before = admin();
  ASSERT_EQ(call(*before, "GET", "/api/v1/stacks").status, 200);
  auto trusting_second = client_trusting(certificates_.second_ca.cert, pak);
  auto refused = trusting_second->request("GET", "/api/v1/stacks");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("the server's certificate is not trusted"), std::string::npos)
      << refused.error().message;

  install(certificates_.second_server.key, key_file_);
  install(certificates_.second_server.cert, cert_file_);
  EXPECT_TRUE(eventually([&] {
    auto answered = client_trusting(certificates_.second_ca.cert, pak)->request("GET", "/api/v1/stacks");
    return answered.ok() && answered->status == 200;
  })) << broker_.log();
  EXPECT_EQ(call(*before, "GET", "/api/v1/stacks").status, 200);
  auto trusting_first = client_trusting(certificates_.ca.cert, pak)->request("GET", "/api/v1/stacks");
  EXPECT_FALSE(trusting_first.ok());
  EXPECT_EQ(broker_.running(), true);
}

TEST_F(TlsBroker, AClientCertificateIsRequiredWhenAClientCaIsSet) {
  start({"--tls-client-ca-file", certificates_.client_ca.cert.string()});
  auto without = admin()->request("GET", "/healthz");
  ASSERT_FALSE(without.ok());
  EXPECT_NE(without.error().message.find("the server requires a client certificate"), std::string::npos)
      << without.error().message;

  Client with(url_);
  Client::TlsSettings tls;
  tls.ca_pem = TestCertificates::read(certificates_.ca.cert);
  tls.client_certificate_pem = TestCertificates::read(certificates_.client.cert);
  tls.client_key_pem = TestCertificates::read(certificates_.client.key);
  with.set_tls(std::move(tls));
  with.set_authorization("Bearer " + broker_.admin_pak());
  Reply answered = call(with, "GET", "/api/v1/stacks");
  EXPECT_EQ(answered.status, 200) << answered.body;

  // A certificate another CA signed is no better than none.
  Client other(url_);
  Client::TlsSettings server_as_client;
  server_as_client.ca_pem = TestCertificates::read(certificates_.ca.cert);
  server_as_client.client_certificate_pem = TestCertificates::read(certificates_.self_signed.cert);
  server_as_client.client_key_pem = TestCertificates::read(certificates_.self_signed.key);
  other.set_tls(std::move(server_as_client));
  EXPECT_FALSE(other.request("GET", "/healthz").ok());
}

TEST_F(TlsBroker, PlainHttpToTheTlsPortGetsAPlainAnswerSayingSo) {
  start();
  RawConnection connection(broker_.port());
  ASSERT_TRUE(connection.connected());
  connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  const std::string answer = connection.read_all();
  EXPECT_EQ(answer.rfind("HTTP/1.1 400 ", 0), 0u) << answer;
  EXPECT_NE(answer.find("HTTPS"), std::string::npos) << answer;
  EXPECT_TRUE(connection.closed_without_answer());  // closed, not left to time out

  // The CLI given an http:// URL shows that answer.
  Outcome plain =
      sindri({"stack", "list", "--broker", "http://127.0.0.1:" + std::to_string(broker_.port()), "--pak", "x"});
  EXPECT_EQ(plain.exit_code, 1);
  EXPECT_NE(plain.err.find("HTTPS"), std::string::npos) << plain.err;
}

TEST_F(TlsBroker, AServeWithABadCertificateFileSaysWhichAndDoesNotStart) {
  const fs::path text = dir_ / "not.pem";
  std::ofstream(text) << "not a certificate\n";
  bool listened = true;
  try {
    broker_.start({"--tls-cert-file", text.string(), "--tls-key-file", key_file_.string()});
  } catch (const std::runtime_error&) {
    listened = false;
  }
  if (listened) {
    EXPECT_NE(broker_.wait_for_exit(10s).value_or(0), 0) << broker_.log();
  }
  EXPECT_NE(broker_.log().find("tls.cert_file " + text.string() + ": no PEM certificate in it"), std::string::npos)
      << broker_.log();
}

}  // namespace
}  // namespace sindri_test
