// The agent's telemetry up the broker's channel, end to end: a real
// `sindri agent run` applying a real broker's stack to the Kubernetes API
// test server, its channel pointed (agent.ws_url) at a WebSocket server that
// records frames. Kubernetes events of applied objects, log lines of pods
// that opt in, the rate limit's gap, the gap of lines dropped while the
// channel was down, and bad input from the cluster.

#include <fstream>

#include "agent/agent_process.hpp"
#include "agent/frame_recorder.hpp"
#include "http/websocket_client.hpp"
#include "kube/client.hpp"
#include "kube/config.hpp"
#include "kube/server/kube_test_server.hpp"
#include "value/json.hpp"
#include "value/members.hpp"
#include "value/rfc3339.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri_test {
namespace {

using sindri::Value;

Value yaml(const std::string& text) {
  auto parsed = sindri::parse_yaml(text);
  if (!parsed.ok()) throw std::runtime_error(parsed.error().describe());
  return *parsed;
}

std::string member(const Value& object, std::string_view key) {
  return std::string(sindri::string_member(object, key));
}
bool is_null(const Value& object, std::string_view key) {
  const Value* found = object.find(key);
  return found != nullptr && found->is_null();
}

constexpr const char* kObjects =
    "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: apps\n"
    "---\n"
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n  namespace: apps\nspec:\n  replicas: 1\n";

// A broker with a stack whose deployment object the agent applies to the
// cluster, and the agent's channel going to a recorder.
class AgentTelemetry : public ::testing::Test {
 protected:
  void SetUp() override {
    broker_.start();
    admin_ = broker_.client(broker_.admin_pak());
    Reply generator = call(*admin_, "POST", "/api/v1/generators", R"({"name":"ci"})");
    ASSERT_EQ(generator.status, 201) << generator.body;
    const std::string generator_id = text_of(*generator.json.find("generator"), "id");
    Reply stack = call(*admin_, "POST", "/api/v1/stacks",
                       R"({"name":"web","generator_id":")" + generator_id + R"("})");
    ASSERT_EQ(stack.status, 201) << stack.body;
    stack_id_ = text_of(stack.json, "id");
    ASSERT_EQ(call(*admin_, "POST", "/api/v1/stacks/" + stack_id_ + "/labels", R"("env=prod")").status, 201);
    Reply agent = call(*admin_, "POST", "/api/v1/agents", R"({"name":"a1","cluster_name":"c1"})");
    ASSERT_EQ(agent.status, 201) << agent.body;
    agent_id_ = text_of(*agent.json.find("agent"), "id");
    pak_file_ = broker_.dir() / "agent.pak";
    std::ofstream(pak_file_) << text_of(agent.json, "initial_pak") << "\n";
    ASSERT_EQ(call(*admin_, "POST", "/api/v1/agents/" + agent_id_ + "/labels",
                   R"({"agent_id":")" + agent_id_ + R"(","label":"env=prod"})")
                  .status,
              201);
    Reply object = call(*admin_, "POST", "/api/v1/stacks/" + stack_id_ + "/deployment-objects",
                        R"({"yaml_content":)" + json_string(kObjects) + "}");
    ASSERT_EQ(object.status, 201) << object.body;
  }

  // The agent, its channel going to the recorder, or with `to_broker` to
  // the broker's own.
  std::unique_ptr<AgentProcess> start_agent(const std::vector<std::string>& more = {}, bool to_broker = false) {
    std::vector<std::string> args = {"--broker-url", broker_.url(), "--pak-file", pak_file_.string(),
                                     "--agent-name", "a1", "--cluster-name", "c1", "--sink", "kubernetes",
                                     "--kubeconfig", cluster_.kubeconfig_path(), "--health-port", "0",
                                     "--polling-interval", "0.05", "--task-interval", "0.05",
                                     "--startup-retry-interval", "0.05", "--broker-backoff-initial", "0.02",
                                     "--broker-backoff-max", "0.1", "--kube-retry-initial", "0.02",
                                     "--kube-retry-max", "0.05", "--kube-retry-give-up", "0.2",
                                     "--telemetry-list-interval", "0.05", "--pod-log-interval", "0.05"};
    if (!to_broker) {
      args.push_back("--ws-url");
      args.push_back(recorder_.url());
    }
    args.insert(args.end(), more.begin(), more.end());
    return std::make_unique<AgentProcess>(std::move(args), broker_.dir() / "agent.log");
  }

  // The uid the cluster gave an object, "" while it is not there.
  std::string uid_of(const std::string& kind, const std::string& name) const {
    const Value objects = cluster_.objects();
    for (const Value& object : objects.get_array()) {
      if (text_of(object, "kind") == kind && text_of(*object.find("metadata"), "name") == name) {
        return text_of(*object.find("metadata"), "uid");
      }
    }
    return "";
  }

  // GETs the agent made of `path`.
  size_t requests_to(const std::string& path) const {
    size_t count = 0;
    const Value requests = cluster_.requests();
    for (const Value& request : requests.get_array()) {
      if (text_of(request, "method") == "GET" && text_of(request, "path") == path) ++count;
    }
    return count;
  }

  // A pod annotated as the agent's, opted in to log streaming or not.
  void put_pod(const std::string& name, bool stream_logs, const std::vector<std::string>& containers) {
    std::string text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name +
                       "\n  namespace: apps\n  annotations:\n    k8s.brokkr.io/stack: \"" + stack_id_ + "\"\n";
    if (stream_logs) text += "    brokkr.io/stream-logs: \"true\"\n";
    text += "spec:\n  containers:\n";
    for (const std::string& container : containers) text += "  - name: " + container + "\n    image: busybox\n";
    cluster_.put_object(yaml(text));
  }

  // The log lines sent of one container, in order.
  std::vector<std::string> lines_of(const std::string& pod, const std::string& container) const {
    std::vector<std::string> lines;
    for (const Value& frame : recorder_.frames("pod_log_line")) {
      if (member(frame, "pod") == pod && member(frame, "container") == container) {
        lines.push_back(member(frame, "line"));
      }
    }
    return lines;
  }

  std::vector<Value> gaps(const std::string& reason) const {
    std::vector<Value> found;
    for (const Value& gap : recorder_.frames("log_gap")) {
      if (member(gap, "reason") == reason) found.push_back(gap);
    }
    return found;
  }

  BrokerProcess broker_{Backend::Sqlite};
  KubeTestServer cluster_;
  FrameRecorder recorder_;
  std::unique_ptr<sindri::http::Client> admin_;
  std::string stack_id_, agent_id_;
  fs::path pak_file_;
};

TEST_F(AgentTelemetry, EventsAboutTheStacksObjectsGoUpAsK8sEvents) {
  // An object of the stack with an event from before the agent started: never sent.
  cluster_.put_object(yaml("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: old\n  namespace: apps\n"
                           "  annotations:\n    k8s.brokkr.io/stack: \"" + stack_id_ + "\"\n"));
  const std::string old_uid = uid_of("ConfigMap", "old");
  cluster_.put_object(yaml("apiVersion: v1\nkind: Event\nmetadata:\n  name: old.1\n  namespace: apps\n"
                           "involvedObject:\n  apiVersion: v1\n  kind: ConfigMap\n  namespace: apps\n  name: old\n"
                           "  uid: " + old_uid + "\nreason: Before\nmessage: from before the agent\n"));
  // An object of no stack.
  cluster_.put_object(yaml("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: stranger\n  namespace: apps\n"));
  const std::string stranger_uid = uid_of("ConfigMap", "stranger");

  auto agent = start_agent();
  ASSERT_TRUE(eventually([&] { return !uid_of("Deployment", "api").empty() && recorder_.open_sockets() == 1; }))
      << agent->log();
  // The first list, which sends nothing, is behind us.
  ASSERT_TRUE(eventually([&] { return agent->log().find("(the 1 there already are not sent)") != std::string::npos; }))
      << agent->log();
  const std::string deployment_uid = uid_of("Deployment", "api");

  cluster_.put_object(yaml("apiVersion: v1\nkind: Event\nmetadata:\n  name: api.1\n  namespace: apps\n"
                           "involvedObject:\n  apiVersion: apps/v1\n  kind: Deployment\n  namespace: apps\n"
                           "  name: api\n  uid: " + deployment_uid + "\nreason: ScalingReplicaSet\n"
                           "message: Scaled up replica set api-1 to 1\nsource:\n  component: deployment-controller\n"
                           "lastTimestamp: \"2026-11-27T03:00:00Z\"\ncount: 1\n"));
  // A pod of a ReplicaSet of the Deployment: its events are the stack's too.
  cluster_.put_object(yaml("apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: api-1\n  namespace: apps\n"
                           "  ownerReferences:\n  - {apiVersion: apps/v1, kind: Deployment, name: api, uid: " +
                           deployment_uid + ", controller: true}\n"));
  cluster_.put_object(yaml("apiVersion: v1\nkind: Pod\nmetadata:\n  name: api-1-x\n  namespace: apps\n"
                           "  ownerReferences:\n  - {apiVersion: apps/v1, kind: ReplicaSet, name: api-1, uid: " +
                           uid_of("ReplicaSet", "api-1") + ", controller: true}\n"));
  const std::string pod_uid = uid_of("Pod", "api-1-x");
  cluster_.put_object(yaml("apiVersion: v1\nkind: Event\nmetadata:\n  name: api-1-x.1\n  namespace: apps\n"
                           "involvedObject:\n  apiVersion: v1\n  kind: Pod\n  namespace: apps\n  name: api-1-x\n"
                           "  uid: " + pod_uid + "\nreason: BackOff\ntype: Warning\n"
                           "message: Back-off pulling image\nsource:\n  component: kubelet\n"));
  // Bad input: no involvedObject, one without its uid; then an event with
  // nothing but its involvedObject; events about objects of no stack.
  cluster_.put_object(yaml("apiVersion: v1\nkind: Event\nmetadata:\n  name: bare.1\n  namespace: apps\n"));
  cluster_.put_object(yaml("apiVersion: v1\nkind: Event\nmetadata:\n  name: nouid.1\n  namespace: apps\n"
                           "involvedObject:\n  apiVersion: apps/v1\n  kind: Deployment\n  name: api\n"));
  cluster_.put_object(yaml("apiVersion: v1\nkind: Event\nmetadata:\n  name: stranger.1\n  namespace: apps\n"
                           "involvedObject:\n  apiVersion: v1\n  kind: ConfigMap\n  namespace: apps\n"
                           "  name: stranger\n  uid: " + stranger_uid + "\nreason: Ignored\n"));
  cluster_.put_object(yaml("apiVersion: v1\nkind: Event\nmetadata:\n  name: gone.1\n  namespace: apps\n"
                           "involvedObject:\n  apiVersion: v1\n  kind: ConfigMap\n  namespace: apps\n"
                           "  name: gone\n  uid: 00000000-0000-0000-0000-000000000000\nreason: Ignored\n"));
  cluster_.put_object(yaml("apiVersion: v1\nkind: Event\nmetadata:\n  name: old.2\n  namespace: apps\n"
                           "involvedObject:\n  apiVersion: v1\n  kind: ConfigMap\n  namespace: apps\n  name: old\n"
                           "  uid: " + old_uid + "\n"));

  ASSERT_TRUE(eventually([&] { return recorder_.frames("k8s_event").size() >= 3; })) << agent->log();
  // The second list after them has passed them all: nothing more comes.
  const size_t seen = requests_to("/api/v1/events");
  ASSERT_TRUE(eventually([&] { return requests_to("/api/v1/events") >= seen + 2; })) << agent->log();
  const std::vector<Value> events = recorder_.frames("k8s_event");
  ASSERT_EQ(events.size(), 3u) << sindri::to_json(Value(sindri::Array(events.begin(), events.end())));

  // Events of one list go up in the list's order, by name.
  const auto about = [&](const std::string& name) {
    for (const Value& event : events) {
      if (member(*event.find("involved_object"), "name") == name) return event;
    }
    return Value();
  };
  const Value scaled = about("api");
  ASSERT_TRUE(scaled.is_object());
  EXPECT_EQ(member(scaled, "agent_id"), agent_id_);
  EXPECT_EQ(member(scaled, "stack_id"), stack_id_);
  EXPECT_EQ(member(scaled, "observed_at"), "2026-11-27T03:00:00.000000Z");
  EXPECT_EQ(member(scaled, "reason"), "ScalingReplicaSet");
  EXPECT_EQ(member(scaled, "message"), "Scaled up replica set api-1 to 1");
  EXPECT_EQ(member(scaled, "event_type"), "Normal");
  EXPECT_EQ(member(scaled, "source"), "deployment-controller");
  const Value& involved = *scaled.find("involved_object");
  EXPECT_EQ(member(involved, "api_version"), "apps/v1");
  EXPECT_EQ(member(involved, "kind"), "Deployment");
  EXPECT_EQ(member(involved, "namespace"), "apps");
  EXPECT_EQ(member(involved, "name"), "api");
  EXPECT_EQ(member(involved, "uid"), deployment_uid);

  const Value pulled = about("api-1-x");
  ASSERT_TRUE(pulled.is_object());
  EXPECT_EQ(member(pulled, "stack_id"), stack_id_);
  EXPECT_EQ(member(pulled, "reason"), "BackOff");
  EXPECT_EQ(member(pulled, "event_type"), "Warning");
  EXPECT_EQ(member(pulled, "source"), "kubelet");
  EXPECT_EQ(member(*pulled.find("involved_object"), "kind"), "Pod");
  EXPECT_EQ(member(*pulled.find("involved_object"), "uid"), pod_uid);

  // Every field is there, null when the event has none.
  const Value bare = about("old");
  ASSERT_TRUE(bare.is_object());
  EXPECT_TRUE(is_null(bare, "reason"));
  EXPECT_TRUE(is_null(bare, "message"));
  EXPECT_TRUE(is_null(bare, "source"));
  EXPECT_EQ(member(bare, "event_type"), "Normal");
  EXPECT_TRUE(sindri::rfc3339::parse_micros(member(bare, "observed_at")).has_value());

  // An event updated (its count bumped) goes up again.
  Value updated = yaml("apiVersion: v1\nkind: Event\nmetadata:\n  name: api.1\n  namespace: apps\n"
                       "involvedObject:\n  apiVersion: apps/v1\n  kind: Deployment\n  namespace: apps\n"
                       "  name: api\n  uid: " + deployment_uid + "\nreason: ScalingReplicaSet\n"
                       "message: again\ntype: Warning\ncount: 2\n");
  updated.set("metadata", Value(sindri::Object{{"name", Value("api.1")}, {"namespace", Value("apps")},
                                               {"uid", Value(uid_of("Event", "api.1"))}}));
  cluster_.put_object(updated);
  ASSERT_TRUE(eventually([&] { return recorder_.frames("k8s_event").size() == 4; })) << agent->log();
  EXPECT_EQ(member(recorder_.frames("k8s_event")[3], "message"), "again");
  EXPECT_EQ(member(recorder_.frames("k8s_event")[3], "event_type"), "Warning");

  const std::string log = agent->log();
  EXPECT_NE(log.find("Kubernetes event apps/bare.1 skipped: it has no involvedObject"), std::string::npos) << log;
  EXPECT_NE(log.find("Kubernetes event apps/nouid.1 skipped: its involvedObject has no uid"), std::string::npos)
      << log;
  EXPECT_EQ(agent->stop(), 0) << agent->log();
}

TEST_F(AgentTelemetry, LogLinesOfPodsThatOptInGoUpInOrderAtMostTheRate) {
  put_pod("web-1", true, {"app", "burst"});
  put_pod("quiet", false, {"app"});
  auto agent = start_agent();
  ASSERT_TRUE(eventually([&] {
    const std::string log = agent->log();
    return recorder_.open_sockets() == 1 && log.find("container burst of pod apps/web-1") != std::string::npos;
  })) << agent->log();

  cluster_.append_log("apps", "web-1", "app", "one\ntwo\nthree");
  cluster_.append_log("apps", "quiet", "app", "not for the broker");
  ASSERT_TRUE(eventually([&] { return lines_of("web-1", "app").size() >= 3; })) << agent->log();
  cluster_.append_log("apps", "web-1", "app", "four");
  ASSERT_TRUE(eventually([&] { return lines_of("web-1", "app").size() >= 4; })) << agent->log();
  EXPECT_EQ(lines_of("web-1", "app"), (std::vector<std::string>{"one", "two", "three", "four"}));
  // A line too long for a frame is cut.
  cluster_.append_log("apps", "web-1", "app", std::string(20'000, 'x'));
  ASSERT_TRUE(eventually([&] { return lines_of("web-1", "app").size() >= 5; })) << agent->log();
  EXPECT_EQ(lines_of("web-1", "app")[4], std::string(16 * 1024, 'x'));
  for (const Value& line : recorder_.frames("pod_log_line")) {
    EXPECT_EQ(member(line, "agent_id"), agent_id_);
    EXPECT_EQ(member(line, "stack_id"), stack_id_);
    EXPECT_EQ(member(line, "namespace"), "apps");
    EXPECT_TRUE(sindri::rfc3339::parse_micros(member(line, "ts")).has_value()) << member(line, "ts");
  }

  // 250 lines at once: the first 100 go, and one gap counts the other 150.
  std::string burst;
  for (int i = 1; i <= 250; ++i) burst += "burst " + std::to_string(i) + "\n";
  cluster_.append_log("apps", "web-1", "burst", burst);
  ASSERT_TRUE(eventually([&] { return !gaps("rate_limit").empty(); })) << agent->log();
  const std::vector<std::string> sent = lines_of("web-1", "burst");
  ASSERT_EQ(sent.size(), 100u);
  EXPECT_EQ(sent.front(), "burst 1");
  EXPECT_EQ(sent.back(), "burst 100");
  const std::vector<Value> rate_gaps = gaps("rate_limit");
  ASSERT_EQ(rate_gaps.size(), 1u);
  EXPECT_EQ(rate_gaps[0].find("dropped_count")->get_int(), 150);
  EXPECT_EQ(member(rate_gaps[0], "stack_id"), stack_id_);
  EXPECT_EQ(member(rate_gaps[0], "agent_id"), agent_id_);
  EXPECT_TRUE(sindri::rfc3339::parse_micros(member(rate_gaps[0], "since_ts")).has_value());

  // A pod without the annotation streams nothing.
  for (const std::string& frame : recorder_.all_frames()) {
    EXPECT_EQ(frame.find("quiet"), std::string::npos) << frame;
  }
  EXPECT_EQ(agent->stop(), 0) << agent->log();
}

TEST_F(AgentTelemetry, LinesWhileTheChannelIsDownAreCountedInADisconnectedGap) {
  put_pod("web-1", true, {"app"});
  auto agent = start_agent();
  ASSERT_TRUE(eventually([&] {
    return recorder_.open_sockets() == 1 && agent->log().find("container app of pod apps/web-1") != std::string::npos;
  })) << agent->log();
  cluster_.append_log("apps", "web-1", "app", "before");
  ASSERT_TRUE(eventually([&] { return lines_of("web-1", "app").size() == 1; })) << agent->log();

  recorder_.go_down();
  ASSERT_TRUE(eventually([&] { return agent->log().find("the agent channel ended") != std::string::npos; }))
      << agent->log();
  cluster_.append_log("apps", "web-1", "app", "lost 1\nlost 2\nlost 3\nlost 4\nlost 5\nlost 6\nlost 7");
  // The agent read them while the channel was down: its log reads are past them.
  const std::string log_path = "/api/v1/namespaces/apps/pods/web-1/log";
  const size_t reads = requests_to(log_path);
  ASSERT_TRUE(eventually([&] { return requests_to(log_path) >= reads + 3; })) << agent->log();
  recorder_.come_back();
  ASSERT_TRUE(eventually([&] { return !gaps("disconnected").empty(); })) << agent->log();
  cluster_.append_log("apps", "web-1", "app", "after");
  ASSERT_TRUE(eventually([&] { return lines_of("web-1", "app").size() >= 2; })) << agent->log();

  const std::vector<Value> lost = gaps("disconnected");
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0].find("dropped_count")->get_int(), 7);
  EXPECT_EQ(lines_of("web-1", "app"), (std::vector<std::string>{"before", "after"}));
  // The gap comes before the lines after it.
  std::vector<std::string> order;
  for (const std::string& frame : recorder_.all_frames()) {
    if (frame.find("\"disconnected\"") != std::string::npos) order.push_back("gap");
    if (frame.find("\"after\"") != std::string::npos) order.push_back("after");
  }
  EXPECT_EQ(order, (std::vector<std::string>{"gap", "after"}));
  EXPECT_EQ(agent->stop(), 0) << agent->log();
}

// 20,000 lines read at once, with no rate limit in the way, overflow the
// channel's queue of 4096 frames: every line either goes up, in order, or
// is counted in a buffer_full gap.
TEST_F(AgentTelemetry, LinesOverTheChannelsQueueAreCountedInBufferFullGaps) {
  put_pod("web-1", true, {"app"});
  auto agent = start_agent({"--pod-log-lines-per-second", "1000000"});
  ASSERT_TRUE(eventually([&] {
    return recorder_.open_sockets() == 1 && agent->log().find("container app of pod apps/web-1") != std::string::npos;
  })) << agent->log();
  constexpr int kLines = 20'000;
  std::string flood;
  for (int i = 0; i < kLines; ++i) flood += std::to_string(i) + "\n";
  cluster_.append_log("apps", "web-1", "app", flood);
  const auto accounted = [&] {
    uint64_t dropped = 0;
    for (const Value& gap : gaps("buffer_full")) dropped += static_cast<uint64_t>(gap.find("dropped_count")->get_int());
    return lines_of("web-1", "app").size() + dropped;
  };
  ASSERT_TRUE(eventually([&] { return accounted() == kLines; })) << accounted() << "\n" << agent->log();
  EXPECT_FALSE(gaps("buffer_full").empty());
  const std::vector<std::string> sent = lines_of("web-1", "app");
  for (size_t i = 1; i < sent.size(); ++i) ASSERT_LT(std::stoi(sent[i - 1]), std::stoi(sent[i])) << i;
  EXPECT_EQ(agent->stop(), 0) << agent->log();
}

TEST_F(AgentTelemetry, ALogThatFailsOrAPodDeletedMidStreamIsLoggedAndTheAgentGoesOn) {
  put_pod("web-1", true, {"app"});
  put_pod("doomed", true, {"app"});
  auto agent = start_agent();
  ASSERT_TRUE(eventually([&] {
    const std::string log = agent->log();
    return recorder_.open_sockets() == 1 && log.find("pod apps/web-1") != std::string::npos &&
           log.find("pod apps/doomed") != std::string::npos;
  })) << agent->log();

  cluster_.inject_failures("GET", "/api/v1/namespaces/apps/pods/web-1/log", 404, 3);
  cluster_.inject_failures("GET", "/api/v1/namespaces/apps/pods/doomed/log", 400, 3);
  cluster_.append_log("apps", "web-1", "app", "kept");
  cluster_.append_log("apps", "doomed", "app", "last words");
  ASSERT_TRUE(eventually([&] { return lines_of("web-1", "app").size() == 1 && lines_of("doomed", "app").size() == 1; }))
      << agent->log();

  // The pod goes while its log is followed.
  auto config = sindri::kube::load_kubeconfig(
      sindri::kube::KubeconfigOptions{.path = cluster_.kubeconfig_path(), .context = "test"});
  ASSERT_TRUE(config.ok()) << config.error().message;
  sindri::kube::Client client(*config);
  auto pod_type = client.find_type("v1", "Pod");
  ASSERT_TRUE(pod_type.ok()) << pod_type.error().message;
  ASSERT_TRUE(client.remove(*pod_type, "apps", "doomed").ok());
  const std::string forgotten = "no longer following the log of container app of pod apps/doomed";
  ASSERT_TRUE(eventually([&] { return agent->log().find(forgotten) != std::string::npos; })) << agent->log();
  cluster_.append_log("apps", "web-1", "app", "still here");
  ASSERT_TRUE(eventually([&] { return lines_of("web-1", "app").size() == 2; })) << agent->log();
  EXPECT_EQ(lines_of("web-1", "app"), (std::vector<std::string>{"kept", "still here"}));

  const std::string log = agent->log();
  EXPECT_NE(log.find("the log of container app of pod apps/web-1: "), std::string::npos) << log;
  EXPECT_NE(log.find("404"), std::string::npos) << log;
  EXPECT_NE(log.find("the log of container app of pod apps/web-1 reads again"), std::string::npos) << log;
  EXPECT_TRUE(agent->running());
  EXPECT_EQ(agent->stop(), 0) << agent->log();
}

// A pod deleted and created again under its name (a StatefulSet's): the new
// pod's lines go up once, though the log is read by the pod's name.
TEST_F(AgentTelemetry, APodRecreatedUnderItsNameSendsEachLineOnce) {
  put_pod("db-0", true, {"app"});
  auto agent = start_agent();
  ASSERT_TRUE(eventually([&] { return agent->log().find("pod apps/db-0") != std::string::npos; })) << agent->log();
  cluster_.append_log("apps", "db-0", "app", "first life");
  ASSERT_TRUE(eventually([&] { return lines_of("db-0", "app").size() == 1; })) << agent->log();
  auto config = sindri::kube::load_kubeconfig(
      sindri::kube::KubeconfigOptions{.path = cluster_.kubeconfig_path(), .context = "test"});
  ASSERT_TRUE(config.ok()) << config.error().message;
  sindri::kube::Client client(*config);
  auto pod_type = client.find_type("v1", "Pod");
  ASSERT_TRUE(pod_type.ok()) << pod_type.error().message;
  ASSERT_TRUE(client.remove(*pod_type, "apps", "db-0").ok());
  put_pod("db-0", true, {"app"});
  cluster_.append_log("apps", "db-0", "app", "second life");
  ASSERT_TRUE(eventually([&] { return lines_of("db-0", "app").size() >= 2; })) << agent->log();
  // Two scans and reads later, nothing came twice.
  const size_t reads = requests_to("/api/v1/namespaces/apps/pods/db-0/log");
  ASSERT_TRUE(eventually([&] { return requests_to("/api/v1/namespaces/apps/pods/db-0/log") >= reads + 4; }));
  EXPECT_EQ(lines_of("db-0", "app"), (std::vector<std::string>{"first life", "second life"})) << agent->log();
  EXPECT_EQ(agent->stop(), 0) << agent->log();
}

// A channel the broker refuses for good (401, five times in a row) ends
// the telemetry: nothing it reads could ever be sent.
TEST_F(AgentTelemetry, TelemetryStopsWhenTheBrokerRefusesTheChannelForGood) {
  put_pod("web-1", true, {"app"});
  auto agent = start_agent();
  ASSERT_TRUE(eventually([&] {
    return recorder_.open_sockets() == 1 && agent->log().find("container app of pod apps/web-1") != std::string::npos;
  })) << agent->log();
  recorder_.go_down(401);
  ASSERT_TRUE(eventually([&] { return agent->log().find("sending no telemetry") != std::string::npos; }))
      << agent->log();
  const std::string log_path = "/api/v1/namespaces/apps/pods/web-1/log";
  const size_t reads = requests_to(log_path);
  // Ten of the intervals the log would be read at.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_LE(requests_to(log_path), reads + 1);  // one read may have been under way
  EXPECT_TRUE(agent->running());
  EXPECT_EQ(agent->stop(), 0) << agent->log();
}

TEST_F(AgentTelemetry, NothingIsSentWithTelemetryOff) {
  put_pod("web-1", true, {"app"});
  auto agent = start_agent({"--telemetry", "false"});
  ASSERT_TRUE(eventually([&] { return !uid_of("Deployment", "api").empty() && recorder_.open_sockets() == 1; }))
      << agent->log();
  cluster_.append_log("apps", "web-1", "app", "unheard");
  // Ten of the intervals telemetry would list and read at.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(agent->log().find("Kubernetes events"), std::string::npos) << agent->log();
  EXPECT_EQ(requests_to("/api/v1/namespaces/apps/pods/web-1/log"), 0u);
  EXPECT_TRUE(recorder_.frames("pod_log_line").empty());
  EXPECT_EQ(agent->stop(), 0) << agent->log();
}

// Through the real broker: what the agent streams is stored for the
// stack's history and shown to its live viewers as it arrives.
TEST_F(AgentTelemetry, WhatTheAgentStreamsReachesTheStacksHistoryAndLiveView) {
  put_pod("web-1", true, {"app"});
  sindri::http::WebSocketClientOptions options;
  options.headers = {{"Authorization", "Bearer " + broker_.admin_pak()}};
  sindri::http::WebSocketEnd failure;
  auto view = sindri::http::WebSocketClient::connect(
      "ws://127.0.0.1:" + std::to_string(broker_.port()) + "/api/v1/stacks/" + stack_id_ + "/live", options, failure);
  ASSERT_NE(view, nullptr) << failure.message;
  auto agent = start_agent({}, true);
  ASSERT_TRUE(eventually([&] {
    Reply connections = call(*admin_, "GET", "/api/v1/admin/ws/connections");
    return connections.json.find("connected_agents")->get_int() == 1 &&
           connections.json.find("live_subscribers")->get_int() == 1 && !uid_of("Deployment", "api").empty() &&
           agent->log().find("container app of pod apps/web-1") != std::string::npos &&
           agent->log().find("(the 0 there already are not sent)") != std::string::npos;
  })) << agent->log();

  cluster_.append_log("apps", "web-1", "app", "hello, broker");
  const std::string deployment_uid = uid_of("Deployment", "api");
  cluster_.put_object(yaml("apiVersion: v1\nkind: Event\nmetadata:\n  name: api.1\n  namespace: apps\n"
                           "involvedObject:\n  apiVersion: apps/v1\n  kind: Deployment\n  namespace: apps\n"
                           "  name: api\n  uid: " + deployment_uid + "\nreason: ScalingReplicaSet\n"
                           "message: Scaled up replica set api-1 to 1\n"));
  Reply lines, events;
  ASSERT_TRUE(eventually([&] {
    lines = call(*admin_, "GET", "/api/v1/stacks/" + stack_id_ + "/logs");
    events = call(*admin_, "GET", "/api/v1/stacks/" + stack_id_ + "/events");
    return lines.json.find("lines")->size() == 1 && events.json.find("events")->size() == 1;
  })) << lines.body << events.body << agent->log();
  EXPECT_EQ(text_of(*lines.json.find("lines")->at(0), "line"), "hello, broker");
  EXPECT_EQ(text_of(*lines.json.find("lines")->at(0), "agent_id"), agent_id_);
  EXPECT_EQ(text_of(*events.json.find("events")->at(0), "reason"), "ScalingReplicaSet");
  EXPECT_EQ(text_of(*events.json.find("events")->at(0)->find("involved_object"), "uid"), deployment_uid);

  std::vector<std::string> shown;
  while (auto frame = view->read(std::chrono::seconds(5))) {
    auto parsed = sindri::parse_json(*frame);
    ASSERT_TRUE(parsed.ok()) << *frame;
    shown.push_back(text_of(*parsed, "type"));
    if (std::count(shown.begin(), shown.end(), "pod_log_line") == 1 &&
        std::count(shown.begin(), shown.end(), "k8s_event") == 1) {
      break;
    }
  }
  EXPECT_EQ(std::count(shown.begin(), shown.end(), "pod_log_line"), 1);
  EXPECT_EQ(std::count(shown.begin(), shown.end(), "k8s_event"), 1);
  EXPECT_EQ(agent->stop(), 0) << agent->log();
}

}  // namespace
}  // namespace sindri_test
