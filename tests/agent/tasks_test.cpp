// The agent's periodic tasks against a broker that lacks their endpoints
// (Brokkr's before they existed: 404 everywhere), one that fails (503) and
// one that refuses the PAK (401): a missing endpoint is logged once and is
// no error; the others are handed back for the loop to count.

#include "agent/tasks.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>

#include "http/server.hpp"
#include "value/json.hpp"
#include "value/object_literal.hpp"

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

// A broker stand-in answering from a table of "METHOD /path" -> (status,
// body), 200 {} for the rest, recording each request with its body.
class TableBroker {
 public:
  explicit TableBroker(std::map<std::string, std::pair<int, std::string>> answers)
      : answers_(std::move(answers)),
        server_(
            http::ServerOptions{},
            [this](http::Request& request) {
              const std::string key = request.method + " " + request.path;
              std::lock_guard lock(mutex_);
              requests_.emplace_back(key, request.body);
              http::Response response;
              const auto answer = answers_.find(key);
              response.status = answer == answers_.end() ? 200 : answer->second.first;
              response.body = answer == answers_.end() ? "{}" : answer->second.second;
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
  ~TableBroker() { server_.stop(); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(server_.port()); }
  std::vector<std::pair<std::string, std::string>> requests() {
    std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  const std::map<std::string, std::pair<int, std::string>> answers_;
  std::mutex mutex_;
  std::vector<std::pair<std::string, std::string>> requests_;
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

TEST(BrokerApi, ReadinessIsTheStatusAloneAsBrokkrsBrokerAnswersIt) {
  TableBroker brokkr({{"GET /readyz", {200, "Ready"}}});
  BrokerApi ready_broker(settings_for(brokkr.url()));
  EXPECT_TRUE(ready_broker.ready().ok());
  TableBroker starting({{"GET /readyz", {503, "Not Ready"}}});
  BrokerApi starting_broker(settings_for(starting.url()));
  auto refused = starting_broker.ready();
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().status, 503);
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

// A claimed diagnostic request whose deployment object the broker does not
// hand over still gets a result (Brokkr's error form), and the next request
// is served as usual.
TEST(Tasks, AClaimedDiagnosticWithoutItsObjectGetsAnErrorResultAndTheNextGoesOn) {
  TableBroker broker({
      {"GET /api/v1/agents/agent-1/diagnostics/pending",
       {200, R"([{"id":"d1","deployment_object_id":"o1"},{"id":"d2","deployment_object_id":"o2"}])"}},
      {"GET /api/v1/deployment-objects/o1", {500, R"({"message":"database gone"})"}},
      {"GET /api/v1/deployment-objects/o2", {200, R"({"id":"o2","yaml_content":"kind: ConfigMap\n"})"}},
  });
  BrokerApi api(settings_for(broker.url()));
  SinkHooks hooks;
  hooks.collect_diagnostics = [](const std::string& id, const std::string& yaml) {
    return make_object({{"collected_for", Value(id + " " + yaml)}});
  };
  Tasks tasks(api, hooks, "agent-1", [](const std::string&) {});
  std::atomic<bool> stopping{false};
  EXPECT_FALSE(tasks.diagnostics(stopping));

  std::vector<std::string> asked;
  for (const auto& [request, body] : broker.requests()) asked.push_back(request);
  EXPECT_EQ(asked, (std::vector<std::string>{
                       "GET /api/v1/agents/agent-1/diagnostics/pending",
                       "POST /api/v1/diagnostics/d1/claim",
                       "GET /api/v1/deployment-objects/o1",
                       "POST /api/v1/diagnostics/d1/result",
                       "POST /api/v1/diagnostics/d2/claim",
                       "GET /api/v1/deployment-objects/o2",
                       "POST /api/v1/diagnostics/d2/result",
                   }));
  const auto requests = broker.requests();
  ASSERT_EQ(requests.size(), 7u);
  auto error_result = parse_json(requests[3].second);
  ASSERT_TRUE(error_result.ok()) << requests[3].second;
  EXPECT_EQ(error_result->find("pod_statuses")->get_string(), "[]");
  auto events = parse_json(error_result->find("events")->get_string());
  ASSERT_TRUE(events.ok() && events->is_array() && events->size() == 1) << requests[3].second;
  const std::string error = std::string(events->at(0)->find("error")->get_string());
  EXPECT_NE(error.find("database gone"), std::string::npos) << error;
  EXPECT_TRUE(error_result->find("log_tails")->is_null());
  EXPECT_FALSE(error_result->find("collected_at")->get_string().empty());
  auto collected = parse_json(requests[6].second);
  ASSERT_TRUE(collected.ok()) << requests[6].second;
  EXPECT_EQ(collected->find("collected_for")->get_string(), "o2 kind: ConfigMap\n");
}

}  // namespace
}  // namespace sindri::agent
