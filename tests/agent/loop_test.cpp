// The agent's loop in-process (run_agent on a thread, the directory sink),
// against a real `sindri serve`, so that a sanitizer build checks the loop,
// the broker calls and the health server themselves. The broker program is
// the one SINDRI_AGENT_TEST_SINDRI names (a sanitizer build points it at an
// ordinary build's `sindri`), else this build's when it was built; without
// either the tests are skipped.

#include <cstdlib>
#include <filesystem>
#include <sstream>
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

#include <algorithm>
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
    generator_id_ = text_of(*generator.json.find("generator"), "id");
    stack_id_ = create_stack("web");
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

  std::string create_stack(const std::string& name) {
    Reply stack =
        call(*admin_, "POST", "/api/v1/stacks", R"({"name":")" + name + R"(","generator_id":")" + generator_id_ + R"("})");
    const std::string id = text_of(stack.json, "id");
    EXPECT_EQ(call(*admin_, "POST", "/api/v1/stacks/" + id + "/labels", R"("env=prod")").status, 201);
    return id;
  }

  std::string deploy(const std::string& stack_id, const std::string& yaml) {
    std::string body;
    sindri::append_json_string(body, yaml);
    Reply object = call(*admin_, "POST", "/api/v1/stacks/" + stack_id + "/deployment-objects",
                        R"({"yaml_content":)" + body + "}");
    EXPECT_EQ(object.status, 201) << object.body;
    return text_of(object.json, "id");
  }

  std::unique_ptr<BrokerProcess> broker_;
  std::unique_ptr<sindri::http::Client> admin_;
  std::string generator_id_, stack_id_, agent_id_;
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

int64_t channels_open(sindri::http::Client& admin) {
  Reply connections = call(admin, "GET", "/api/v1/admin/ws/connections");
  const Value* count = connections.json.is_object() ? connections.json.find("connected_agents") : nullptr;
  return count != nullptr && count->is_int() ? count->get_int() : -1;
}

// Polling once an hour, the agent applies a new object at the broker's push.
TEST_F(AgentLoop, APushOverTheChannelIsAppliedLongBeforeTheNextPoll) {
  run_.settings.polling_interval = 3600;
  std::atomic<bool> stopping{false};
  int code = -1;
  std::thread agent([&] { code = run_agent(run_, stopping); });
  const bool connected = eventually([&] { return channels_open(*admin_) == 1; });
  // The polls at the start and at the channel's opening are over by then.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  deploy(stack_id_, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pushed\n");
  const bool applied = eventually([&] { return fs::exists(sink_ / stack_id_ / "core_ConfigMap_default_pushed.yaml"); });
  stopping = true;
  agent.join();
  ASSERT_TRUE(connected) << log();
  EXPECT_TRUE(applied) << log();
  EXPECT_EQ(code, 0) << log();
  EXPECT_NE(log().find("agent channel open at ws://"), std::string::npos) << log();
}

// Polling once an hour, the agent deploys a stack a label change made over
// REST gives it: the broker pushes the target its matching engine adds.
TEST_F(AgentLoop, ALabelChangeOverRestIsPushedAndAppliedLongBeforeTheNextPoll) {
  run_.settings.polling_interval = 3600;
  Reply stack = call(*admin_, "POST", "/api/v1/stacks", R"({"name":"later","generator_id":")" + generator_id_ + "\"}");
  ASSERT_EQ(stack.status, 201) << stack.body;
  const std::string later = text_of(stack.json, "id");
  deploy(later, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: relabelled\n");
  std::atomic<bool> stopping{false};
  int code = -1;
  std::thread agent([&] { code = run_agent(run_, stopping); });
  const bool connected = eventually([&] { return channels_open(*admin_) == 1; });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const bool untouched = !fs::exists(sink_ / later);
  const int labelled = call(*admin_, "POST", "/api/v1/stacks/" + later + "/labels", R"("env=prod")").status;
  const bool applied =
      eventually([&] { return fs::exists(sink_ / later / "core_ConfigMap_default_relabelled.yaml"); });
  stopping = true;
  agent.join();
  ASSERT_TRUE(connected) << log();
  EXPECT_TRUE(untouched);
  EXPECT_EQ(labelled, 201);
  EXPECT_TRUE(applied) << log();
  EXPECT_EQ(code, 0) << log();
}

TEST_F(AgentLoop, WithWsForceRestTheChannelIsNeverOpened) {
  run_.settings.ws_force_rest = true;
  std::atomic<bool> stopping{false};
  std::thread agent([&] { run_agent(run_, stopping); });
  deploy(stack_id_, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: polled\n");
  const bool applied = eventually([&] { return fs::exists(sink_ / stack_id_ / "core_ConfigMap_default_polled.yaml"); });
  const int64_t open = channels_open(*admin_);
  stopping = true;
  agent.join();
  EXPECT_TRUE(applied) << log();
  EXPECT_EQ(open, 0);
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

// The directory sink, with a hook called before each apply.
class WatchedSink : public Sink {
 public:
  WatchedSink(const fs::path& root, const std::string& agent_id, std::function<void()> before_apply)
      : inner_(root, agent_id, ""), before_apply_(std::move(before_apply)) {}
  std::string_view name() const override { return inner_.name(); }
  ApplyOutcome apply(const DeploymentObject& object) override {
    before_apply_();
    return inner_.apply(object);
  }
  sindri::Status prune(std::string_view stack_id, std::string_view keep_checksum) override {
    return inner_.prune(stack_id, keep_checksum);
  }
  sindri::Result<std::vector<OwnedStack>> owned() override { return inner_.owned(); }

 private:
  DirSink inner_;
  std::function<void()> before_apply_;
};

// The broker gone in the middle of a reconcile: the first DEPLOY event
// fails, and the objects after it are applied without trying the broker
// again (each try could wait out broker_timeout); the events wait.
TEST_F(AgentLoop, ABrokerGoneMidReconcileIsNotAskedAfterEachObject) {
  const std::string config_map = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n";
  deploy(stack_id_, config_map);
  deploy(create_stack("second"), config_map);
  deploy(create_stack("third"), config_map);
  std::vector<size_t> log_lines_before_apply;  // written by the agent's thread, read after it ended
  std::atomic<int> applies{0};
  const fs::path root = sink_;
  run_.make_sink = [&, root](const std::string& agent_id) -> sindri::Result<std::unique_ptr<Sink>> {
    return std::unique_ptr<Sink>(std::make_unique<WatchedSink>(root, agent_id, [&] {
      if (log_lines_before_apply.empty()) broker_->stop();
      // The agent channel's thread logs its reconnects whenever they happen:
      // only the reconcile's lines are counted.
      std::istringstream lines(log());
      size_t counted = 0;
      for (std::string line; std::getline(lines, line);) {
        if (line.find("agent channel") == std::string::npos) ++counted;
      }
      log_lines_before_apply.push_back(counted);
      ++applies;
    }));
  };
  std::atomic<bool> stopping{false};
  int code = -1;
  std::thread agent([&] { code = run_agent(run_, stopping); });
  const bool applied_all = eventually([&] { return applies == 3; });
  stopping = true;
  agent.join();
  ASSERT_TRUE(applied_all) << log();
  EXPECT_EQ(code, 0) << log();
  ASSERT_EQ(log_lines_before_apply.size(), 3u) << log();
  // After the first object: its "applied" line and the broker's error.
  EXPECT_EQ(log_lines_before_apply[1] - log_lines_before_apply[0], 2u) << log();
  // After the second: its "applied" line alone, the broker not tried.
  EXPECT_EQ(log_lines_before_apply[2] - log_lines_before_apply[1], 1u) << log();
}

// A run killed in the middle of a stack's first apply left one of its three
// documents in the sink, under the object's checksum: the next run applies
// the object again before anything else, so b and c arrive and the broker
// hears of it, without waiting for a resync.
TEST_F(AgentLoop, AStackHalfAppliedBeforeARestartIsAppliedAgain) {
  const std::string a = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n";
  const std::string whole = a + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n" +
                            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n";
  const std::string object_id = deploy(stack_id_, whole);
  Reply object = call(*admin_, "GET", "/api/v1/deployment-objects/" + object_id);
  const std::string checksum = text_of(object.json, "yaml_checksum");
  ASSERT_FALSE(checksum.empty()) << object.body;
  DirSink before_the_restart(sink_, agent_id_, "");
  ASSERT_TRUE(before_the_restart.apply({object_id, stack_id_, "web", checksum, a}).success);
  ASSERT_FALSE(fs::exists(sink_ / stack_id_ / "core_ConfigMap_default_b.yaml"));

  run_.settings.resync_interval = 3600;
  std::atomic<bool> stopping{false};
  int code = -1;
  std::thread agent([&] { code = run_agent(run_, stopping); });
  const bool applied = eventually([&] {
    Reply events = call(*admin_, "GET", "/api/v1/agents/" + agent_id_ + "/events");
    return events.json.is_array() && events.json.size() == 1;
  });
  stopping = true;
  agent.join();
  ASSERT_TRUE(applied) << log();
  EXPECT_EQ(code, 0) << log();
  for (const char* name : {"a", "b", "c"}) {
    EXPECT_TRUE(fs::exists(sink_ / stack_id_ / ("core_ConfigMap_default_" + std::string(name) + ".yaml"))) << name;
  }
  Reply events = call(*admin_, "GET", "/api/v1/agents/" + agent_id_ + "/events");
  EXPECT_EQ(text_of(*events.json.at(0), "deployment_object_id"), object_id);
  EXPECT_EQ(text_of(*events.json.at(0), "status"), "SUCCESS");
}

// A work order that runs long (its Job takes an hour) holds up neither the
// polls nor the applies; stopping the agent stops the work order and waits
// for it.
TEST_F(AgentLoop, ALongWorkOrderHoldsUpNothingAndStopsWithTheAgent) {
  Reply order =
      call(*admin_, "POST", "/api/v1/work-orders",
           R"({"work_type":"build","yaml_content":"a: 1\n","targeting":{"agent_ids":[")" + agent_id_ + R"("]}})");
  ASSERT_EQ(order.status, 201) << order.body;
  std::atomic<bool> running{false}, told_to_stop{false};
  run_.hooks.run_work_order = [&](const Value&, const std::atomic<bool>& stop) {
    running = true;
    while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    told_to_stop = true;
    return TaskOutcome{false, "stopped", true};
  };
  std::atomic<bool> stopping{false};
  int code = -1;
  std::thread agent([&] { code = run_agent(run_, stopping); });
  const bool started = eventually([&] { return running.load(); });
  const std::string object_id = deploy(stack_id_, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n");
  const bool applied = eventually([&] {
    Reply events = call(*admin_, "GET", "/api/v1/agents/" + agent_id_ + "/events");
    return events.json.is_array() && events.json.size() == 1;
  });
  const bool still_running = running && !told_to_stop;
  stopping = true;
  agent.join();
  ASSERT_TRUE(started) << log();
  EXPECT_TRUE(applied) << log();
  EXPECT_TRUE(still_running);
  EXPECT_TRUE(told_to_stop);
  EXPECT_EQ(code, 0) << log();
  EXPECT_NE(log().find("work order " + text_of(order.json, "id") + " failed: stopped"), std::string::npos) << log();
}

// --once: one apply of everything targeted, its events sent, then the run
// ends by itself, without the health endpoints or the channel.
TEST_F(AgentLoop, OnceAppliesReportsAndExits0) {
  run_.settings.once = true;
  deploy(stack_id_, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n");
  std::atomic<bool> stopping{false};
  EXPECT_EQ(run_agent(run_, stopping), 0) << log();
  EXPECT_TRUE(fs::exists(sink_ / stack_id_ / "core_ConfigMap_default_web.yaml"));
  Reply events = call(*admin_, "GET", "/api/v1/agents/" + agent_id_ + "/events");
  ASSERT_TRUE(events.json.is_array()) << events.body;
  ASSERT_EQ(events.json.size(), 1u) << events.body;
  EXPECT_EQ(text_of(*events.json.at(0), "status"), "SUCCESS");
  EXPECT_EQ(log().find("health endpoints"), std::string::npos) << log();
  EXPECT_EQ(channels_open(*admin_), 0);
}

TEST_F(AgentLoop, OnceExits1WhenAnObjectFailsToApply) {
  run_.settings.once = true;
  deploy(stack_id_, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n");
  // The directory sink cannot write where a file stands in for its directory.
  fs::create_directories(sink_);
  { std::ofstream(sink_ / stack_id_) << "in the way"; }
  std::atomic<bool> stopping{false};
  EXPECT_EQ(run_agent(run_, stopping), 1) << log();
  Reply events = call(*admin_, "GET", "/api/v1/agents/" + agent_id_ + "/events");
  ASSERT_TRUE(events.json.is_array()) << events.body;
  ASSERT_EQ(events.json.size(), 1u) << events.body;
  EXPECT_EQ(text_of(*events.json.at(0), "status"), "FAILURE");
}

// A broker gone after the start: --once backs off agent.max_retries times,
// then ends rather than waiting for ever.
TEST_F(AgentLoop, OnceGivesUpOnABrokerThatStaysGone) {
  run_.settings.once = true;
  run_.settings.max_retries = 3;
  int probes = 0;
  // The first probe is the start's; the second comes before the first heartbeat.
  run_.hooks.probe_sink = [&]() -> sindri::Result<int64_t> {
    if (++probes == 2) broker_->stop();
    return int64_t{0};
  };
  std::atomic<bool> stopping{false};
  EXPECT_EQ(run_agent(run_, stopping), 1) << log();
  EXPECT_NE(log().find("the broker failed 3 times in a row before the target state was applied"), std::string::npos)
      << log();
}

TEST_F(AgentLoop, OnceOfAnInactiveAgentSaysSoAndExits1) {
  run_.settings.once = true;
  ASSERT_EQ(call(*admin_, "PUT", "/api/v1/agents/" + agent_id_, R"({"status":"INACTIVE"})").status, 200);
  std::atomic<bool> stopping{false};
  EXPECT_EQ(run_agent(run_, stopping), 1) << log();
  EXPECT_NE(log().find("not ACTIVE"), std::string::npos) << log();
}

}  // namespace
}  // namespace sindri_test
