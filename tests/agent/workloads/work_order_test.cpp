// run_work_order against the Kubernetes API test server: a custom work
// order's Job watched until the test marks it Complete or Failed, the claim
// timeout, the stop flag, YAML and kinds that are wrong, and a Shipwright
// build.
#include "agent/workloads/work_order.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>

#include "test_cluster.hpp"
#include "value/object_literal.hpp"

namespace sindri::agent {
namespace {

constexpr std::string_view kJobYaml = R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: migrate-settings
data:
  target: "42"
---
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: migrate
        image: migrate:1
)";

constexpr std::string_view kJobPath = "/apis/batch/v1/namespaces/default/jobs/migrate";

class WorkOrders : public ClusterTest {
 protected:
  static Value work_order(std::string_view work_type, std::string_view yaml, double claim_timeout_seconds = 3600) {
    return make_object({{"id", "0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d"},
                        {"work_type", work_type},
                        {"yaml_content", yaml},
                        {"status", "CLAIMED"},
                        {"claim_timeout_seconds", claim_timeout_seconds}});
  }

  // Hundredths of a second: a test's watch reads many times in a fraction of a second.
  static constexpr WorkOrderTiming kTiming{.job_poll_interval = 0.01,
                                           .claim_timeout_seconds = 3600,
                                           .claim_margin_floor_seconds = 0.01};

  // A work order running on another thread. Dropped unfinished (a failed
  // ASSERT), it stops the agent first, so a test never waits out a claim.
  class Running {
   public:
    Running(std::future<WorkOrderOutcome> outcome, std::atomic<bool>& stopping)
        : outcome_(std::move(outcome)), stopping_(stopping) {}
    ~Running() {
      if (outcome_.valid()) {
        stopping_ = true;
        outcome_.wait();
      }
    }
    WorkOrderOutcome get() { return outcome_.get(); }

   private:
    std::future<WorkOrderOutcome> outcome_;
    std::atomic<bool>& stopping_;
  };

  Running start(Value order, const WorkOrderTiming& timing = kTiming) {
    return Running(std::async(std::launch::async,
                              [this, order = std::move(order), timing] {
                                return run_work_order(client(), order, timing, stopping_);
                              }),
                   stopping_);
  }

  // Waits (a bounded number of short looks) until the server has seen
  // `count` requests of `method` to `path`.
  static bool await_requests(std::string_view method, std::string_view path, size_t count = 1) {
    for (int look = 0; look < 2000; ++look) {
      if (requests_to(method, path) >= count) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
  }

  // The stored object at `path`'s kind and name, with `status` set as a controller would.
  static void set_status(std::string_view kind, std::string_view name, std::string_view status_yaml) {
    for (const Value objects = server().objects(); const Value& object : objects.get_array()) {
      if (object.find("kind")->get_string() != kind || object.find("metadata")->find("name")->get_string() != name) {
        continue;
      }
      Value updated = object;
      updated.set("status", yaml(status_yaml));
      server().put_object(updated);
      return;
    }
    ADD_FAILURE() << "no " << kind << " " << name << " stored";
  }

  static size_t applies() {
    size_t count = 0;
    for (const Value requests = server().requests(); const Value& request : requests.get_array()) {
      if (request.find("method")->get_string() == "PATCH") ++count;
    }
    return count;
  }

  std::atomic<bool> stopping_{false};
};

TEST_F(WorkOrders, ACustomWorkOrderSucceedsWhenItsJobCompletes) {
  auto outcome = start(work_order("custom", kJobYaml));
  ASSERT_TRUE(await_requests("GET", kJobPath, 2)) << "the Job is watched";
  set_status("Job", "migrate", "{conditions: [{type: Complete, status: 'True'}], succeeded: 1}");
  const WorkOrderOutcome result = outcome.get();
  EXPECT_TRUE(result.success) << result.message;
  EXPECT_NE(result.message.find("default/migrate completed"), std::string::npos) << result.message;
  EXPECT_NE(result.message.find("ConfigMap migrate-settings"), std::string::npos) << result.message;

  // Both documents applied in order, server-side, as brokkr-agent, forced; no dry run.
  std::vector<Value> patches;
  for (const Value requests = server().requests(); const Value& request : requests.get_array()) {
    if (request.find("method")->get_string() == "PATCH") patches.push_back(request);
  }
  ASSERT_EQ(patches.size(), 2u);
  EXPECT_EQ(patches[0].find("path")->get_string(), "/api/v1/namespaces/default/configmaps/migrate-settings");
  EXPECT_EQ(patches[1].find("path")->get_string(), kJobPath);
  for (const Value& patch : patches) {
    EXPECT_EQ(patch.find("content_type")->get_string(), "application/apply-patch+yaml");
    const std::string_view query = patch.find("query")->get_string();
    EXPECT_NE(query.find("fieldManager=brokkr-agent"), std::string_view::npos) << query;
    EXPECT_NE(query.find("force=true"), std::string_view::npos) << query;
    EXPECT_EQ(query.find("dryRun"), std::string_view::npos) << query;
  }
}

TEST_F(WorkOrders, AFailedJobIsAFailureNotWorthRetrying) {
  auto outcome = start(work_order("custom", kJobYaml));
  ASSERT_TRUE(await_requests("GET", kJobPath));
  set_status("Job", "migrate",
             "{conditions: [{type: Failed, status: 'True', reason: BackoffLimitExceeded, message: 'Job has reached "
             "the specified backoff limit'}], failed: 7}");
  const WorkOrderOutcome result = outcome.get();
  EXPECT_FALSE(result.success);
  EXPECT_FALSE(result.retryable);
  EXPECT_NE(result.message.find("Job default/migrate ran and failed: BackoffLimitExceeded: Job has reached"),
            std::string::npos)
      << result.message;
  EXPECT_NE(result.message.find("work order 0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d"), std::string::npos);
}

TEST_F(WorkOrders, FailedPodsOfAJobStillRetryingAreNotTheEnd) {
  auto outcome = start(work_order("custom", kJobYaml));
  ASSERT_TRUE(await_requests("GET", kJobPath));
  set_status("Job", "migrate",
             "{failed: 2, active: 1, conditions: [{type: Failed, status: 'False'}, {type: FailureTarget, status: 'True'}]}");
  const size_t reads_before = requests_to("GET", std::string(kJobPath));
  ASSERT_TRUE(await_requests("GET", kJobPath, reads_before + 2)) << "still watched";
  set_status("Job", "migrate", "{conditions: [{type: Complete, status: 'True'}]}");
  EXPECT_TRUE(outcome.get().success);
}

TEST_F(WorkOrders, AJobStillRunningWhenTheClaimTimeoutNearsIsARetryableFailure) {
  // 0.3 s of claim less 10% (the floor is 0.01 s here): the watch gives up at 0.27 s.
  const WorkOrderOutcome result = run_work_order(client(), work_order("custom", kJobYaml, 0.3), kTiming, stopping_);
  EXPECT_FALSE(result.success);
  EXPECT_TRUE(result.retryable);
  EXPECT_NE(result.message.find("Job default/migrate had not finished when the work order's claim timeout (0.3 s)"),
            std::string::npos)
      << result.message;
  EXPECT_NE(result.message.find("not cancelled"), std::string::npos);
  EXPECT_GE(requests_to("GET", kJobPath), 1u) << "read before giving up, however late the watch began";
}

TEST_F(WorkOrders, AClaimTimeoutWithinTheMarginStillReadsTheJobOnce) {
  put("{apiVersion: batch/v1, kind: Job, metadata: {name: migrate, namespace: default}, spec: {}, status: "
      "{conditions: [{type: Complete, status: 'True'}]}}");
  WorkOrderTiming timing = kTiming;
  timing.claim_margin_floor_seconds = 60;  // Brokkr's: a claim of 1 s leaves no time to watch
  const WorkOrderOutcome result = run_work_order(client(), work_order("custom", kJobYaml, 1), timing, stopping_);
  EXPECT_TRUE(result.success) << result.message;
  EXPECT_EQ(requests_to("GET", kJobPath), 1u);
}

TEST_F(WorkOrders, AWorkOrderWithoutClaimTimeoutTakesTheSetting) {
  Value order = work_order("custom", kJobYaml);
  order.erase("claim_timeout_seconds");
  WorkOrderTiming timing = kTiming;
  timing.claim_timeout_seconds = 0.1;
  const WorkOrderOutcome result = run_work_order(client(), order, timing, stopping_);
  EXPECT_TRUE(result.retryable);
  EXPECT_NE(result.message.find("claim timeout (0.1 s)"), std::string::npos) << result.message;
}

TEST_F(WorkOrders, ClaimTimeoutsOutOfRangeAreBounded) {
  const WorkOrderOutcome negative =
      run_work_order(client(), work_order("custom", kJobYaml, -5), kTiming, stopping_);
  EXPECT_TRUE(negative.retryable);
  EXPECT_EQ(requests_to("GET", kJobPath), 1u) << "no time to watch: one read";

  auto huge = start(work_order("custom", kJobYaml, 1e300));
  ASSERT_TRUE(await_requests("GET", kJobPath, 2));
  stopping_ = true;
  EXPECT_TRUE(huge.get().retryable);
}

TEST_F(WorkOrders, StoppingEndsTheWatchWithARetryableFailure) {
  auto outcome = start(work_order("custom", kJobYaml));
  ASSERT_TRUE(await_requests("GET", kJobPath));
  stopping_ = true;
  const WorkOrderOutcome result = outcome.get();
  EXPECT_FALSE(result.success);
  EXPECT_TRUE(result.retryable);
  EXPECT_NE(result.message.find("Job default/migrate was still running when the agent stopped"), std::string::npos)
      << result.message;
}

TEST_F(WorkOrders, AnAgentAlreadyStoppingAppliesNothing) {
  stopping_ = true;
  const WorkOrderOutcome result = run_work_order(client(), work_order("custom", kJobYaml), kTiming, stopping_);
  EXPECT_FALSE(result.success);
  EXPECT_TRUE(result.retryable);
  EXPECT_EQ(server().requests().size(), 0u);
}

TEST_F(WorkOrders, AJobDeletedWhileWatchedIsAFailureNotWorthRetrying) {
  auto outcome = start(work_order("custom", kJobYaml));
  ASSERT_TRUE(await_requests("GET", kJobPath));
  auto job_type = client().find_type("batch/v1", "Job");
  ASSERT_TRUE(job_type.ok());
  ASSERT_TRUE(client().remove(*job_type, "default", "migrate").ok());
  const WorkOrderOutcome result = outcome.get();
  EXPECT_FALSE(result.retryable);
  EXPECT_NE(result.message.find("Job default/migrate was applied but no longer exists"), std::string::npos)
      << result.message;
}

TEST_F(WorkOrders, AWorkOrderWithoutJobsSucceedsOnceApplied) {
  const WorkOrderOutcome result = run_work_order(
      client(), work_order("custom", "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}"), kTiming, stopping_);
  EXPECT_TRUE(result.success) << result.message;
  EXPECT_NE(result.message.find("nothing was watched"), std::string::npos) << result.message;
  EXPECT_EQ(applies(), 1u);
}

TEST_F(WorkOrders, UnparseableYamlIsAFailureNamingTheDocumentAndAppliesNothing) {
  const WorkOrderOutcome result = run_work_order(
      client(), work_order("custom", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\nkind: [unclosed\n"),
      kTiming, stopping_);
  EXPECT_FALSE(result.success);
  EXPECT_FALSE(result.retryable);
  EXPECT_NE(result.message.find("document 2: unparseable YAML at line"), std::string::npos) << result.message;
  EXPECT_EQ(applies(), 0u);
}

TEST_F(WorkOrders, DocumentsThatAreNoObjectsAreFailuresNamingThem) {
  const struct {
    std::string_view yaml, expected;
  } cases[] = {
      {"- a\n- b\n", "document 1: a YAML array, not a Kubernetes object"},
      {"---\n---\n", "holds no document"},
      {"{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n---\n{kind: ConfigMap, metadata: {name: b}}",
       "document 2 ( ConfigMap b): no apiVersion or kind"},
      {"{apiVersion: batch/v1, kind: Job, metadata: {generateName: migrate-}}",
       "document 1 (batch/v1 Job): no metadata.name"},
  };
  for (const auto& [yaml_text, expected] : cases) {
    server().clear_requests();
    const WorkOrderOutcome result = run_work_order(client(), work_order("custom", yaml_text), kTiming, stopping_);
    EXPECT_FALSE(result.success);
    EXPECT_FALSE(result.retryable);
    EXPECT_NE(result.message.find(expected), std::string::npos) << result.message;
    EXPECT_EQ(applies(), 0u) << yaml_text;
  }
}

TEST_F(WorkOrders, AnUnknownKindFailsBeforeAnythingIsApplied) {
  const WorkOrderOutcome result = run_work_order(
      client(),
      work_order("custom",
                 "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n---\n"
                 "{apiVersion: example.com/v1, kind: Widget, metadata: {name: w}}"),
      kTiming, stopping_);
  EXPECT_FALSE(result.success);
  EXPECT_FALSE(result.retryable);
  EXPECT_NE(result.message.find("document 2 (example.com/v1 Widget w): the cluster serves no kind Widget"),
            std::string::npos)
      << result.message;
  EXPECT_EQ(applies(), 0u);
}

TEST_F(WorkOrders, AnApplyTheServerRefusesNamesTheDocumentAndItsReason) {
  const WorkOrderOutcome result = run_work_order(
      client(), work_order("custom", "{apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: nowhere}}"),
      kTiming, stopping_);
  EXPECT_FALSE(result.success);
  EXPECT_FALSE(result.retryable) << "a namespace that does not exist will not appear by itself";
  EXPECT_NE(result.message.find("document 1 (v1 ConfigMap nowhere/a)"), std::string::npos) << result.message;
  EXPECT_NE(result.message.find("nowhere"), std::string::npos);
}

TEST_F(WorkOrders, AnApiServerThatKeepsFailingIsARetryableFailure) {
  server().inject_failures("PATCH", "/api/v1/namespaces/default/configmaps/a", 503, 1000);
  const WorkOrderOutcome result = run_work_order(
      client(), work_order("custom", "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}"), kTiming, stopping_);
  EXPECT_FALSE(result.success);
  EXPECT_TRUE(result.retryable) << result.message;
  EXPECT_GE(requests_to("PATCH", "/api/v1/namespaces/default/configmaps/a"), 2u) << "the client retried first";
}

TEST_F(WorkOrders, UnknownWorkTypesAndMalformedWorkOrdersAreNotRetried) {
  const WorkOrderOutcome unknown = run_work_order(client(), work_order("deploy", kJobYaml), kTiming, stopping_);
  EXPECT_FALSE(unknown.retryable);
  EXPECT_NE(unknown.message.find("unknown work type \"deploy\""), std::string::npos) << unknown.message;
  for (const Value& order : {Value("a string"), make_object({{"work_type", "custom"}, {"yaml_content", "{}"}}),
                             make_object({{"id", "x"}, {"work_type", "custom"}, {"yaml_content", 7}})}) {
    const WorkOrderOutcome result = run_work_order(client(), order, kTiming, stopping_);
    EXPECT_FALSE(result.success);
    EXPECT_FALSE(result.retryable);
  }
  EXPECT_EQ(server().requests().size(), 0u);
}

constexpr std::string_view kShipwrightCrds = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: builds.shipwright.io}
spec:
  group: shipwright.io
  scope: Namespaced
  names: {kind: Build, plural: builds, singular: build, listKind: BuildList}
  versions:
  - {name: v1beta1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: buildruns.shipwright.io}
spec:
  group: shipwright.io
  scope: Namespaced
  names: {kind: BuildRun, plural: buildruns, singular: buildrun, listKind: BuildRunList}
  versions:
  - {name: v1beta1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
)";

constexpr std::string_view kBuildYaml = R"(apiVersion: shipwright.io/v1beta1
kind: Build
metadata:
  name: app
  namespace: builds
spec:
  source: {type: Git, git: {url: 'https://example.com/app.git'}}
  strategy: {name: buildah, kind: ClusterBuildStrategy}
  output: {image: registry.example.com/app}
---
apiVersion: brokkr.io/v1
kind: WorkOrder
metadata:
  name: build-app
spec:
  buildRef: {name: ignored-since-a-build-is-named}
)";

class BuildWorkOrders : public WorkOrders {
 protected:
  void SetUp() override {
    WorkOrders::SetUp();
    put("{apiVersion: v1, kind: Namespace, metadata: {name: builds}}");
    auto crds = parse_yaml_stream(kShipwrightCrds);
    ASSERT_TRUE(crds.ok());
    auto crd_type = client().find_type("apiextensions.k8s.io/v1", "CustomResourceDefinition");
    ASSERT_TRUE(crd_type.ok());
    for (const YamlDocument& crd : *crds) {
      ASSERT_TRUE(client().apply(*crd_type, "", crd.value, kube::ApplyOptions{.field_manager = "test"}).ok());
    }
    server().clear_requests();
  }
  static constexpr std::string_view kBuildRunPath = "/apis/shipwright.io/v1beta1/namespaces/builds/buildruns/app-0a1b2c3d";
};

TEST_F(BuildWorkOrders, ABuildAppliesItsBuildRunsItAndReportsTheImageDigest) {
  auto outcome = start(work_order("build", kBuildYaml));
  ASSERT_TRUE(await_requests("GET", kBuildRunPath));
  set_status("BuildRun", "app-0a1b2c3d",
             "{conditions: [{type: Succeeded, status: 'True'}], output: {digest: 'sha256:abc123', size: 1024}}");
  const WorkOrderOutcome result = outcome.get();
  EXPECT_TRUE(result.success) << result.message;
  EXPECT_EQ(result.message, "sha256:abc123");

  EXPECT_EQ(requests_to("PATCH", "/apis/shipwright.io/v1beta1/namespaces/builds/builds/app"), 1u);
  EXPECT_EQ(requests_to("PATCH", kBuildRunPath), 1u);
  for (const Value objects = server().objects(); const Value& object : objects.get_array()) {
    if (object.find("kind")->get_string() != "BuildRun") continue;
    EXPECT_EQ(to_json(*object.find("spec")), R"({"build":{"name":"app"}})");
    const Value* labels = object.find("metadata")->find("labels");
    EXPECT_EQ(labels->find("brokkr.io/work-order-id")->get_string(), "0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d");
    EXPECT_EQ(labels->find("shipwright.io/build")->get_string(), "app");
  }
}

TEST_F(BuildWorkOrders, AFailedBuildRunGivesItsFailureDetails) {
  auto outcome = start(work_order("build", kBuildYaml));
  ASSERT_TRUE(await_requests("GET", kBuildRunPath));
  set_status("BuildRun", "app-0a1b2c3d",
             "{conditions: [{type: Succeeded, status: 'False', message: generic}], failureDetails: {reason: "
             "StepFailed, message: 'buildah exited 1'}}");
  const WorkOrderOutcome result = outcome.get();
  EXPECT_FALSE(result.success);
  EXPECT_FALSE(result.retryable);
  EXPECT_NE(result.message.find("BuildRun builds/app-0a1b2c3d failed: StepFailed: buildah exited 1"),
            std::string::npos)
      << result.message;
}

TEST_F(BuildWorkOrders, AWorkOrderBuildRefNamesTheBuildWhenNoBuildIsGiven) {
  auto outcome = start(work_order("build", "{apiVersion: brokkr.io/v1, kind: WorkOrder, metadata: {name: w}, spec: "
                                           "{buildRef: {name: existing}}}"));
  const std::string path = "/apis/shipwright.io/v1beta1/namespaces/default/buildruns/existing-0a1b2c3d";
  ASSERT_TRUE(await_requests("GET", path));
  set_status("BuildRun", "existing-0a1b2c3d", "{conditions: [{type: Succeeded, status: 'True'}]}");
  const WorkOrderOutcome result = outcome.get();
  EXPECT_TRUE(result.success);
  EXPECT_EQ(result.message, "BuildRun default/existing-0a1b2c3d succeeded");
}

TEST_F(BuildWorkOrders, NoBuildAtAllIsAFailureNotWorthRetrying) {
  const WorkOrderOutcome result = run_work_order(
      client(), work_order("build", "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}"), kTiming, stopping_);
  EXPECT_FALSE(result.retryable);
  EXPECT_NE(result.message.find("no Shipwright Build"), std::string::npos) << result.message;
  EXPECT_EQ(applies(), 0u);
}

TEST_F(WorkOrders, ABuildWithoutShipwrightInstalledSaysSo) {
  const WorkOrderOutcome result = run_work_order(
      client(), work_order("build", "{apiVersion: brokkr.io/v1, kind: WorkOrder, metadata: {name: w}, spec: {buildRef: "
                                    "{name: existing}}}"),
      kTiming, stopping_);
  EXPECT_FALSE(result.retryable);
  EXPECT_NE(result.message.find("is Shipwright installed?"), std::string::npos) << result.message;
}

}  // namespace
}  // namespace sindri::agent
