// The agent's periodic tasks against a broker that lacks their endpoints
// (Brokkr's before they existed: 404 everywhere), one that fails (503) and
// one that refuses the PAK (401): a missing endpoint is logged once and is
// no error; the others are handed back for the loop to count.

#include "agent/tasks.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "http/server.hpp"

namespace sindri::agent {
namespace {

// A broker stand-in answering every request with one status, recording the paths asked.
class FixedAnswerBroker {
 public:
  explicit FixedAnswerBroker(int status)
      : server_(
            http::ServerOptions{},
            [this, status](http::Request& request) {
              std::lock_guard lock(mutex_);
              paths_.push_back(request.method + " " + request.path);
              http::Response response;
              response.status = status;
              response.body = R"({"message":"answered )" + std::to_string(status) + R"("})";
              return response;
            },
            [](int status, std::string_view, std::string_view message) {
              http::Response response;
              response.status = status;
              response.body = std::string(message);
              return response;
            }) {
    EXPECT_TRUE(server_.start().ok());
  }
  ~FixedAnswerBroker() { server_.stop(); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(server_.port()); }
  std::vector<std::string> paths() {
    std::lock_guard lock(mutex_);
    return paths_;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> paths_;
  http::Server server_;
};

SinkHooks every_hook() {
  SinkHooks hooks;
  hooks.deployment_health = [](const std::vector<std::string>&) { return Value(Array{}); };
  hooks.collect_diagnostics = [](const std::string&, const std::string&) { return Value(Object{}); };
  hooks.run_work_order = [](const Value&, const std::atomic<bool>&) { return TaskOutcome{true, "done", false}; };
  return hooks;
}

AgentSettings settings_for(const std::string& url) {
  AgentSettings settings;
  settings.broker_url = url;
  settings.pak = "agent-pak";
  settings.broker_timeout = 2;
  return settings;
}

TEST(Tasks, AMissingEndpointIsLoggedOnceAndIsNoError) {
  FixedAnswerBroker broker(404);
  BrokerApi api(settings_for(broker.url()));
  const SinkHooks hooks = every_hook();
  std::vector<std::string> logged;
  Tasks tasks(api, hooks, "agent-1", [&](const std::string& line) { logged.push_back(line); });
  std::atomic<bool> stopping{false};
  for (int round = 0; round < 2; ++round) {
    EXPECT_FALSE(tasks.report_health({"object-1"}));
    EXPECT_FALSE(tasks.diagnostics(stopping));
    EXPECT_FALSE(tasks.work_order(stopping));
    EXPECT_FALSE(tasks.webhooks());
  }
  ASSERT_EQ(logged.size(), 4u);
  EXPECT_NE(logged[0].find("the broker has no health-status endpoint"), std::string::npos) << logged[0];
  EXPECT_NE(logged[1].find("no diagnostics endpoint"), std::string::npos) << logged[1];
  EXPECT_NE(logged[2].find("no work-orders endpoint"), std::string::npos) << logged[2];
  EXPECT_NE(logged[3].find("no webhooks/pending endpoint"), std::string::npos) << logged[3];
  // Each round asked each endpoint again (a broker may gain them by an upgrade).
  EXPECT_EQ(broker.paths().size(), 8u);
  EXPECT_EQ(broker.paths()[0], "PATCH /api/v1/agents/agent-1/health-status");
  EXPECT_EQ(broker.paths()[1], "GET /api/v1/agents/agent-1/diagnostics/pending");
  EXPECT_EQ(broker.paths()[2], "GET /api/v1/agents/agent-1/work-orders/pending");
  EXPECT_EQ(broker.paths()[3], "GET /api/v1/agents/agent-1/webhooks/pending");
}

TEST(Tasks, AFailingOrRefusingBrokerIsHandedBack) {
  for (const int status : {503, 401}) {
    FixedAnswerBroker broker(status);
    BrokerApi api(settings_for(broker.url()));
    const SinkHooks hooks = every_hook();
    Tasks tasks(api, hooks, "agent-1", [](const std::string&) {});
    std::atomic<bool> stopping{false};
    for (const std::optional<BrokerError>& error : {tasks.report_health({"object-1"}), tasks.diagnostics(stopping),
                                                    tasks.work_order(stopping), tasks.webhooks()}) {
      ASSERT_TRUE(error.has_value()) << status;
      EXPECT_EQ(error->status, status);
      EXPECT_EQ(error->refused(), status == 401);
      EXPECT_NE(error->message.find("HTTP " + std::to_string(status) + ": answered"), std::string::npos)
          << error->message;
    }
  }
}

TEST(Tasks, NothingIsAskedForAHookTheSinkLacks) {
  FixedAnswerBroker broker(404);
  BrokerApi api(settings_for(broker.url()));
  const SinkHooks none;  // the directory sink's
  Tasks tasks(api, none, "agent-1", [](const std::string&) {});
  std::atomic<bool> stopping{false};
  EXPECT_FALSE(tasks.report_health({"object-1"}));
  EXPECT_FALSE(tasks.diagnostics(stopping));
  EXPECT_FALSE(tasks.work_order(stopping));
  EXPECT_TRUE(broker.paths().empty());
}

}  // namespace
}  // namespace sindri::agent
