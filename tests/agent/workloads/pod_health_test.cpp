// classify_pods from pod JSON alone: every reason Brokkr's agent counts, the
// phases, no pods, and pods that are not what they should be.
#include "agent/workloads/pod_health.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "value/json.hpp"

namespace sindri::agent {
namespace {

Value json(std::string_view text) {
  auto parsed = parse_json(text);
  EXPECT_TRUE(parsed.ok()) << text;
  return parsed.ok() ? *parsed : Value();
}

// A running, ready pod whose one container has `container_status` merged in.
Value pod(std::string_view name, std::string_view status_members) {
  return json(R"({"metadata":{"name":")" + std::string(name) +
              R"(","namespace":"web"},"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}])" +
              (status_members.empty() ? "" : ",") + std::string(status_members) + "}}");
}

std::vector<std::string> conditions_of(const PodHealth& health) {
  std::vector<std::string> conditions;
  for (const Value& condition : health.summary.find("conditions")->get_array()) {
    conditions.emplace_back(condition.get_string());
  }
  return conditions;
}

TEST(PodHealth, NoPodsIsUnknownWithAnEmptySummary) {
  const PodHealth health = classify_pods({});
  EXPECT_EQ(health.status, "unknown");
  EXPECT_EQ(to_json(health.summary), R"({"conditions":[],"pods_ready":0,"pods_total":0,"resources":[]})");
}

TEST(PodHealth, ReadyRunningPodsAreHealthy) {
  const std::vector<Value> pods = {pod("a", ""), pod("b", "")};
  const PodHealth health = classify_pods(pods);
  EXPECT_EQ(health.status, "healthy");
  EXPECT_EQ(health.summary.find("pods_ready")->get_int(), 2);
  EXPECT_EQ(health.summary.find("pods_total")->get_int(), 2);
}

TEST(PodHealth, EveryDegradedWaitingReasonIsNamedWithItsPod) {
  for (const char* reason : {"ImagePullBackOff", "ErrImagePull", "CrashLoopBackOff", "CreateContainerConfigError",
                             "InvalidImageName", "RunContainerError", "ContainerCannotRun"}) {
    const std::vector<Value> pods = {
        pod("web-1", R"("containerStatuses":[{"name":"app","ready":false,"state":{"waiting":{"reason":")" +
                         std::string(reason) + R"(","message":"it went wrong"}}}])")};
    const PodHealth health = classify_pods(pods);
    EXPECT_EQ(health.status, "degraded") << reason;
    EXPECT_EQ(conditions_of(health), std::vector<std::string>{reason});
    EXPECT_EQ(to_json(*health.summary.find("resources")),
              R"([{"kind":"Pod","message":"it went wrong","name":"web-1","namespace":"web","ready":false}])")
        << reason;
  }
}

TEST(PodHealth, AWaitingReasonWithoutMessageHasANullMessage) {
  const std::vector<Value> pods = {
      pod("web-1", R"("containerStatuses":[{"name":"app","state":{"waiting":{"reason":"ErrImagePull"}}}])")};
  EXPECT_EQ(to_json(*classify_pods(pods).summary.find("resources")),
            R"([{"kind":"Pod","message":null,"name":"web-1","namespace":"web","ready":false}])");
}

TEST(PodHealth, OrdinaryWaitingReasonsAreHealthy) {
  for (const char* reason : {"ContainerCreating", "PodInitializing"}) {
    const std::vector<Value> pods = {
        pod("web-1", R"("containerStatuses":[{"name":"app","state":{"waiting":{"reason":")" + std::string(reason) +
                         R"("}}}])")};
    const PodHealth health = classify_pods(pods);
    EXPECT_EQ(health.status, "healthy") << reason;
    EXPECT_TRUE(conditions_of(health).empty());
  }
}

TEST(PodHealth, TerminatedOomKilledErrorAndCannotRunAreDegraded) {
  for (const char* reason : {"OOMKilled", "Error", "ContainerCannotRun"}) {
    const std::vector<Value> pods = {pod(
        "web-1", R"("containerStatuses":[{"name":"app","state":{"terminated":{"reason":")" + std::string(reason) +
                     R"(","exitCode":137}}}])")};
    const PodHealth health = classify_pods(pods);
    EXPECT_EQ(health.status, "degraded") << reason;
    EXPECT_EQ(conditions_of(health), std::vector<std::string>{reason});
    EXPECT_EQ(health.summary.find("resources")->size(), 0u) << "Brokkr lists only waiting containers";
  }
  const std::vector<Value> completed = {
      pod("job-1", R"("containerStatuses":[{"name":"app","state":{"terminated":{"reason":"Completed"}}}])")};
  EXPECT_EQ(classify_pods(completed).status, "healthy");
}

TEST(PodHealth, OnlyAnOomKillAmongLastTerminationsCounts) {
  const std::vector<Value> oom = {
      pod("web-1", R"("containerStatuses":[{"name":"app","state":{"running":{}},"lastState":{"terminated":{"reason":"OOMKilled"}}}])")};
  EXPECT_EQ(classify_pods(oom).status, "degraded");
  EXPECT_EQ(conditions_of(classify_pods(oom)), std::vector<std::string>{"OOMKilled"});
  const std::vector<Value> error = {
      pod("web-1", R"("containerStatuses":[{"name":"app","state":{"running":{}},"lastState":{"terminated":{"reason":"Error"}}}])")};
  EXPECT_EQ(classify_pods(error).status, "healthy");
}

TEST(PodHealth, InitContainersAreNamedAsSuch) {
  const std::vector<Value> pods = {
      pod("web-1", R"("initContainerStatuses":[{"name":"setup","state":{"waiting":{"reason":"CrashLoopBackOff"}}}])")};
  const PodHealth health = classify_pods(pods);
  EXPECT_EQ(health.status, "degraded");
  EXPECT_EQ(conditions_of(health), std::vector<std::string>{"InitContainer:CrashLoopBackOff"});
}

TEST(PodHealth, PhasesFailedUnknownPendingSucceeded) {
  const auto status_in_phase = [](std::string_view phase) {
    const std::vector<Value> pods = {
        json(R"({"metadata":{"name":"p","namespace":"web"},"status":{"phase":")" + std::string(phase) + R"("}})")};
    return classify_pods(pods);
  };
  EXPECT_EQ(status_in_phase("Failed").status, "failing");
  EXPECT_EQ(conditions_of(status_in_phase("Failed")), std::vector<std::string>{"PodFailed"});
  EXPECT_EQ(status_in_phase("Unknown").status, "unknown");
  EXPECT_TRUE(conditions_of(status_in_phase("Unknown")).empty());
  EXPECT_EQ(status_in_phase("Pending").status, "healthy");
  EXPECT_EQ(status_in_phase("Succeeded").status, "healthy");
  EXPECT_EQ(status_in_phase("Pending").summary.find("pods_ready")->get_int(), 0);
}

TEST(PodHealth, TheWorstPodWinsWhateverTheOrder) {
  const Value failed = json(R"({"metadata":{"name":"a","namespace":"web"},"status":{"phase":"Failed"}})");
  const Value unknown = json(R"({"metadata":{"name":"b","namespace":"web"},"status":{"phase":"Unknown"}})");
  const Value crashing =
      pod("c", R"("containerStatuses":[{"name":"app","state":{"waiting":{"reason":"CrashLoopBackOff"}}}])");
  const Value fine = pod("d", "");
  const std::vector<Value> failed_first = {failed, crashing, unknown, fine};
  const std::vector<Value> failed_last = {fine, unknown, crashing, failed};
  EXPECT_EQ(classify_pods(failed_first).status, "failing");
  EXPECT_EQ(classify_pods(failed_last).status, "failing");
  const std::vector<Value> unknown_then_crashing = {unknown, crashing};
  EXPECT_EQ(classify_pods(unknown_then_crashing).status, "degraded");
  const PodHealth all = classify_pods(failed_last);
  EXPECT_EQ(conditions_of(all), (std::vector<std::string>{"CrashLoopBackOff", "PodFailed"})) << "sorted, once each";
  EXPECT_EQ(all.summary.find("pods_total")->get_int(), 4);
  EXPECT_EQ(all.summary.find("pods_ready")->get_int(), 2);
}

TEST(PodHealth, MalformedPodsNeitherCrashNorCount) {
  const std::vector<Value> pods = {
      json(R"("not a pod")"), json(R"({"status":"Running"})"),
      json(R"({"status":{"containerStatuses":"nope","conditions":[1,{"type":7}],"phase":3}})"),
      json(R"({"status":{"containerStatuses":[null,{"state":{"waiting":{"reason":42}}}]}})")};
  const PodHealth health = classify_pods(pods);
  EXPECT_EQ(health.status, "healthy");
  EXPECT_EQ(health.summary.find("pods_total")->get_int(), 3);
  EXPECT_EQ(health.summary.find("pods_ready")->get_int(), 0);
}

}  // namespace
}  // namespace sindri::agent
