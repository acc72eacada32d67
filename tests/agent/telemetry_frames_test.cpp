// The pieces of the agent's telemetry that need no cluster: the log rate
// limit's windows and counts, and the k8s_event frame's fields.

#include <gtest/gtest.h>

#include "agent/kube_events.hpp"
#include "agent/pod_logs.hpp"
#include "value/json.hpp"
#include "value/members.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::agent {
namespace {

using namespace std::chrono_literals;

Value yaml(std::string_view text) {
  auto parsed = parse_yaml(text);
  EXPECT_TRUE(parsed.ok());
  return parsed.ok() ? *parsed : Value();
}

TEST(LogRateLimit, AdmitsTheLimitEachSecondAndCountsEveryLineDropped) {
  LogRateLimit limit(100);
  const auto start = LogRateLimit::Clock::now();
  int admitted = 0;
  for (int line = 1; line <= 250; ++line) admitted += limit.admit(start, std::to_string(line)) ? 1 : 0;
  EXPECT_EQ(admitted, 100);
  EXPECT_TRUE(limit.take_closed(start + 999ms).empty());  // the second is not over

  const auto closed = limit.take_closed(start + 1s);
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_EQ(closed[0].lines, 150u);
  EXPECT_EQ(closed[0].first_stamp, "101");
  EXPECT_TRUE(limit.take_closed(start + 2s).empty());

  // A second with lines over the limit, closed by the next line: one entry each.
  for (int line = 1; line <= 102; ++line) limit.admit(start + 3s, "a" + std::to_string(line));
  EXPECT_TRUE(limit.admit(start + 4s, "b1"));
  for (int line = 2; line <= 105; ++line) limit.admit(start + 4s + 10ms, "b" + std::to_string(line));
  const auto two = limit.take_closed(start + 6s);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].lines, 2u);
  EXPECT_EQ(two[0].first_stamp, "a101");
  EXPECT_EQ(two[1].lines, 5u);
  EXPECT_EQ(two[1].first_stamp, "b101");
}

TEST(KubeEventFrame, CarriesEveryFieldNullWhenAbsent) {
  const Value event = yaml(
      "metadata: {name: api.1, namespace: apps}\n"
      "involvedObject: {apiVersion: apps/v1, kind: Deployment, namespace: apps, name: api, uid: u-1}\n"
      "reason: ScalingReplicaSet\nmessage: Scaled up\ntype: Warning\nsource: {component: deployment-controller}\n"
      "eventTime: \"2026-11-27T03:00:00.5+01:00\"\nlastTimestamp: \"2026-11-27T04:00:00Z\"\n");
  auto parsed = parse_json(KubeEventForwarder::frame(event, "agent-1", "stack-1"));
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(string_member(*parsed, "type"), "k8s_event");
  const Value& body = *parsed->find("body");
  EXPECT_EQ(string_member(body, "agent_id"), "agent-1");
  EXPECT_EQ(string_member(body, "stack_id"), "stack-1");
  EXPECT_EQ(string_member(body, "observed_at"), "2026-11-27T02:00:00.500000Z");  // eventTime first, in UTC
  EXPECT_EQ(string_member(body, "event_type"), "Warning");
  EXPECT_EQ(string_member(body, "source"), "deployment-controller");
  EXPECT_EQ(string_member(*body.find("involved_object"), "uid"), "u-1");

  const Value bare = yaml("metadata: {name: x.1}\ninvolvedObject: {kind: Node, name: n1, uid: u-2}\n"
                          "lastTimestamp: \"2026-11-27T04:00:00Z\"\n");
  auto minimal = parse_json(KubeEventForwarder::frame(bare, "agent-1", "stack-1"));
  ASSERT_TRUE(minimal.ok());
  const Value& fields = *minimal->find("body");
  EXPECT_EQ(string_member(fields, "observed_at"), "2026-11-27T04:00:00.000000Z");
  EXPECT_EQ(string_member(fields, "event_type"), "Normal");
  for (const char* absent : {"reason", "message", "source"}) {
    ASSERT_NE(fields.find(absent), nullptr) << absent;
    EXPECT_TRUE(fields.find(absent)->is_null()) << absent;
  }
  const Value& involved = *fields.find("involved_object");
  EXPECT_TRUE(involved.find("api_version")->is_null());
  EXPECT_TRUE(involved.find("namespace")->is_null());
  EXPECT_EQ(string_member(involved, "kind"), "Node");
}

}  // namespace
}  // namespace sindri::agent
