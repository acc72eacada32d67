// The whole flow of issue 26 against a real broker (`sindri serve`) and a
// real `sindri agent run` with the directory sink: apply, events and
// heartbeat at the broker, replacement and pruning, stack deletion, files
// of another agent, restarts, a broker that vanishes, a revoked PAK, bad YAML.

#include <fstream>

#include "agent/agent_process.hpp"
#include "broker/webhook_receiver.hpp"
#include "kube/server/kube_test_server.hpp"
#include "value/digest.hpp"
#include "value/json.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri_test {
namespace {

using sindri::Value;

constexpr const char* kFirst =
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  greeting: hello\n"
    "---\n"
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n  namespace: apps\nspec:\n  replicas: 1\n";
constexpr const char* kSecond =
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  greeting: bonjour\n"
    "---\n"
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: token\nstringData:\n  key: value\n";

// A broker with a generator, a stack labelled env=prod and an agent a1 in
// cluster c1 carrying the label, its PAK in a file.
class AgentFlow : public ::testing::Test {
 protected:
  void SetUp() override {
    broker_.start();
    admin_ = broker_.client(broker_.admin_pak());
    Reply generator = call(*admin_, "POST", "/api/v1/generators", R"({"name":"ci"})");
    ASSERT_EQ(generator.status, 201) << generator.body;
    generator_id_ = text_of(*generator.json.find("generator"), "id");
    stack_id_ = create_stack("web");
    Reply agent = call(*admin_, "POST", "/api/v1/agents", R"({"name":"a1","cluster_name":"c1"})");
    ASSERT_EQ(agent.status, 201) << agent.body;
    agent_id_ = text_of(*agent.json.find("agent"), "id");
    pak_file_ = broker_.dir() / "agent.pak";
    std::ofstream(pak_file_) << text_of(agent.json, "initial_pak") << "\n";
    ASSERT_EQ(call(*admin_, "POST", "/api/v1/agents/" + agent_id_ + "/labels",
                   R"({"agent_id":")" + agent_id_ + R"(","label":"env=prod"})")
                  .status,
              201);
    sink_ = broker_.dir() / "sink";
  }

  std::string create_stack(const std::string& name) {
    Reply stack = call(*admin_, "POST", "/api/v1/stacks",
                       R"({"name":")" + name + R"(","generator_id":")" + generator_id_ + R"("})");
    EXPECT_EQ(stack.status, 201) << stack.body;
    const std::string id = text_of(stack.json, "id");
    EXPECT_EQ(call(*admin_, "POST", "/api/v1/stacks/" + id + "/labels", R"("env=prod")").status, 201);
    return id;
  }

  std::string deploy(const std::string& stack_id, const std::string& yaml) {
    Reply object = call(*admin_, "POST", "/api/v1/stacks/" + stack_id + "/deployment-objects",
                        R"({"yaml_content":)" + json_string(yaml) + "}");
    EXPECT_EQ(object.status, 201) << object.body;
    return text_of(object.json, "id");
  }

  std::vector<std::string> agent_args(const std::string& broker_url) const {
    return {"--broker-url",
            broker_url,
            "--pak-file",
            pak_file_.string(),
            "--agent-name",
            "a1",
            "--cluster-name",
            "c1",
            "--sink",
            "dir:" + sink_.string(),
            "--health-port",
            "0",
            "--polling-interval",
            "0.05",
            "--task-interval",
            "0.05",
            "--startup-retry-interval",
            "0.05",
            "--broker-backoff-initial",
            "0.02",
            "--broker-backoff-max",
            "0.1",
            "--broker-timeout",
            "2",
            "--max-retries",
            "100"};
  }
  // The agent with agent_args, each flag of `changes` (FLAG VALUE pairs) replacing or adding one.
  std::unique_ptr<AgentProcess> start_agent(const std::vector<std::string>& changes = {},
                                            const std::string& broker_url = {}) {
    std::vector<std::string> args = agent_args(broker_url.empty() ? broker_.url() : broker_url);
    for (size_t i = 0; i + 1 < changes.size(); i += 2) {
      auto given = std::find(args.begin(), args.end(), changes[i]);
      if (given != args.end()) {
        *(given + 1) = changes[i + 1];
      } else {
        args.push_back(changes[i]);
        args.push_back(changes[i + 1]);
      }
    }
    return std::make_unique<AgentProcess>(std::move(args), broker_.dir() / "agent.log");
  }

  // The agent's health endpoints, from the port its log names.
  static std::string health_url(const AgentProcess& agent) {
    const std::string log = agent.log();
    const std::string marker = "health endpoints on port ";
    const size_t at = log.find(marker);
    if (at == std::string::npos) return "http://127.0.0.1:1";
    return "http://127.0.0.1:" + log.substr(at + marker.size(), log.find('\n', at) - at - marker.size());
  }

  fs::path file(const std::string& stack_id, const std::string& name) const { return sink_ / stack_id / name; }

  // The file's object, null when absent or unparseable.
  static Value read_object(const fs::path& path) {
    if (!fs::exists(path)) return Value();
    auto parsed = sindri::parse_yaml(slurp(path));
    return parsed.ok() ? *parsed : Value();
  }
  static std::string annotation(const Value& object, std::string_view key) {
    const Value* metadata = object.find("metadata");
    const Value* annotations = metadata ? metadata->find("annotations") : nullptr;
    return annotations ? text_of(*annotations, key) : std::string();
  }

  // The agent's events at the broker: (deployment object id, status) pairs in order.
  std::vector<std::pair<std::string, std::string>> events() {
    Reply listed = call(*admin_, "GET", "/api/v1/agents/" + agent_id_ + "/events");
    std::vector<std::pair<std::string, std::string>> found;
    if (!listed.json.is_array()) return found;
    for (const Value& event : listed.json.get_array()) {
      found.emplace_back(text_of(event, "deployment_object_id"), text_of(event, "status"));
    }
    return found;
  }
  bool has_event(const std::string& object_id, const std::string& status) {
    for (const auto& [id, found] : events()) {
      if (id == object_id && found == status) return true;
    }
    return false;
  }
  std::string event_message(const std::string& object_id) {
    Reply listed = call(*admin_, "GET", "/api/v1/agents/" + agent_id_ + "/events");
    for (const Value& event : listed.json.get_array()) {
      if (text_of(event, "deployment_object_id") == object_id) return text_of(event, "message");
    }
    return "";
  }

  BrokerProcess broker_{Backend::Sqlite};
  std::unique_ptr<sindri::http::Client> admin_;
  std::string generator_id_, stack_id_, agent_id_;
  fs::path pak_file_, sink_;
};

TEST_F(AgentFlow, AppliesReplacesPrunesAndDeletesWhatItOwns) {
  const std::string first_id = deploy(stack_id_, kFirst);
  auto agent = start_agent();

  const fs::path web = file(stack_id_, "core_ConfigMap_default_web.yaml");
  const fs::path api = file(stack_id_, "apps_Deployment_apps_api.yaml");
  ASSERT_TRUE(eventually([&] { return has_event(first_id, "SUCCESS"); })) << agent->log();
  ASSERT_TRUE(fs::exists(web)) << agent->log();
  ASSERT_TRUE(fs::exists(api));
  const Value applied = read_object(web);
  EXPECT_EQ(annotation(applied, "k8s.brokkr.io/stack"), stack_id_);
  EXPECT_EQ(annotation(applied, "brokkr.io/deployment-object-id"), first_id);
  EXPECT_EQ(annotation(applied, "brokkr.io/owner-id"), agent_id_);
  EXPECT_EQ(annotation(applied, "k8s.brokkr.io/deployment-checksum"), sindri::sha256_hex(kFirst));
  EXPECT_EQ(annotation(applied, "k8s.brokkr.io/last-config-applied"), sindri::sha256_hex(kFirst));
  EXPECT_EQ(text_of(*applied.find("metadata"), "namespace"), "default");

  // The heartbeat reached the broker.
  ASSERT_TRUE(eventually([&] {
    Reply record = call(*admin_, "GET", "/api/v1/agents/" + agent_id_);
    return !text_of(record.json, "last_heartbeat").empty();
  }));

  // Files the agent does not own stay whatever happens to the stack: another
  // agent's, and one with ownerReferences (owned by a controller).
  const fs::path foreign = file(stack_id_, "core_ConfigMap_default_foreign.yaml");
  std::ofstream(foreign) << "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: foreign\n  annotations:\n"
                         << "    k8s.brokkr.io/stack: " << stack_id_ << "\n    brokkr.io/owner-id: someone-else\n";
  const fs::path controlled = file(stack_id_, "core_Pod_default_controlled.yaml");
  std::ofstream(controlled) << "apiVersion: v1\nkind: Pod\nmetadata:\n  name: controlled\n  annotations:\n"
                            << "    k8s.brokkr.io/stack: " << stack_id_ << "\n    brokkr.io/owner-id: " << agent_id_
                            << "\n  ownerReferences:\n  - kind: ReplicaSet\n    name: rs\n";

  // A new deployment object replaces the changed file and prunes the removed one.
  const std::string second_id = deploy(stack_id_, kSecond);
  const fs::path secret = file(stack_id_, "core_Secret_default_token.yaml");
  ASSERT_TRUE(eventually([&] { return has_event(second_id, "SUCCESS") && !fs::exists(api); })) << agent->log();
  EXPECT_TRUE(fs::exists(secret));
  EXPECT_EQ(annotation(read_object(web), "k8s.brokkr.io/deployment-checksum"), sindri::sha256_hex(kSecond));
  EXPECT_EQ(text_of(*read_object(web).find("data"), "greeting"), "bonjour");

  // Deleting the stack deletes what the agent owns of it, nothing else.
  ASSERT_EQ(call(*admin_, "DELETE", "/api/v1/stacks/" + stack_id_).status, 204);
  ASSERT_TRUE(eventually([&] { return !fs::exists(web) && !fs::exists(secret); })) << agent->log();
  EXPECT_TRUE(fs::exists(foreign));
  EXPECT_TRUE(fs::exists(controlled));

  EXPECT_EQ(agent->stop(), 0) << agent->log();
}

// A boolean setting's flag alone means true: `--once` applies, reports and
// exits by itself, and `--ws-force-rest` keeps it off the channel.
TEST_F(AgentFlow, OnceAsABareFlagAppliesReportsAndExits) {
  const std::string id = deploy(stack_id_, kFirst);
  std::vector<std::string> args = agent_args(broker_.url());
  args.insert(args.end(), {"--once", "--ws-force-rest"});
  AgentProcess agent(std::move(args), broker_.dir() / "once.log");
  EXPECT_EQ(agent.wait(), 0) << agent.log();
  EXPECT_TRUE(has_event(id, "SUCCESS")) << agent.log();
  EXPECT_TRUE(fs::exists(file(stack_id_, "core_ConfigMap_default_web.yaml"))) << agent.log();
}

TEST_F(AgentFlow, ARestartLosesAndOrphansNothing) {
  const std::string first_id = deploy(stack_id_, kFirst);
  const std::string other_stack = create_stack("other");
  const std::string other_id = deploy(other_stack, kFirst);
  auto agent = start_agent();
  ASSERT_TRUE(eventually([&] { return has_event(first_id, "SUCCESS") && has_event(other_id, "SUCCESS"); }))
      << agent->log();
  EXPECT_EQ(agent->stop(), 0) << agent->log();

  // While the agent is down: a new object in one stack, the other stack deleted.
  const std::string second_id = deploy(stack_id_, kSecond);
  ASSERT_EQ(call(*admin_, "DELETE", "/api/v1/stacks/" + other_stack).status, 204);
  const size_t events_before = events().size();

  agent = start_agent();
  const fs::path api = file(stack_id_, "apps_Deployment_apps_api.yaml");
  ASSERT_TRUE(eventually([&] {
    return has_event(second_id, "SUCCESS") && !fs::exists(api) && !fs::exists(sink_ / other_stack);
  })) << agent->log();
  EXPECT_TRUE(fs::exists(file(stack_id_, "core_Secret_default_token.yaml")));

  // Killed without warning and started again: what it holds is read back
  // from the directory and applied once again (the kill might have cut an
  // apply short), one event, and then nothing more.
  EXPECT_EQ(agent->kill(), 128 + SIGKILL);
  const size_t events_after_kill = events().size();
  EXPECT_GT(events_after_kill, events_before);
  agent = start_agent();
  const auto second_successes = [&] {
    const auto found = events();
    return std::count(found.begin(), found.end(), std::make_pair(second_id, std::string("SUCCESS")));
  };
  const auto successes_before = second_successes();
  ASSERT_TRUE(eventually([&] { return events().size() == events_after_kill + 1; })) << agent->log();
  EXPECT_EQ(second_successes(), successes_before + 1);
  // Several polls pass (50 ms apart) without a new event.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(events().size(), events_after_kill + 1) << agent->log();
  EXPECT_EQ(agent->stop(), 0);
}

// The broker refuses YAML that does not parse or names no kind, so what
// reaches the agent is well formed (dir_sink_test.cpp shows the agent's own
// checks); a name that cannot be a file name fails in the directory sink.
TEST_F(AgentFlow, AFailedObjectWritesNothingAndTheAgentGoesOn) {
  const std::string bad_id =
      deploy(stack_id_, std::string(kFirst) + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ../escape\n");
  const std::string good_stack = create_stack("good");
  const std::string good_id = deploy(good_stack, kFirst);
  auto agent = start_agent();
  ASSERT_TRUE(eventually([&] { return has_event(bad_id, "FAILURE") && has_event(good_id, "SUCCESS"); }))
      << agent->log();
  // Nothing of the failed object is written.
  EXPECT_NE(event_message(bad_id).find("document 3 (v1 ConfigMap ../escape)"), std::string::npos)
      << event_message(bad_id);
  EXPECT_FALSE(fs::exists(sink_ / stack_id_));
  EXPECT_TRUE(fs::exists(file(good_stack, "core_ConfigMap_default_web.yaml")));

  // A later good object of the same stack applies.
  const std::string fixed_id = deploy(stack_id_, kFirst);
  ASSERT_TRUE(eventually([&] { return has_event(fixed_id, "SUCCESS"); })) << agent->log();
  EXPECT_TRUE(fs::exists(file(stack_id_, "core_ConfigMap_default_web.yaml")));
  EXPECT_EQ(agent->stop(), 0);
}

TEST_F(AgentFlow, ABrokerThatVanishesAndComesBack) {
  const std::string first_id = deploy(stack_id_, kFirst);
  // The agent talks to a broker on a port of the test's choosing, on the
  // same database, so that the broker can come back where it was.
  const uint16_t port = free_port();
  auto broker = std::make_unique<ServeProcess>(broker_.dir(), port);
  auto agent = start_agent({}, broker->url());
  ASSERT_TRUE(eventually([&] { return has_event(first_id, "SUCCESS"); })) << agent->log();
  EXPECT_EQ(broker->stop(), 0);

  // The agent keeps what it applied and keeps trying.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_TRUE(agent->running()) << agent->log();
  EXPECT_TRUE(fs::exists(file(stack_id_, "core_ConfigMap_default_web.yaml")));
  EXPECT_NE(agent->log().find("Connection refused"), std::string::npos) << agent->log();
  // Its /health says the broker is gone; /healthz and /readyz (the sink) stay 200.
  sindri::http::Client health(health_url(*agent));
  ASSERT_TRUE(eventually([&] { return call(health, "GET", "/health").status == 503; })) << agent->log();
  const Reply unhealthy = call(health, "GET", "/health");
  EXPECT_FALSE(unhealthy.json.find("broker")->find("connected")->get_bool()) << unhealthy.body;
  EXPECT_EQ(call(health, "GET", "/healthz").status, 200);
  EXPECT_EQ(call(health, "GET", "/readyz").status, 200);

  broker = std::make_unique<ServeProcess>(broker_.dir(), port);
  const std::string second_id = deploy(stack_id_, kSecond);
  ASSERT_TRUE(eventually([&] { return has_event(second_id, "SUCCESS"); })) << agent->log();
  EXPECT_EQ(agent->stop(), 0);
}

TEST_F(AgentFlow, ARevokedPakEndsTheAgentWithExit1) {
  auto agent = start_agent({"--auth-failure-limit", "3"});
  ASSERT_TRUE(eventually([&] {
    return !text_of(call(*admin_, "GET", "/api/v1/agents/" + agent_id_).json, "last_heartbeat").empty();
  })) << agent->log();
  ASSERT_EQ(call(*admin_, "POST", "/api/v1/agents/" + agent_id_ + "/rotate-pak").status, 200);
  const std::optional<int> status = agent->wait(std::chrono::seconds(20));
  ASSERT_TRUE(status.has_value()) << agent->log();
  EXPECT_EQ(*status, 1);
  EXPECT_NE(agent->log().find("refused this agent's PAK 3 times in a row"), std::string::npos) << agent->log();
}

TEST_F(AgentFlow, AnUnknownAgentOrABadSettingIsAClearError) {
  auto unknown = start_agent({"--agent-name", "nobody"});
  EXPECT_EQ(unknown->wait(), 1);
  EXPECT_NE(unknown->log().find("the broker knows no agent nobody in cluster c1"), std::string::npos) << unknown->log();

  // No broker at all: start-up gives up after max_retries.
  auto nowhere = start_agent({"--max-retries", "3"}, "http://127.0.0.1:" + std::to_string(free_port()));
  EXPECT_EQ(nowhere->wait(), 1);
  EXPECT_NE(nowhere->log().find("was not ready after 3 attempts (agent.max_retries)"), std::string::npos)
      << nowhere->log();

  auto bad = start_agent({"--polling-interval", "soon"});
  EXPECT_EQ(bad->wait(), 2);
  EXPECT_NE(bad->log().find("--polling-interval: expected a number of seconds"), std::string::npos) << bad->log();

  AgentProcess no_pak({"--agent-name", "a1", "--cluster-name", "c1"}, broker_.dir() / "nopak.log",
                      {"SINDRI_PAK=" + broker_.admin_pak()});
  EXPECT_EQ(no_pak.wait(), 2);
  EXPECT_NE(no_pak.log().find("SINDRI_PAK, a person's PAK, is never read"), std::string::npos) << no_pak.log();
}

// While the agent's status is not ACTIVE it only sends heartbeats.
TEST_F(AgentFlow, AnInactiveAgentAppliesNothingUntilActiveAgain) {
  ASSERT_EQ(call(*admin_, "PUT", "/api/v1/agents/" + agent_id_, R"({"status":"INACTIVE"})").status, 200);
  const std::string first_id = deploy(stack_id_, kFirst);
  auto agent = start_agent();
  const auto heartbeat = [&] {
    return text_of(call(*admin_, "GET", "/api/v1/agents/" + agent_id_).json, "last_heartbeat");
  };
  ASSERT_TRUE(eventually([&] { return !heartbeat().empty(); })) << agent->log();
  const std::string first_heartbeat = heartbeat();
  ASSERT_TRUE(eventually([&] { return heartbeat() != first_heartbeat; })) << agent->log();
  EXPECT_TRUE(events().empty());
  EXPECT_FALSE(fs::exists(sink_ / stack_id_));

  ASSERT_EQ(call(*admin_, "PUT", "/api/v1/agents/" + agent_id_, R"({"status":"ACTIVE"})").status, 200);
  ASSERT_TRUE(eventually([&] { return has_event(first_id, "SUCCESS"); })) << agent->log();
  EXPECT_EQ(agent->stop(), 0);
}

// A webhook whose receiver only the cluster reaches (target_labels) is
// delivered by the agent, with Brokkr's headers, and its result recorded.
TEST_F(AgentFlow, DeliversTheWebhooksTheBrokerHandsIt) {
  WebhookReceiver receiver({200});
  Reply webhook = call(*admin_, "POST", "/api/v1/webhooks",
                       R"({"name":"inside","url":")" + receiver.url("/hook?x=1") +
                           R"(","event_types":["stack.*"],"auth_header":"Bearer in","target_labels":["env=prod"]})");
  ASSERT_EQ(webhook.status, 201) << webhook.body;
  const std::string webhook_id = text_of(webhook.json, "id");
  create_stack("announced");
  auto agent = start_agent();
  const auto got = receiver.wait_for(1);
  ASSERT_EQ(got.size(), 1u) << agent->log();
  EXPECT_EQ(got[0].target, "/hook?x=1");
  EXPECT_EQ(got[0].header("X-Brokkr-Event-Type"), "stack.created");
  EXPECT_FALSE(got[0].header("X-Brokkr-Delivery-Id").empty());
  EXPECT_EQ(got[0].header("Authorization"), "Bearer in");
  ASSERT_TRUE(eventually([&] {
    Reply deliveries = call(*admin_, "GET", "/api/v1/webhooks/" + webhook_id + "/deliveries?status=success");
    return deliveries.json.is_array() && deliveries.json.size() == 1;
  })) << agent->log();
  EXPECT_EQ(agent->stop(), 0);
}

// The Kubernetes side of the objects in a test server: namespace/name of each
// object of `kind`, in the order stored.
std::vector<std::string> stored(const sindri_test::KubeTestServer& cluster, const std::string& kind) {
  std::vector<std::string> names;
  const Value objects = cluster.objects();
  for (const Value& object : objects.get_array()) {
    if (text_of(object, "kind") != kind) continue;
    const Value& metadata = *object.find("metadata");
    names.push_back(text_of(metadata, "namespace") + "/" + text_of(metadata, "name"));
  }
  return names;
}

// The same flow with the default sink against the Kubernetes API test
// server: server-side apply, pruning by the cluster's annotations, the
// stack's deletion, a restart that reads ownership back from the cluster.
TEST_F(AgentFlow, TheSameFlowAgainstAKubernetesApiServer) {
  sindri_test::KubeTestServer cluster;
  const std::vector<std::string> kube = {"--sink",
                                         "kubernetes",
                                         "--kubeconfig",
                                         cluster.kubeconfig_path(),
                                         "--kube-retry-initial",
                                         "0.02",
                                         "--kube-retry-max",
                                         "0.1",
                                         "--kube-retry-give-up",
                                         "2",
                                         "--deployment-health-interval",
                                         "0.1"};
  // The Deployment's namespace comes with it, as a cluster wants it.
  const std::string first_id =
      deploy(stack_id_, std::string("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: apps\n---\n") + kFirst);
  auto agent = start_agent(kube);
  ASSERT_TRUE(eventually([&] { return has_event(first_id, "SUCCESS"); })) << agent->log();
  EXPECT_EQ(stored(cluster, "ConfigMap"), (std::vector<std::string>{"default/web"}));
  EXPECT_EQ(stored(cluster, "Deployment"), (std::vector<std::string>{"apps/api"}));
  const std::vector<std::string> namespaces = stored(cluster, "Namespace");
  EXPECT_NE(std::find(namespaces.begin(), namespaces.end(), "/apps"), namespaces.end());

  // Every write is a server-side apply as Brokkr's agent sends it.
  bool applied = false;
  const Value requests = cluster.requests();
  for (const Value& request : requests.get_array()) {
    if (text_of(request, "method") != "PATCH") continue;
    applied = true;
    EXPECT_EQ(text_of(request, "content_type"), "application/apply-patch+yaml");
  }
  EXPECT_TRUE(applied);

  // Its own endpoints, with Brokkr's metric names.
  sindri::http::Client health(health_url(*agent));
  EXPECT_EQ(call(health, "GET", "/healthz").status, 200);
  EXPECT_EQ(call(health, "GET", "/readyz").status, 200);
  const Reply status = call(health, "GET", "/health");
  EXPECT_EQ(status.status, 200) << status.body;
  EXPECT_EQ(text_of(status.json, "status"), "healthy");
  EXPECT_TRUE(status.json.find("kubernetes")->find("connected")->get_bool());
  EXPECT_FALSE(text_of(*status.json.find("broker"), "last_heartbeat").empty());
  const std::string metrics = call(health, "GET", "/metrics").body;
  for (const char* name :
       {"brokkr_agent_poll_requests_total{status=\"success\"}", "brokkr_agent_poll_duration_seconds_bucket",
        "brokkr_agent_kubernetes_operations_total{operation=", "brokkr_agent_heartbeat_sent_total",
        "brokkr_agent_kubernetes_operation_duration_seconds_bucket", "brokkr_agent_last_successful_poll_timestamp"}) {
    EXPECT_NE(metrics.find(name), std::string::npos) << name << "\n" << metrics;
  }

  // Deployment health reaches the broker (no pods in the test server: unknown).
  ASSERT_TRUE(eventually([&] {
    Reply health = call(*admin_, "GET", "/api/v1/deployment-objects/" + first_id + "/health");
    return health.status == 200 && health.body.find("\"unknown\"") != std::string::npos;
  })) << agent->log()
      << call(*admin_, "GET", "/api/v1/deployment-objects/" + first_id + "/health").body;

  // A work order is claimed, run (H4's run_work_order: a kind this agent
  // does not run fails at once, not to be retried) and completed.
  Reply order =
      call(*admin_, "POST", "/api/v1/work-orders",
           R"({"work_type":"teleport","yaml_content":"a: 1\n","targeting":{"agent_ids":[")" + agent_id_ + R"("]}})");
  ASSERT_EQ(order.status, 201) << order.body;
  const std::string log_path = "/api/v1/work-order-log/" + text_of(order.json, "id");
  ASSERT_TRUE(eventually([&] { return call(*admin_, "GET", log_path).status == 200; })) << agent->log();
  const Reply logged = call(*admin_, "GET", log_path);
  EXPECT_FALSE(logged.json.find("success")->get_bool()) << logged.body;
  EXPECT_NE(logged.body.find("unknown work type"), std::string::npos) << logged.body;

  // A diagnostic request for the object: the agent claims it, collects from
  // the cluster (H4's collect_diagnostics) and posts the result.
  Reply diagnostic = call(*admin_, "POST", "/api/v1/deployment-objects/" + first_id + "/diagnostics",
                          R"({"agent_id":")" + agent_id_ + R"("})");
  ASSERT_EQ(diagnostic.status, 201) << diagnostic.body;
  const std::string diagnostic_path = "/api/v1/diagnostics/" + text_of(diagnostic.json, "id");
  ASSERT_TRUE(eventually([&] { return call(*admin_, "GET", diagnostic_path).json.find("result") != nullptr; }))
      << agent->log();
  EXPECT_EQ(text_of(*call(*admin_, "GET", diagnostic_path).json.find("request"), "status"), "completed");

  const std::string second_id = deploy(stack_id_, kSecond);
  ASSERT_TRUE(eventually([&] { return has_event(second_id, "SUCCESS") && stored(cluster, "Deployment").empty(); }))
      << agent->log();
  EXPECT_EQ(stored(cluster, "Secret"), (std::vector<std::string>{"default/token"}));

  // Stopped, the stack deleted meanwhile, started again: the cluster tells it what it owns.
  EXPECT_EQ(agent->stop(), 0) << agent->log();
  ASSERT_EQ(call(*admin_, "DELETE", "/api/v1/stacks/" + stack_id_).status, 204);
  agent = start_agent(kube);
  ASSERT_TRUE(eventually([&] { return stored(cluster, "ConfigMap").empty() && stored(cluster, "Secret").empty(); }))
      << agent->log();
  EXPECT_EQ(agent->stop(), 0) << agent->log();
}

// Killed in the middle of an apply (the cluster answers one write late and
// the agent dies meanwhile), the agent started again finds the stack's
// objects under two checksums, applies the newest object again and prunes
// the rest: nothing is lost or orphaned.
TEST_F(AgentFlow, KilledInTheMiddleOfAnApplyNothingIsLostOrOrphaned) {
  sindri_test::KubeTestServer cluster;
  const std::vector<std::string> kube = {
      "--sink", "kubernetes", "--kubeconfig", cluster.kubeconfig_path(), "--kube-retry-initial", "0.02"};
  auto config_maps = [](const std::string& value, const std::vector<std::string>& names) {
    std::string yaml;
    for (const std::string& name : names) {
      yaml += "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\ndata:\n  v: " + value + "\n";
    }
    return yaml;
  };
  const std::string first_id = deploy(stack_id_, config_maps("one", {"a", "b", "old"}));
  auto agent = start_agent(kube);
  ASSERT_TRUE(eventually([&] { return has_event(first_id, "SUCCESS"); })) << agent->log();

  // Every write to b (its dry run, then its apply) answers half a second late.
  cluster.hold_requests("PATCH", "/api/v1/namespaces/default/configmaps/b", 0.5, 2);
  const std::string second = config_maps("two", {"a", "b", "new"});
  const std::string second_id = deploy(stack_id_, second);
  const auto checksum_of = [&](const std::string& name) {
    const Value objects = cluster.objects();
    for (const Value& object : objects.get_array()) {
      if (text_of(object, "kind") == "ConfigMap" && text_of(*object.find("metadata"), "name") == name) {
        return annotation(object, "k8s.brokkr.io/deployment-checksum");
      }
    }
    return std::string();
  };
  const std::string second_checksum = sindri::sha256_hex(second);
  ASSERT_TRUE(eventually([&] { return checksum_of("a") == second_checksum; })) << agent->log();
  EXPECT_EQ(agent->kill(), 128 + SIGKILL);
  EXPECT_FALSE(has_event(second_id, "SUCCESS"));
  EXPECT_EQ(checksum_of("new"), "");  // not applied yet: the agent died on b

  agent = start_agent(kube);
  ASSERT_TRUE(eventually([&] {
    return has_event(second_id, "SUCCESS") && checksum_of("old").empty() && checksum_of("new") == second_checksum;
  })) << agent->log();
  EXPECT_EQ(checksum_of("a"), second_checksum);
  EXPECT_EQ(checksum_of("b"), second_checksum);
  EXPECT_EQ(agent->stop(), 0) << agent->log();
}

// Against the cluster's errors: 503s are retried until the apply succeeds;
// an unknown kind fails its object (FAILURE naming the kind) and prunes
// nothing of what the stack held.
TEST_F(AgentFlow, RetriesTheClustersFailuresAndReportsAnUnknownKind) {
  sindri_test::KubeTestServer cluster;
  cluster.inject_failures("PATCH", "/api/v1/namespaces/default/configmaps", 503, 2);
  const std::string first_id = deploy(stack_id_, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n");
  auto agent = start_agent({"--sink", "kubernetes", "--kubeconfig", cluster.kubeconfig_path(), "--kube-retry-initial",
                            "0.02", "--kube-retry-max", "0.05"});
  ASSERT_TRUE(eventually([&] { return has_event(first_id, "SUCCESS"); })) << agent->log();
  EXPECT_EQ(stored(cluster, "ConfigMap"), (std::vector<std::string>{"default/web"}));

  const std::string unknown_id = deploy(stack_id_, "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\n");
  ASSERT_TRUE(eventually([&] { return has_event(unknown_id, "FAILURE"); })) << agent->log();
  EXPECT_NE(event_message(unknown_id).find("Gadget"), std::string::npos) << event_message(unknown_id);
  EXPECT_EQ(stored(cluster, "ConfigMap"), (std::vector<std::string>{"default/web"}));
  EXPECT_TRUE(agent->running());
  EXPECT_EQ(agent->stop(), 0) << agent->log();
}

// SIGTERM while the cluster's answers are being retried (every apply
// answers 503; the default 300 s of retries): the agent stops retrying and
// exits 0 at once.
TEST_F(AgentFlow, SigtermEndsTheClustersRetries) {
  sindri_test::KubeTestServer cluster;
  cluster.inject_failures("PATCH", "/api/v1/namespaces/default/configmaps", 503, 1000000);
  deploy(stack_id_, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n");
  auto agent = start_agent({"--sink", "kubernetes", "--kubeconfig", cluster.kubeconfig_path(), "--kube-retry-initial",
                            "0.02", "--kube-retry-max", "0.05"});
  const auto patches = [&] {
    const Value requests = cluster.requests();
    return std::count_if(requests.get_array().begin(), requests.get_array().end(),
                         [](const Value& request) { return text_of(request, "method") == "PATCH"; });
  };
  ASSERT_TRUE(eventually([&] { return patches() >= 3; })) << agent->log();
  EXPECT_EQ(agent->stop(), 0) << agent->log();
}

// SIGTERM while the agent waits for the kinds of a CRD it applied (the
// cluster serves them an hour later; crd_wait 300 s): the wait ends, the
// object fails, the agent exits 0 at once.
TEST_F(AgentFlow, SigtermEndsTheWaitForACrdsKinds) {
  KubeTestServerOptions slow_crds;
  slow_crds.crd_discovery_delay = 3600;
  sindri_test::KubeTestServer cluster(slow_crds);
  deploy(stack_id_,
         "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\n"
         "spec:\n  group: example.com\n  scope: Namespaced\n  names: {kind: Widget, plural: widgets}\n"
         "  versions: [{name: v1, served: true, storage: true}]\n---\n"
         "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n");
  auto agent = start_agent({"--sink", "kubernetes", "--kubeconfig", cluster.kubeconfig_path(), "--crd-wait", "300",
                            "--crd-poll-interval", "0.02"});
  ASSERT_TRUE(eventually([&] {
    const Value requests = cluster.requests();
    // Discovery asked again at least twice after the CRD was applied: waiting.
    int lookups_after_crd = -1;
    for (const Value& request : requests.get_array()) {
      const std::string path = text_of(request, "path");
      if (text_of(request, "method") == "PATCH" && path.find("customresourcedefinitions") != std::string::npos &&
          text_of(request, "query").find("dryRun") == std::string::npos) {
        lookups_after_crd = 0;
      }
      if (lookups_after_crd >= 0 && path == "/apis") ++lookups_after_crd;
    }
    return lookups_after_crd >= 2;
  })) << agent->log();
  EXPECT_EQ(agent->stop(), 0) << agent->log();
}

// A cluster that vanishes: the agent goes on and says so on /readyz and in
// its heartbeat (k8s_reachable false at the broker) at once, though the
// cluster's operations keep the default 300 s of retries; /healthz stays 200.
TEST_F(AgentFlow, AClusterThatVanishes) {
  auto cluster = std::make_unique<sindri_test::KubeTestServer>();
  const std::string kubeconfig = cluster->kubeconfig_path();
  const std::string first_id = deploy(stack_id_, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n");
  auto agent = start_agent({"--sink", "kubernetes", "--kubeconfig", kubeconfig, "--kube-retry-initial", "0.02",
                            "--kube-retry-max", "0.05", "--broker-timeout", "1"});
  ASSERT_TRUE(eventually([&] { return has_event(first_id, "SUCCESS"); })) << agent->log();
  // The apply's prune done too: a heartbeat's GET /version came after the apply.
  ASSERT_TRUE(eventually([&] {
    const Value requests = cluster->requests();
    bool version_after_apply = false;
    for (const Value& request : requests.get_array()) {
      if (text_of(request, "method") == "PATCH") version_after_apply = false;
      if (text_of(request, "path") == "/version") version_after_apply = true;
    }
    return version_after_apply;
  })) << agent->log();
  sindri::http::Client health(health_url(*agent));
  EXPECT_EQ(call(health, "GET", "/readyz").status, 200);

  cluster.reset();
  ASSERT_TRUE(eventually([&] { return call(health, "GET", "/readyz").status == 503; })) << agent->log();
  ASSERT_TRUE(eventually([&] {
    const Reply agent_record = call(*admin_, "GET", "/api/v1/agents/" + agent_id_);
    const Value* reachable = agent_record.json.find("k8s_reachable");
    return reachable && reachable->is_bool() && !reachable->get_bool();
  })) << agent->log();
  EXPECT_EQ(call(health, "GET", "/healthz").status, 200);
  EXPECT_EQ(call(health, "GET", "/health").status, 503);
  EXPECT_TRUE(agent->running());
  EXPECT_EQ(agent->stop(), 0) << agent->log();
}

}  // namespace
}  // namespace sindri_test
