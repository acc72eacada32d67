// `sindri rbg preview|diff|workloads` on seed 004's RoleBasedGroup examples;
// the expected templates are kubectl's (tests/roles/regenerate.sh).

#include <string>
#include <vector>

#include "sindri_process.hpp"
#include "value/json.hpp"
#include "value/yaml/yaml.hpp"

namespace {

using sindri_test::SindriTest;
namespace fs = std::filesystem;

const fs::path kCases = fs::path(SINDRI_SOURCE_DIR) / "tests" / "roles" / "cases";

// The documents of a preview, without the empty one before the first "---".
std::vector<sindri::Value> preview_documents(const std::string& out) {
  auto stream = sindri::parse_yaml_stream(out);
  EXPECT_TRUE(stream.ok());
  std::vector<sindri::Value> documents;
  if (!stream.ok()) return documents;
  for (const auto& document : *stream) {
    if (!document.value.is_null()) documents.push_back(document.value);
  }
  return documents;
}

sindri::Value expected(const std::string& case_name, const std::string& file) {
  auto parsed = sindri::parse_json(sindri_test::read_all(kCases / case_name / "expected" / file));
  EXPECT_TRUE(parsed.ok()) << file;
  return parsed.ok() ? *parsed : sindri::Value();
}

class RbgTest : public SindriTest {};

TEST_F(RbgTest, PreviewOfTheStatefulSetExampleIsKubectlsMerge) {
  const auto run = sindri({"rbg", "preview", (kCases / "sglang-pd" / "rbg.yaml").string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out.rfind("# Role: prefill (resolved)\n---\nspec:\n", 0), 0u) << run.out;
  EXPECT_NE(run.out.find("\n\n# Role: decode (resolved)\n---\n"), std::string::npos);
  const auto documents = preview_documents(run.out);
  ASSERT_EQ(documents.size(), 2u);
  EXPECT_EQ(documents[0], expected("sglang-pd", "prefill.json"));
  EXPECT_EQ(documents[1], expected("sglang-pd", "decode.json"));
}

TEST_F(RbgTest, PreviewOfTheLeaderWorkerSetExampleIsKubectlsMerge) {
  const auto run = sindri({"rbg", "preview", (kCases / "sglang-multi-node" / "rbg.yaml").string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("# Role: inference (resolved leader)\n---\n"), std::string::npos);
  EXPECT_NE(run.out.find("# Role: inference (resolved worker)\n---\n"), std::string::npos);
  const auto documents = preview_documents(run.out);
  ASSERT_EQ(documents.size(), 2u);
  EXPECT_EQ(documents[0], expected("sglang-multi-node", "inference.leader.json"));
  EXPECT_EQ(documents[1], expected("sglang-multi-node", "inference.worker.json"));
}

TEST_F(RbgTest, PreviewNamesTheRoleAndPointerOfAValidationError) {
  const auto path = file("bad.yaml", R"(apiVersion: workloads.x-k8s.io/v1alpha1
kind: RoleBasedGroup
metadata: {name: g}
spec:
  roles:
  - name: prefill
    templateRef: {name: missing}
    templatePatch: {}
)");
  const auto run = sindri({"rbg", "preview", path.string()});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("role \"prefill\" at /spec/roles/0/templateRef/name: templateRef names roleTemplate "
                         "\"missing\", which spec.roleTemplates does not define"),
            std::string::npos)
      << run.err;
}

TEST_F(RbgTest, DiffOfEqualGroupsExitsZero) {
  const std::string seed = (kCases / "sglang-pd" / "rbg.yaml").string();
  const auto run = sindri({"rbg", "diff", seed, seed});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "");
}

TEST_F(RbgTest, DiffShowsEveryRoleOfAChangedRoleTemplate) {
  std::string text = sindri_test::read_all(kCases / "sglang-pd" / "rbg.yaml");
  const auto old_path = file("old.yaml", text);
  text.replace(text.find("image: sglang:v0.5.1"), 20, "image: sglang:v0.5.2");
  const auto new_path = file("new.yaml", text);
  const auto run = sindri({"rbg", "diff", old_path.string(), new_path.string()});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  const std::string prefill = "Role: prefill\n--- " + old_path.string() + " (role prefill)\n+++ " +
                              new_path.string() + " (role prefill)\n";
  EXPECT_EQ(run.out.rfind(prefill, 0), 0u) << run.out;
  EXPECT_NE(run.out.find("\n-    image: sglang:v0.5.1\n+    image: sglang:v0.5.2\n"), std::string::npos);
  EXPECT_NE(run.out.find("\nRole: decode\n"), std::string::npos);
}

TEST_F(RbgTest, DiffShowsAChangeOfReplicasAndOtherRoleSettings) {
  std::string text = sindri_test::read_all(kCases / "sglang-pd" / "rbg.yaml");
  const auto old_path = file("old.yaml", text);
  text.replace(text.find("replicas: 2"), 11, "replicas: 3\n    restartPolicy: RecreateRBGOnPodRestart");
  const auto new_path = file("new.yaml", text);
  const auto run = sindri({"rbg", "diff", old_path.string(), new_path.string()});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_EQ(run.out.rfind("Role: prefill\n", 0), 0u) << run.out;
  EXPECT_NE(run.out.find("\n # Role: prefill (settings)\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\n-replicas: 2\n+replicas: 3\n+restartPolicy: RecreateRBGOnPodRestart\n"),
            std::string::npos)
      << run.out;
  // Only the settings changed: decode is the same.
  EXPECT_EQ(run.out.find("Role: decode"), std::string::npos) << run.out;
}

TEST_F(RbgTest, DiffTakesAnUnsetReplicasAndWorkloadAsTheirDefaults) {
  const std::string group = R"(apiVersion: workloads.x-k8s.io/v1alpha1
kind: RoleBasedGroup
metadata: {name: g}
spec:
  roles:
  - name: web
    template: {spec: {containers: [{name: c, image: nginx}]}}
)";
  const auto implicit = file("implicit.yaml", group);
  std::string spelled = group;
  spelled.replace(spelled.find("    template:"), 0,
                  "    replicas: 1\n    workload: {apiVersion: apps/v1, kind: StatefulSet}\n");
  const auto explicit_defaults = file("explicit.yaml", spelled);
  const auto same = sindri({"rbg", "diff", implicit.string(), explicit_defaults.string()});
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  EXPECT_EQ(same.out, "");
}

TEST_F(RbgTest, DiffErrorExitsTwo) {
  const std::string seed = (kCases / "sglang-pd" / "rbg.yaml").string();
  const auto run = sindri({"rbg", "diff", seed, (fs::path(dir_) / "missing.yaml").string()});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("missing.yaml"), std::string::npos);
}

TEST_F(RbgTest, WorkloadsCarryTheRoleRevisionHashLabels) {
  const auto run = sindri({"rbg", "workloads", (kCases / "sglang-pd" / "rbg.yaml").string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto stream = sindri::parse_yaml_stream(run.out);
  ASSERT_TRUE(stream.ok());
  ASSERT_EQ(stream->size(), 2u);
  const sindri::Value& prefill = (*stream)[0].value;
  EXPECT_EQ(*prefill.find("kind"), sindri::Value("StatefulSet"));
  const sindri::Value* hash = prefill.find("metadata")->find("labels")->find("role-revision-hash-prefill");
  ASSERT_NE(hash, nullptr);
  EXPECT_EQ(hash->get_string().size(), 16u);
  EXPECT_EQ(*prefill.find("spec")->find("template")->find("spec"), *expected("sglang-pd", "prefill.json").find("spec"));

  const auto lws = sindri({"rbg", "workloads", (kCases / "sglang-multi-node" / "rbg.yaml").string()});
  ASSERT_EQ(lws.exit_code, 0) << lws.err;
  EXPECT_NE(lws.out.find("kind: LeaderWorkerSet\n"), std::string::npos);
  EXPECT_NE(lws.out.find("role-revision-hash-inference: "), std::string::npos);
}

}  // namespace
