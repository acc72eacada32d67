// `sindri serve` as a process: its settings reach it from a configuration
// file, from SINDRI_* variables and from flags, each overriding the one
// before, and it logs one JSON object per line.

#include <sys/resource.h>
#include <sys/wait.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "broker_process.hpp"
#include "render_fixture.hpp"
#include "support/raw_connection.hpp"
#include "support/test_certificates.hpp"

namespace sindri_test {
namespace {

using sindri::Value;

// A new generator's body padded with whitespace to `size` bytes: valid JSON
// whose size alone decides whether it fits under the body limit.
std::string generator_body(size_t size) {
  static int count = 0;
  std::string body = R"({"name":"g)" + std::to_string(++count) + R"("})";
  if (body.size() < size) body.append(size - body.size(), ' ');
  return body;
}

int post_status(const BrokerProcess& broker, size_t size) {
  auto admin = broker.client(broker.admin_pak());
  return call(*admin, "POST", "/api/v1/generators", generator_body(size)).status;
}

TEST(Serve, TheFileThenTheEnvironmentThenFlagsSetTheBodyLimit) {
  BrokerProcess broker(Backend::Sqlite);
  const fs::path config = broker.dir() / "sindri.yaml";
  std::ofstream(config) << "body_limit: 2048\nlog:\n  level: warn\n";

  broker.start({"--config", config.string()});
  EXPECT_EQ(post_status(broker, 2000), 201);
  EXPECT_EQ(post_status(broker, 3000), 413);
  broker.stop();

  // SINDRI_CONFIG_FILE names the file too; a variable overrides the file.
  broker.start({}, {"SINDRI_CONFIG_FILE=" + config.string(), "SINDRI_BODY_LIMIT=4096"});
  EXPECT_EQ(post_status(broker, 3000), 201);
  EXPECT_EQ(post_status(broker, 5000), 413);
  broker.stop();

  // A flag overrides both.
  broker.start({"--body-limit", "8192"}, {"SINDRI_CONFIG_FILE=" + config.string(), "SINDRI_BODY_LIMIT=4096"});
  EXPECT_EQ(post_status(broker, 5000), 201);
  EXPECT_EQ(post_status(broker, 9000), 413);
  EXPECT_EQ(broker.stop(), 0);
}

// 0 means none: larger than the default limit of 10 MiB is taken.
TEST(Serve, ABodyLimitOfZeroIsNoLimit) {
  BrokerProcess broker(Backend::Sqlite);
  broker.start({"--body-limit", "0"});
  EXPECT_EQ(post_status(broker, 11 << 20), 201);
  EXPECT_EQ(broker.stop(), 0);
}

TEST(Serve, ABadSettingStopsTheStartNamingIt) {
  BrokerProcess broker(Backend::Sqlite);
  EXPECT_THROW(broker.start({}, {"SINDRI_BODY_LIMIT=lots"}), std::runtime_error);
  EXPECT_NE(broker.log().find("SINDRI_BODY_LIMIT"), std::string::npos) << broker.log();
}

TEST(Serve, LogsAreOneJsonObjectPerLineAndSayWhereTheAdminPakIs) {
  BrokerProcess broker(Backend::Sqlite);
  broker.start({"--log-level", "info"});
  EXPECT_EQ(post_status(broker, 100), 201);
  EXPECT_EQ(broker.stop(), 0);

  std::istringstream lines(broker.log());
  std::string line;
  bool told_where = false;
  size_t count = 0;
  while (std::getline(lines, line)) {
    ++count;
    auto parsed = sindri::parse_json(line);
    ASSERT_TRUE(parsed.ok()) << "not JSON: " << line;
    ASSERT_TRUE(parsed->is_object()) << line;
    EXPECT_FALSE(text_of(*parsed, "time").empty()) << line;
    EXPECT_FALSE(text_of(*parsed, "level").empty()) << line;
    EXPECT_FALSE(text_of(*parsed, "message").empty()) << line;
    if (text_of(*parsed, "admin_pak_file") == (broker.dir() / "admin.pak").string()) told_where = true;
  }
  EXPECT_GT(count, 1u);
  EXPECT_TRUE(told_where) << broker.log();
}

// What the server refuses before the broker sees it is counted too, and
// latency is kept per route, method and status.
TEST(Serve, MetricsCountWhatTheServerRejects) {
  BrokerProcess broker(Backend::Sqlite);
  broker.start({"--body-limit", "1024"});
  EXPECT_EQ(post_status(broker, 2000), 413);
  EXPECT_EQ(post_status(broker, 100), 201);
  RawConnection garbled(broker.port());
  garbled.send("NOT HTTP AT ALL\r\n\r\n");
  EXPECT_NE(garbled.read_all().find("HTTP/1.1 400"), std::string::npos);
  // Any token is a method to HTTP; the server answers one it does not
  // implement 501 itself, and metrics keep one series for them all.
  for (const char* method : {"BREW", "WHEN"}) {
    RawConnection odd(broker.port());
    odd.send(std::string(method) + " /api/v1/generators HTTP/1.1\r\nHost: b\r\nConnection: close\r\n\r\n");
    EXPECT_NE(odd.read_all().find("HTTP/1.1 501"), std::string::npos);
  }

  auto anonymous = broker.client("");
  const Reply metrics = call(*anonymous, "GET", "/metrics");
  ASSERT_EQ(metrics.status, 200);
  for (const std::string line :
       {R"(sindri_http_requests_total{route="rejected",method="POST",status="413"} 1)",
        R"(sindri_http_requests_total{route="rejected",method="unknown",status="400"} 1)",
        R"(sindri_http_request_duration_seconds_count{route="rejected",method="POST",status="413"} 1)",
        R"(sindri_http_requests_total{route="rejected",method="other",status="501"} 2)",
        R"(sindri_http_requests_total{route="/api/v1/generators",method="POST",status="201"} 1)",
        R"(sindri_http_request_duration_seconds_count{route="/api/v1/generators",method="POST",status="201"} 1)"}) {
    EXPECT_NE(metrics.body.find("\n" + line + "\n"), std::string::npos) << line << "\n" << metrics.body;
  }
}

// SIGTERM stops accepting and closes idle connections at once, but a request
// that has begun to arrive is read, answered and stored before the broker
// closes the database and exits 0.
TEST(Serve, SigtermAnswersTheRequestInFlightThenExits) {
  BrokerProcess broker(Backend::Sqlite);
  broker.start();
  const std::string admin_pak = broker.admin_pak();
  RawConnection idle(broker.port());
  RawConnection uploading(broker.port());
  ASSERT_TRUE(idle.connected());
  ASSERT_TRUE(uploading.connected());
  const std::string body = R"({"name":"sent-across-the-stop"})";
  uploading.send("POST /api/v1/generators HTTP/1.1\r\nHost: broker\r\nAuthorization: Bearer " + admin_pak +
                 "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                 "\r\n\r\n" + body.substr(0, 10));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));

  int exit_status = -1;
  std::thread stopper([&] { exit_status = broker.stop(); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(idle.read_all(), "");
  uploading.send(body.substr(10));
  const std::string answer = uploading.read_all();
  stopper.join();
  EXPECT_NE(answer.find("HTTP/1.1 201"), std::string::npos) << answer;
  EXPECT_NE(answer.find("Connection: close"), std::string::npos) << answer;
  EXPECT_EQ(exit_status, 0) << broker.log();
  EXPECT_NE(broker.log().find(R"("message":"stopped")"), std::string::npos) << broker.log();

  broker.start();
  auto admin = broker.client(admin_pak);
  const Reply generators = call(*admin, "GET", "/api/v1/generators");
  ASSERT_EQ(generators.status, 200);
  EXPECT_NE(generators.body.find("sent-across-the-stop"), std::string::npos) << generators.body;
}

// Each connection takes a descriptor, and so does each large cached answer:
// the broker raises its soft limit to the hard one.
TEST(Serve, RaisesTheDescriptorLimitToTheHardLimit) {
  rlimit inherited{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &inherited), 0);
  if (inherited.rlim_max <= 256) GTEST_SKIP() << "the hard limit leaves nothing to raise";
  rlimit lowered = inherited;
  lowered.rlim_cur = 256;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &lowered), 0);
  BrokerProcess broker(Backend::Sqlite);
  broker.start();
  setrlimit(RLIMIT_NOFILE, &inherited);

  std::ifstream limits("/proc/" + std::to_string(broker.pid()) + "/limits");
  std::string line;
  while (std::getline(limits, line) && line.rfind("Max open files", 0) != 0) {
  }
  std::istringstream fields(line.substr(std::string_view("Max open files").size()));
  std::string soft, hard;
  fields >> soft >> hard;
  EXPECT_EQ(soft, hard) << line;
  EXPECT_NE(soft, "256") << line;
}

// A request that has begun to arrive and never finishes: what a stop's
// grace waits for.
void begin_a_request_that_never_finishes(RawConnection& connection, const std::string& admin_pak) {
  connection.send("POST /api/v1/generators HTTP/1.1\r\nHost: broker\r\nAuthorization: Bearer " + admin_pak +
                  "\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"name\":");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
}

// The default grace (10 s) would outlast the wait below.
TEST(Serve, TheShutdownGraceBoundsHowLongAStopWaits) {
  BrokerProcess broker(Backend::Sqlite);
  broker.start({"--shutdown-grace", "1"});
  RawConnection stalled(broker.port());
  ASSERT_TRUE(stalled.connected());
  begin_a_request_that_never_finishes(stalled, broker.admin_pak());
  broker.send_signal(SIGTERM);
  const std::optional<int> status = broker.wait_for_exit(std::chrono::seconds(6));
  ASSERT_TRUE(status.has_value()) << "still running 6 s after SIGTERM with a 1 s grace:\n" << broker.log();
  EXPECT_EQ(*status, 0) << broker.log();
  EXPECT_EQ(stalled.read_all(), "");
}

TEST(Serve, ASecondSignalEndsTheGrace) {
  BrokerProcess broker(Backend::Sqlite);
  broker.start({"--shutdown-grace", "60"});
  RawConnection stalled(broker.port());
  ASSERT_TRUE(stalled.connected());
  begin_a_request_that_never_finishes(stalled, broker.admin_pak());
  broker.send_signal(SIGTERM);
  EXPECT_FALSE(broker.wait_for_exit(std::chrono::milliseconds(1500)).has_value())
      << "a stop must wait for a request that has begun to arrive:\n" << broker.log();
  broker.send_signal(SIGINT);
  const std::optional<int> status = broker.wait_for_exit(std::chrono::seconds(6));
  ASSERT_TRUE(status.has_value()) << "still running 6 s after a second signal:\n" << broker.log();
  EXPECT_EQ(*status, 0) << broker.log();
  EXPECT_NE(broker.log().find(R"("message":"second signal: closing every connection now")"), std::string::npos)
      << broker.log();
  EXPECT_NE(broker.log().find(R"("message":"stopped")"), std::string::npos) << broker.log();
}

// `sindri serve` run to its end with the flags given (no --listen added),
// in `dir`: its exit status; its log is dir/serve.log.
int run_serve(const fs::path& dir, const std::vector<std::string>& flags) {
  std::string command = std::string(SINDRI_BIN) + " serve --database sqlite://" + (dir / "sindri.db").string() +
                        " --admin-pak-file " + (dir / "admin.pak").string();
  for (const std::string& flag : flags) command += " '" + flag + "'";
  command += " >" + (dir / "serve.log").string() + " 2>&1 </dev/null";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A port this test holds, as a broker on it would.
class TakenPort {
 public:
  TakenPort() : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    if (::bind(fd_, reinterpret_cast<const sockaddr*>(&address), size) != 0 || ::listen(fd_, 1) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
      ADD_FAILURE() << "cannot take a port";
    }
    port_ = ntohs(address.sin_port);
  }
  ~TakenPort() { ::close(fd_); }
  TakenPort(const TakenPort&) = delete;
  TakenPort& operator=(const TakenPort&) = delete;
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_;
  uint16_t port_ = 0;
};

// The address is taken before the database is created or migrated and
// before the admin PAK is written: a start that cannot listen leaves
// nothing behind for the next to trip on.
TEST(Serve, APortInUseStopsTheStartBeforeTheDatabaseOrTheAdminPak) {
  BrokerProcess broker(Backend::Sqlite);
  TakenPort taken;
  EXPECT_EQ(run_serve(broker.dir(), {"--listen", taken.address()}), 1);
  const std::string log = slurp(broker.dir() / "serve.log");
  EXPECT_NE(log.find(R"("message":"cannot listen")"), std::string::npos) << log;
  EXPECT_NE(log.find(taken.address()), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(broker.dir() / "sindri.db")) << log;
  EXPECT_FALSE(fs::exists(broker.dir() / "admin.pak")) << log;
}

TEST(Serve, AMissingCertificateStopsTheStartNamingTheFile) {
  BrokerProcess broker(Backend::Sqlite);
  const std::string missing = (broker.dir() / "no-such.crt").string();
  EXPECT_EQ(run_serve(broker.dir(), {"--listen", "127.0.0.1:0", "--tls-cert-file", missing, "--tls-key-file",
                                     (broker.dir() / "no-such.key").string()}),
            1);
  const std::string log = slurp(broker.dir() / "serve.log");
  EXPECT_NE(log.find(R"("message":"cannot load the TLS certificate")"), std::string::npos) << log;
  EXPECT_NE(log.find(missing), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(broker.dir() / "sindri.db")) << log;
  EXPECT_FALSE(fs::exists(broker.dir() / "admin.pak")) << log;

  // Half a certificate is a setting's mistake: exit 2 before anything.
  EXPECT_EQ(run_serve(broker.dir(), {"--listen", "127.0.0.1:0", "--tls-cert-file", missing}), 2);
  EXPECT_NE(slurp(broker.dir() / "serve.log").find("tls.key_file"), std::string::npos);
}

// A connection that never finishes its headers is closed at the header
// deadline; /metrics counts it by reason and the log says so, once.
TEST(Serve, RefusedConnectionsShowInMetricsAndTheLog) {
  BrokerProcess broker(Backend::Sqlite);
  broker.start({"--http-header-timeout", "0.2"});
  RawConnection trickling(broker.port());
  ASSERT_TRUE(trickling.connected());
  trickling.send("GET /healthz HTTP/1.1\r\n");
  trickling.read_all();  // until the server closes it

  auto anonymous = broker.client("");
  const Reply metrics = call(*anonymous, "GET", "/metrics");
  ASSERT_EQ(metrics.status, 200);
  for (const std::string line : {"# TYPE sindri_http_connections_refused_total counter",
                                 R"(sindri_http_connections_refused_total{reason="header_timeout"} 1)",
                                 R"(sindri_http_connections_refused_total{reason="connection_limit"} 0)",
                                 R"(sindri_http_connections_refused_total{reason="unfinished_limit"} 0)",
                                 R"(sindri_http_connections_refused_total{reason="body_too_slow"} 0)",
                                 R"(sindri_http_connections_refused_total{reason="tls_handshake"} 0)"}) {
    EXPECT_NE(metrics.body.find("\n" + line + "\n"), std::string::npos) << line << "\n" << metrics.body;
  }
  EXPECT_EQ(broker.stop(), 0);
  const std::string log = broker.log();
  EXPECT_NE(log.find(R"("message":"connections refused","reason":"header_timeout",)"
                     R"("since_last_line":{"header_timeout":1})"),
            std::string::npos)
      << log;
  // Listening on loopback, without TLS, is no warning.
  EXPECT_EQ(log.find("without TLS"), std::string::npos) << log;
}

// Replaces `to` at once, as cert-manager's volume does.
void install_text(const std::string& text, const fs::path& to) {
  const fs::path aside = to.string() + ".new";
  std::ofstream(aside, std::ios::binary) << text;
  fs::rename(aside, to);
}

// Opens connections, each taking the TLS context and so looking whether the
// files changed, until the log holds `line` (a few seconds at most).
bool logged_after_new_connections(const BrokerProcess& broker, const std::string& line) {
  for (int attempt = 0; attempt < 250; ++attempt) {
    if (broker.log().find(line) != std::string::npos) return true;
    RawConnection touch(broker.port());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

TEST(Serve, EachCertificateRotationIsLoggedAFailedOneAsAWarning) {
  TestCertificates certificates;
  BrokerProcess broker(Backend::Sqlite);
  const fs::path cert_file = broker.dir() / "tls.crt", key_file = broker.dir() / "tls.key";
  fs::copy_file(certificates.server.cert, cert_file);
  fs::copy_file(certificates.server.key, key_file);
  broker.start({"--tls-cert-file", cert_file.string(), "--tls-key-file", key_file.string(),
                "--tls-reload-check-interval", "0.01"});
  EXPECT_NE(broker.log().find(R"("tls":true)"), std::string::npos) << broker.log();

  install_text("not a certificate\n", cert_file);
  EXPECT_TRUE(logged_after_new_connections(
      broker, R"("level":"warn","message":"tls certificate not reloaded: the files in use stay")"))
      << broker.log();

  install_text(TestCertificates::read(certificates.second_server.key), key_file);
  install_text(TestCertificates::read(certificates.second_server.cert), cert_file);
  EXPECT_TRUE(logged_after_new_connections(broker, R"("level":"info","message":"tls certificate reloaded")"))
      << broker.log();
  EXPECT_EQ(broker.stop(), 0);
}

// Ten billion steps: with render.max_steps and render.max_duration at 0,
// a render that would run for hours.
constexpr std::string_view kEndlessTemplate =
    R"({% for i in range(end=100000) %}{% for j in range(end=100000) %}{% endfor %}{% endfor %}done)";

int64_t renders_running(sindri::http::Client& client) {
  const Reply metrics = call(client, "GET", "/metrics");
  const std::string name = "\nsindri_renders_running ";
  const size_t at = metrics.body.find(name);
  return at == std::string::npos ? -1 : std::stoll(metrics.body.substr(at + name.size()));
}

// A dry run of the endless template, answered (or cut off) on its own thread
// once it runs.
struct EndlessRender {
  explicit EndlessRender(RenderBroker& broker) {
    RenderGenerator owner = broker.make_generator("endless");
    const std::string template_id = broker.make_template(owner, "endless", kEndlessTemplate);
    caller = std::thread([&broker, pak = owner.pak, template_id, this] {
      auto client = broker.process().client(pak);
      auto response = client->request("POST", "/api/v1/templates/" + template_id + "/render",
                                      R"({"parameters": {}})", "application/json");
      if (response.ok()) status = response->status;
    });
    auto watcher = broker.process().client("");
    for (int wait = 0; wait < 500 && renders_running(*watcher) < 1; ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    started = renders_running(*watcher) == 1;
  }
  ~EndlessRender() { caller.join(); }

  std::thread caller;
  std::atomic<int> status{0};
  bool started = false;
};

// A stop lets renders finish within its grace; a second signal cancels them,
// so that a render without limits never holds the stop without bound.
TEST(Serve, ASecondSignalCancelsARenderThatWouldNeverEnd) {
  RenderBroker broker({"--render-max-steps", "0", "--render-max-duration", "0", "--shutdown-grace", "3600"});
  EndlessRender render(broker);
  ASSERT_TRUE(render.started) << broker.process().log();

  broker.process().send_signal(SIGTERM);
  EXPECT_EQ(broker.process().wait_for_exit(std::chrono::milliseconds(200)), std::nullopt)
      << "the first signal's grace lets the render run";
  broker.process().send_signal(SIGTERM);
  EXPECT_EQ(broker.process().wait_for_exit(std::chrono::seconds(60)), 0) << broker.process().log();
  const std::string log = broker.process().log();
  EXPECT_NE(log.find(R"("message":"second signal: closing every connection now")"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find(R"("message":"cancelling the renders still running","renders":1)"), std::string::npos) << log;
  EXPECT_NE(render.status.load(), 200);
}

// Past the grace (0 here), the stop cancels the renders without a second
// signal.
TEST(Serve, TheStopCancelsRendersOnceItsGraceIsOver) {
  RenderBroker broker({"--render-max-steps", "0", "--render-max-duration", "0", "--shutdown-grace", "0"});
  EndlessRender render(broker);
  ASSERT_TRUE(render.started) << broker.process().log();
  broker.process().send_signal(SIGTERM);
  EXPECT_EQ(broker.process().wait_for_exit(std::chrono::seconds(60)), 0) << broker.process().log();
  EXPECT_NE(broker.process().log().find(R"("message":"cancelling the renders still running")"), std::string::npos)
      << broker.process().log();
}

// The start logs the connection caps in effect, and the new limits are
// taken as settings.
TEST(Serve, TheConnectionCapsInEffectAreLogged) {
  BrokerProcess broker(Backend::Sqlite);
  broker.start({"--http-max-connections", "100", "--http-max-connections-per-identity", "3",
                "--http-idle-timeout", "0.5"});
  auto anonymous = broker.client("");
  EXPECT_EQ(call(*anonymous, "GET", "/healthz").status, 200);
  EXPECT_EQ(broker.stop(), 0);
  const std::string log = broker.log();
  EXPECT_NE(log.find(R"("message":"connection caps","max_connections":100,"max_connections_setting":100,)"
                     R"("max_unfinished_connections":1000,"max_connections_per_identity":3})"),
            std::string::npos)
      << log;
}

// Ten million connections are more than the open-file limit leaves: the
// start says the cap was lowered, and to what.
TEST(Serve, AConnectionCapAboveTheOpenFileLimitIsLoweredWithAWarning) {
  BrokerProcess broker(Backend::Sqlite);
  broker.start({"--http-max-connections", "10000000000"});
  EXPECT_EQ(broker.stop(), 0);
  const std::string log = broker.log();
  EXPECT_NE(log.find(R"("level":"warn","message":"http.max_connections lowered to what the open-file limit leaves")"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find(R"("max_connections_setting":10000000000)"), std::string::npos) << log;
}

}  // namespace
}  // namespace sindri_test
