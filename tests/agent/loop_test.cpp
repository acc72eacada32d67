// The agent's loop in-process (run_agent on a thread, the directory sink),
// against a real `sindri serve`, so that a sanitizer build checks the loop,
// the broker calls and the health server themselves. The broker program is
// the one SINDRI_AGENT_TEST_SINDRI names (a sanitizer build points it at an
// ordinary build's `sindri`), else this build's when it was built; without
// either the tests are skipped.

#include <cstdlib>
#include <filesystem>
#include <string>

namespace sindri_test {
inline const char* sindri_program() {
  static const std::string program = [] {
    if (const char* named = std::getenv("SINDRI_AGENT_TEST_SINDRI")) return std::string(named);
    return std::filesystem::exists(SINDRI_BUILD_SINDRI) ? std::string(SINDRI_BUILD_SINDRI) : std::string();
  }();
  return program.c_str();
}
}  // namespace sindri_test

// broker_process.hpp starts SINDRI_BIN.
#define SINDRI_BIN sindri_test::sindri_program()

#include <atomic>
#include <fstream>
#include <mutex>
#include <thread>

#include "agent/agent.hpp"
#include "agent/dir_sink.hpp"
#include "broker/broker_process.hpp"

namespace sindri_test {
namespace {

using sindri::Value;
using namespace sindri::agent;

bool eventually(const std::function<bool()>& condition) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return condition();
}

class AgentLoop : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(SINDRI_BIN).empty()) GTEST_SKIP() << "no sindri program: build it or set SINDRI_AGENT_TEST_SINDRI";
    broker_ = std::make_unique<BrokerProcess>(Backend::Sqlite);
    broker_->start();
    admin_ = broker_->client(broker_->admin_pak());
    Reply generator = call(*admin_, "POST", "/api/v1/generators", R"({"name":"ci"})");
    const std::string generator_id = text_of(*generator.json.find("generator"), "id");
    Reply stack = call(*admin_, "POST", "/api/v1/stacks", R"({"name":"web","generator_id":")" + generator_id + R"("})");
    stack_id_ = text_of(stack.json, "id");
    ASSERT_EQ(call(*admin_, "POST", "/api/v1/stacks/" + stack_id_ + "/labels", R"("env=prod")").status, 201);
    Reply agent = call(*admin_, "POST", "/api/v1/agents", R"({"name":"a1","cluster_name":"c1"})");
    agent_id_ = text_of(*agent.json.find("agent"), "id");
    ASSERT_EQ(call(*admin_, "POST", "/api/v1/agents/" + agent_id_ + "/labels",
                   R"({"agent_id":")" + agent_id_ + R"(","label":"env=prod"})")
                  .status,
              201);
    run_.settings.broker_url = broker_->url();
    run_.settings.pak = text_of(agent.json, "initial_pak");
    run_.settings.agent_name = "a1";
    run_.settings.cluster_name = "c1";
    run_.settings.health_port = 0;
    run_.settings.polling_interval = 0.05;
    run_.settings.task_interval = 0.05;
    run_.settings.broker_backoff_initial = 0.02;
    run_.settings.broker_backoff_max = 0.1;
    run_.settings.auth_failure_limit = 2;
    const fs::path sink = broker_->dir() / "sink";
    sink_ = sink;
    run_.make_sink = [sink](const std::string& agent_id) -> sindri::Result<std::unique_ptr<Sink>> {
      return std::unique_ptr<Sink>(std::make_unique<DirSink>(sink, agent_id, ""));
    };
    run_.version = "test";
    run_.log = [this](const std::string& line) {
      std::lock_guard lock(mutex_);
      log_ += line + "\n";
    };
  }

  std::string log() {
    std::lock_guard lock(mutex_);
    return log_;
  }

  std::unique_ptr<BrokerProcess> broker_;
  std::unique_ptr<sindri::http::Client> admin_;
  std::string stack_id_, agent_id_;
  fs::path sink_;
  AgentRun run_;
  std::mutex mutex_;
  std::string log_;
};

TEST_F(AgentLoop, AppliesThenStopsWithExit0) {
  std::string yaml;
  sindri::append_json_string(yaml, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n");
  Reply object =
      call(*admin_, "POST", "/api/v1/stacks/" + stack_id_ + "/deployment-objects", R"({"yaml_content":)" + yaml + "}");
  ASSERT_EQ(object.status, 201) << object.body;
  std::atomic<bool> stopping{false};
  int code = -1;
  std::thread agent([&] { code = run_agent(run_, stopping); });
  const bool applied = eventually([&] {
    Reply events = call(*admin_, "GET", "/api/v1/agents/" + agent_id_ + "/events");
    return events.json.is_array() && events.json.size() == 1 && text_of(*events.json.at(0), "status") == "SUCCESS";
  });
  stopping = true;
  agent.join();
  ASSERT_TRUE(applied) << log();
  EXPECT_EQ(code, 0) << log();
  EXPECT_TRUE(fs::exists(sink_ / stack_id_ / "core_ConfigMap_default_web.yaml"));
}

TEST_F(AgentLoop, ARefusedPakEndsTheRunWith1) {
  std::atomic<bool> stopping{false};
  int code = -1;
  std::thread agent([&] { code = run_agent(run_, stopping); });
  ASSERT_TRUE(eventually([&] { return log().find("health endpoints on port") != std::string::npos; })) << log();
  ASSERT_EQ(call(*admin_, "POST", "/api/v1/agents/" + agent_id_ + "/rotate-pak").status, 200);
  const bool ended = eventually([&] { return log().find("refused this agent's PAK 2 times") != std::string::npos; });
  stopping = true;
  agent.join();
  EXPECT_TRUE(ended) << log();
  EXPECT_EQ(code, 1) << log();
}

}  // namespace
}  // namespace sindri_test
