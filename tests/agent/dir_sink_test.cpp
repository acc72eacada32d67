// The directory sink and the reconciler on it, in-process: file names,
// annotations, all-or-nothing applies, pruning only what this agent owns,
// ownership read back after a restart, and a poll that changes nothing
// touching nothing.

#include "agent/dir_sink.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "agent/documents.hpp"
#include "agent/reconciler.hpp"
#include "value/file_text.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::agent {
namespace {

namespace fs = std::filesystem;

constexpr const char* kStack = "01900000-0000-7000-8000-000000000001";

DeploymentObject object(std::string id, std::string checksum, std::string yaml, std::string stack = kStack) {
  DeploymentObject made;
  made.id = std::move(id);
  made.stack_id = std::move(stack);
  made.checksum = std::move(checksum);
  made.yaml = std::move(yaml);
  return made;
}

class DirSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "sindri-dir-sink-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
  }
  void TearDown() override { fs::remove_all(root_); }
  std::vector<std::string> files(const std::string& stack = kStack) const {
    std::vector<std::string> names;
    std::error_code ignored;
    for (const auto& entry : fs::directory_iterator(root_ / stack, ignored)) names.push_back(entry.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }
  Value read(const std::string& name) const {
    auto text = read_file_text(root_ / kStack / name);
    return text.ok() ? parse_yaml(*text).value() : Value();
  }
  fs::path root_;
};

TEST_F(DirSinkTest, WritesEachDocumentUnderItsNameWithTheAnnotations) {
  DirSink sink(root_, "agent-1", "");
  const ApplyOutcome outcome =
      sink.apply(object("do-1", "sum-1",
                        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n  namespace: apps\n"
                        "  annotations:\n    team: web\n    brokkr.io/owner-id: forged\n"
                        "---\n---\n"
                        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: apps\n"
                        "---\n"
                        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n"
                        "---\n"
                        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"));
  ASSERT_TRUE(outcome.success) << outcome.message;
  EXPECT_EQ(files(), (std::vector<std::string>{"apps_Deployment_apps_api.yaml", "core_ConfigMap_default_settings.yaml",
                                               "core_Namespace___apps.yaml",
                                               "rbac.authorization.k8s.io_ClusterRole___reader.yaml"}));
  const Value deployment = read("apps_Deployment_apps_api.yaml");
  EXPECT_EQ(annotation_of(deployment, "team"), "web");                // the manifest's own survive
  EXPECT_EQ(annotation_of(deployment, kOwnerAnnotation), "agent-1");  // the agent's values win
  EXPECT_EQ(annotation_of(deployment, kStackAnnotation), kStack);
  EXPECT_EQ(annotation_of(deployment, kChecksumAnnotation), "sum-1");
  EXPECT_EQ(annotation_of(deployment, kDeploymentObjectIdAnnotation), "do-1");
  EXPECT_EQ(annotation_of(deployment, kLastConfigAnnotation), "sum-1");
  EXPECT_EQ(read("core_ConfigMap_default_settings.yaml").find("metadata")->find("namespace")->get_string(), "default");
  EXPECT_EQ(read("core_Namespace___apps.yaml").find("metadata")->find("namespace"), nullptr);

  DirSink watching(root_, "agent-1", "team-a");
  ASSERT_TRUE(
      watching.apply(object("do-2", "sum-2", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")).success);
  EXPECT_TRUE(fs::exists(root_ / kStack / "core_ConfigMap_team-a_x.yaml"));
}

TEST_F(DirSinkTest, ABadDocumentWritesNothingOfItsObject) {
  DirSink sink(root_, "agent-1", "");
  const std::string good = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: good\n---\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {good + "kind: [unclosed\n", "document 2: unparseable YAML at line"},
      {good + "- a list\n", "document 2: a YAML array, not a Kubernetes object (a mapping)"},
      {good + "kind: ConfigMap\nmetadata:\n  name: x\n", "document 2: no apiVersion"},
      {good + "apiVersion: v1\nmetadata:\n  name: x\n", "document 2: no kind"},
      {good + "apiVersion: v1\nkind: ConfigMap\n", "document 2 (ConfigMap): no metadata.name"},
      {good + "apiVersion: v1\nkind: ConfigMap\nmetadata: text\n", "document 2: metadata is not a mapping"},
      {good + "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ../../etc\n",
       "document 2 (v1 ConfigMap ../../etc): \"../../etc\" cannot be part of a file name"},
  };
  for (const auto& [yaml, message] : cases) {
    const ApplyOutcome outcome = sink.apply(object("do-bad", "sum", yaml));
    EXPECT_FALSE(outcome.success) << yaml;
    EXPECT_NE(outcome.message.find(message), std::string::npos) << outcome.message;
    EXPECT_FALSE(fs::exists(root_ / kStack)) << yaml;
  }
  const ApplyOutcome traversal = sink.apply(object("do-x", "sum", good, "../outside"));
  EXPECT_FALSE(traversal.success);
  EXPECT_FALSE(fs::exists(root_.parent_path() / "outside"));
}

TEST_F(DirSinkTest, PrunesOnlyWhatThisAgentOwnsUnderOtherChecksums) {
  DirSink sink(root_, "agent-1", "");
  ASSERT_TRUE(sink.apply(object("do-1", "sum-1", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: old\n")).success);
  ASSERT_TRUE(sink.apply(object("do-2", "sum-2", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: new\n")).success);
  DirSink other(root_, "agent-2", "");
  ASSERT_TRUE(
      other.apply(object("do-3", "sum-0", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: theirs\n")).success);
  std::ofstream(root_ / kStack / "core_Pod_default_owned.yaml")
      << "apiVersion: v1\nkind: Pod\nmetadata:\n  name: owned\n  annotations:\n    brokkr.io/owner-id: agent-1\n"
      << "    k8s.brokkr.io/stack: " << kStack << "\n  ownerReferences:\n  - kind: ReplicaSet\n    name: rs\n";
  std::ofstream(root_ / kStack / "notes.txt") << "kept\n";

  ASSERT_TRUE(sink.prune(kStack, "sum-2").ok());
  EXPECT_EQ(files(), (std::vector<std::string>{"core_ConfigMap_default_new.yaml", "core_ConfigMap_default_theirs.yaml",
                                               "core_Pod_default_owned.yaml", "notes.txt"}));
  ASSERT_TRUE(sink.prune(kStack, "").ok());
  EXPECT_EQ(files(), (std::vector<std::string>{"core_ConfigMap_default_theirs.yaml", "core_Pod_default_owned.yaml",
                                               "notes.txt"}));
  EXPECT_TRUE(sink.prune("01900000-0000-7000-8000-00000000dead", "").ok());  // nothing there
}

TEST_F(DirSinkTest, OwnedReadsTheFilesBack) {
  DirSink sink(root_, "agent-1", "");
  ASSERT_TRUE(sink.apply(object("do-1", "sum-1", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n")).success);
  ASSERT_TRUE(sink.apply(object("do-2", "sum-2", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n")).success);
  ASSERT_TRUE(DirSink(root_, "agent-2", "")
                  .apply(object("do-3", "sum-3", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
                                "01900000-0000-7000-8000-000000000002"))
                  .success);
  std::ofstream(root_ / kStack / "broken.yaml") << "kind: [\n";
  auto owned = DirSink(root_, "agent-1", "").owned();
  ASSERT_TRUE(owned.ok()) << owned.error().message;
  ASSERT_EQ(owned->size(), 1u);
  EXPECT_EQ((*owned)[0].stack_id, kStack);
  std::vector<std::string> checksums = (*owned)[0].checksums;
  std::sort(checksums.begin(), checksums.end());
  EXPECT_EQ(checksums, (std::vector<std::string>{"sum-1", "sum-2"}));
  EXPECT_TRUE(DirSink(root_ / "absent", "agent-1", "").owned()->empty());
}

// The reconciler over the directory sink, counting what it asks of it.
TEST_F(DirSinkTest, TheReconcilerAppliesChangesOnlyAndSeedsFromTheSink) {
  DirSink sink(root_, "agent-1", "");
  std::vector<std::string> reports;
  auto report = [&](const DeploymentObject& done, const ApplyOutcome& outcome) {
    reports.push_back(done.id + (outcome.success ? ":ok" : ":failed"));
  };
  std::atomic<bool> stopping{false};
  const std::string a = "01900000-0000-7000-8000-00000000000a";
  const std::string b = "01900000-0000-7000-8000-00000000000b";
  const std::string config = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n";
  {
    Reconciler reconciler(sink, report, [](const std::string&) {});
    ASSERT_TRUE(reconciler.seed().ok());
    const std::vector<DeploymentObject> target = {object("a1", "s1", config, a), object("b1", "s1", config, b),
                                                  object("b2", "s2", "kind: [\n", b)};
    reconciler.reconcile(target, false, stopping);
    EXPECT_EQ(reports, (std::vector<std::string>{"a1:ok", "b2:failed"}));  // the newest of each stack
    EXPECT_EQ(reconciler.applies(), 2u);
    // The same target state again: nothing applied, nothing pruned.
    const size_t prunes = reconciler.prunes();
    reconciler.reconcile(target, false, stopping);
    EXPECT_EQ(reconciler.applies(), 2u);
    EXPECT_EQ(reconciler.prunes(), prunes);
    // A resync applies everything again, the failed object included.
    reconciler.reconcile(target, true, stopping);
    EXPECT_EQ(reconciler.applies(), 4u);
    EXPECT_EQ(reconciler.applied_object_ids(), (std::vector<std::string>{"a1"}));
  }
  // A new reconciler (a restarted agent) knows what the directory holds: the
  // same target state applies each stack once more (the run before may have
  // died in the middle of its apply), then nothing; a stack gone is pruned.
  Reconciler restarted(sink, report, [](const std::string&) {});
  ASSERT_TRUE(restarted.seed().ok());
  restarted.reconcile({object("a1", "s1", config, a)}, false, stopping);
  EXPECT_EQ(restarted.applies(), 1u);
  restarted.reconcile({object("a1", "s1", config, a)}, false, stopping);
  EXPECT_EQ(restarted.applies(), 1u);
  EXPECT_TRUE(fs::exists(root_ / a));
  restarted.reconcile({}, false, stopping);
  EXPECT_FALSE(fs::exists(root_ / a));

  // A deletion marker prunes the stack and is reported once.
  reports.clear();
  Reconciler fresh(sink, report, [](const std::string&) {});
  fresh.reconcile({object("a2", "s2", config, a)}, false, stopping);
  DeploymentObject marker = object("a3", "", "", a);
  marker.is_deletion_marker = true;
  fresh.reconcile({marker}, false, stopping);
  fresh.reconcile({marker}, false, stopping);
  EXPECT_EQ(reports, (std::vector<std::string>{"a2:ok", "a3:ok"}));
  EXPECT_FALSE(fs::exists(root_ / a));
}

}  // namespace
}  // namespace sindri::agent
