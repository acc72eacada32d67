// Two brokers on one PostgreSQL behind Debian's nginx, round robin and no
// sticky sessions, and a real `sindri agent run` polling once an hour that
// reaches them through it: a change made through either broker is applied
// at once (pushed across brokers), and when the broker holding the agent's
// socket is killed the agent reconnects through the balancer to the other
// and misses nothing.

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "agent/agent_process.hpp"

extern char** environ;

namespace sindri_test {
namespace {

using sindri::Value;

// nginx proxying HTTP and WebSockets to `ports` in turn, as a load balancer
// in front of brokers would.
class Balancer {
 public:
  Balancer(const fs::path& dir, const std::vector<uint16_t>& ports) : dir_(dir), port_(free_port()) {
    fs::create_directories(dir_ / "temp");
    std::string upstreams;
    for (uint16_t port : ports) upstreams += "    server 127.0.0.1:" + std::to_string(port) + " max_fails=1 fail_timeout=30s;\n";
    std::ofstream(dir_ / "nginx.conf")
        << "daemon off;\nworker_processes 1;\npid " << (dir_ / "nginx.pid").string() << ";\nerror_log "
        << (dir_ / "error.log").string() << ";\n"
        << (::getuid() == 0 ? "user root;\n" : "") << "events { worker_connections 256; }\nhttp {\n  access_log off;\n"
        << "  client_body_temp_path " << (dir_ / "temp").string() << ";\n  proxy_temp_path " << (dir_ / "temp").string()
        << ";\n  fastcgi_temp_path " << (dir_ / "temp").string() << ";\n  uwsgi_temp_path " << (dir_ / "temp").string()
        << ";\n  scgi_temp_path " << (dir_ / "temp").string() << ";\n"
        << "  upstream brokers {\n" << upstreams << "  }\n"
        << "  map $http_upgrade $connection_upgrade { default upgrade; '' ''; }\n"
        << "  server {\n    listen 127.0.0.1:" << port_ << ";\n    location / {\n"
        << "      proxy_pass http://brokers;\n      proxy_http_version 1.1;\n"
        << "      proxy_set_header Upgrade $http_upgrade;\n      proxy_set_header Connection $connection_upgrade;\n"
        << "      proxy_set_header Host $host;\n      proxy_read_timeout 1h;\n      proxy_connect_timeout 1s;\n"
        << "    }\n  }\n}\n";
    std::vector<std::string> argv = {"nginx", "-p", dir_.string(), "-c", (dir_ / "nginx.conf").string(),
                                     "-e", (dir_ / "error.log").string()};
    std::vector<char*> raw;
    for (auto& arg : argv) raw.push_back(arg.data());
    raw.push_back(nullptr);
    if (posix_spawnp(&pid_, "nginx", nullptr, nullptr, raw.data(), environ) != 0) pid_ = -1;
  }
  ~Balancer() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
  }
  Balancer(const Balancer&) = delete;
  Balancer& operator=(const Balancer&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string log() const { return slurp(dir_ / "error.log"); }

 private:
  fs::path dir_;
  uint16_t port_;
  pid_t pid_ = -1;
};

class BehindABalancer : public ::testing::Test {
 protected:
  void SetUp() override {
    brokers_.push_back(std::make_unique<BrokerProcess>(Backend::Postgres));
    if (!brokers_[0]->usable()) GTEST_FAIL() << "no PostgreSQL for this test";
    brokers_[0]->start({"--peer-change-delay-ms", "0"});
    brokers_.push_back(std::make_unique<BrokerProcess>(*brokers_[0], BrokerProcess::SharedDatabase{}));
    brokers_[1]->start({"--peer-change-delay-ms", "0"});
    balancer_ = std::make_unique<Balancer>(brokers_[0]->dir() / "nginx",
                                           std::vector<uint16_t>{brokers_[0]->port(), brokers_[1]->port()});
    // Each reads every second whether another broker shares the database.
    for (auto& broker : brokers_) {
      ASSERT_TRUE(eventually([&] {
        return call(*broker->client(""), "GET", "/metrics").body.find("\nsindri_notices_other_brokers 1") !=
               std::string::npos;
      }));
    }
    auto probe = std::make_unique<sindri::http::Client>(balancer_->url());
    ASSERT_TRUE(eventually([&] {
      auto reply = probe->request("GET", "/healthz", "", "");
      return reply.ok() && reply->status == 200;
    })) << balancer_->log();

    admin_ = brokers_[0]->client(brokers_[0]->admin_pak());
    Reply generator = call(*admin_, "POST", "/api/v1/generators", R"({"name":"ci"})");
    ASSERT_EQ(generator.status, 201) << generator.body;
    const std::string generator_id = text_of(*generator.json.find("generator"), "id");
    Reply stack = call(*admin_, "POST", "/api/v1/stacks", R"({"name":"web","generator_id":")" + generator_id + "\"}");
    ASSERT_EQ(stack.status, 201) << stack.body;
    stack_id_ = text_of(stack.json, "id");
    Reply agent = call(*admin_, "POST", "/api/v1/agents", R"({"name":"edge","cluster_name":"c"})");
    ASSERT_EQ(agent.status, 201) << agent.body;
    agent_id_ = text_of(*agent.json.find("agent"), "id");
    ASSERT_EQ(call(*admin_, "POST", "/api/v1/agents/" + agent_id_ + "/targets", R"({"stack_id":")" + stack_id_ + "\"}")
                  .status,
              201);
    pak_file_ = brokers_[0]->dir() / "agent.pak";
    std::ofstream(pak_file_) << text_of(agent.json, "initial_pak") << "\n";
    sink_ = brokers_[0]->dir() / "sink";
  }

  // Polling once an hour: only a push, or the poll each reconnection makes,
  // brings a change within the test's time.
  std::unique_ptr<AgentProcess> start_agent() {
    return std::make_unique<AgentProcess>(
        std::vector<std::string>{"--broker-url", balancer_->url(), "--pak-file", pak_file_.string(), "--agent-name",
                                 "edge", "--cluster-name", "c", "--sink", "dir:" + sink_.string(), "--health-port",
                                 "0", "--polling-interval", "3600", "--task-interval", "3600",
                                 "--startup-retry-interval", "0.05", "--broker-backoff-initial", "0.05",
                                 "--broker-backoff-max", "0.2", "--broker-timeout", "2", "--max-retries", "100"},
        brokers_[0]->dir() / "agent.log");
  }

  // The broker the agent's socket is open to; -1 for none.
  int socket_holder() {
    for (size_t i = 0; i < brokers_.size(); ++i) {
      if (!alive_[i]) continue;
      Reply connections = call(*brokers_[i]->client(brokers_[0]->admin_pak()), "GET", "/api/v1/admin/ws/connections");
      const Value* count = connections.json.is_object() ? connections.json.find("connected_agents") : nullptr;
      if (count != nullptr && count->get_int() == 1) return static_cast<int>(i);
    }
    return -1;
  }

  void deploy_through(BrokerProcess& broker, const std::string& value) {
    Reply object = call(*broker.client(brokers_[0]->admin_pak()), "POST",
                        "/api/v1/stacks/" + stack_id_ + "/deployment-objects",
                        R"({"yaml_content":"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  v: \")" +
                            value + R"(\"\n"})");
    ASSERT_EQ(object.status, 201) << object.body;
  }
  bool applied(const std::string& value) const {
    return slurp(sink_ / stack_id_ / "core_ConfigMap_default_settings.yaml").find("v: \"" + value + "\"") !=
           std::string::npos;
  }

  std::vector<std::unique_ptr<BrokerProcess>> brokers_;
  std::vector<bool> alive_ = {true, true};
  std::unique_ptr<Balancer> balancer_;
  std::unique_ptr<sindri::http::Client> admin_;
  std::string stack_id_, agent_id_;
  fs::path pak_file_, sink_;
};

TEST_F(BehindABalancer, AKilledBrokersAgentReconnectsToTheOtherAndMissesNothing) {
  deploy_through(*brokers_[0], "1");
  auto agent = start_agent();
  ASSERT_TRUE(eventually([&] { return applied("1") && socket_holder() >= 0; })) << agent->log() << balancer_->log();
  const int holder = socket_holder();
  const int other = 1 - holder;

  // Made through the broker that does not hold the socket: pushed across.
  deploy_through(*brokers_[other], "2");
  ASSERT_TRUE(eventually([&] { return applied("2"); })) << agent->log();

  // The holder dies; a change lands before the agent is back.
  brokers_[holder]->send_signal(SIGKILL);
  brokers_[holder]->wait_for_exit(std::chrono::seconds(10));
  alive_[holder] = false;
  deploy_through(*brokers_[other], "3");
  ASSERT_TRUE(eventually([&] { return socket_holder() == other; })) << agent->log() << balancer_->log();
  ASSERT_TRUE(eventually([&] { return applied("3"); })) << agent->log();

  // And the survivor pushes what comes next.
  deploy_through(*brokers_[other], "4");
  EXPECT_TRUE(eventually([&] { return applied("4"); })) << agent->log();
}

}  // namespace
}  // namespace sindri_test
