// Conformance of src/patch against kubectl: every case of ../shared/corpus/smp
// and of tests/patch/cases (whose expected output tests/patch/regenerate.sh
// produces with `kubectl patch --local`), compared as data. Plus the
// multi-document rules, the JSON merge patch fallback and the metadata table.

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "patch/patch.hpp"
#include "patch/patch_meta.hpp"
#include "value/json.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::patch {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<Value> read_documents(const fs::path& path) {
  auto stream = parse_yaml_stream(read_text(path), path.string());
  EXPECT_TRUE(stream.ok()) << path << ": " << (stream.ok() ? "" : stream.error().describe());
  std::vector<Value> out;
  if (stream.ok()) {
    for (auto& document : *stream) out.push_back(document.value);
  }
  return out;
}

Value read_one(const fs::path& path) {
  auto documents = read_documents(path);
  return documents.empty() ? Value() : documents.front();
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

struct CaseCount {
  size_t results = 0;
  size_t errors = 0;
};

// Runs every case directory under `root`; kubectl's error message (without
// its "error: " prefix) must appear in ours.
void run_cases(const fs::path& root, CaseCount& count) {
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (entry.is_directory()) dirs.push_back(entry.path());
  }
  std::sort(dirs.begin(), dirs.end());
  for (const fs::path& dir : dirs) {
    SCOPED_TRACE(dir.string());
    const auto type = parse_patch_type(trimmed(read_text(dir / "type")));
    ASSERT_TRUE(type.has_value());
    const std::vector<Value> originals = read_documents(dir / "original.yaml");
    const std::vector<Value> patches = read_documents(dir / "patch.yaml");
    auto patched = patch_documents(originals, patches, *type);
    if (fs::exists(dir / "expected.error")) {
      ++count.errors;
      std::string expected = read_text(dir / "expected.error");
      expected = expected.substr(0, expected.find('\n'));
      if (expected.rfind("error: ", 0) == 0) expected.erase(0, 7);
      ASSERT_FALSE(patched.ok()) << "expected the error: " << expected;
      EXPECT_NE(patched.error().describe().find(expected), std::string::npos)
          << "ours:    " << patched.error().describe() << "\nkubectl: " << expected;
      continue;
    }
    ++count.results;
    ASSERT_TRUE(patched.ok()) << patched.error().describe();
    ASSERT_EQ(patched->documents.size(), 1u);
    const Value expected = read_one(dir / "expected.yaml");
    EXPECT_EQ(patched->documents.front(), expected)
        << "ours:\n" << to_yaml(patched->documents.front()) << "kubectl:\n" << to_yaml(expected);
  }
}

TEST(PatchConformance, SharedCorpus) {
  CaseCount count;
  run_cases(fs::path(SINDRI_SHARED_CORPUS) / "smp", count);
  EXPECT_GE(count.results + count.errors, 32u);
}

TEST(PatchConformance, OwnCasesGeneratedByKubectl) {
  CaseCount count;
  run_cases(fs::path(SINDRI_TESTS_DIR) / "patch" / "cases", count);
  EXPECT_GE(count.results, 70u);
  EXPECT_GE(count.errors, 8u);
}

// kubectl has no SMP for LeaderWorkerSet or RoleBasedGroup (custom
// resources), so their pod templates are checked through the PodTemplate
// cases: the same template and patch, embedded where each kind keeps its pod
// templates, must merge to the same result.
Value at(const Value& v, std::initializer_list<std::string_view> path) {
  const Value* node = &v;
  for (std::string_view key : path) {
    node = node->find(key);
    if (!node) return Value();
  }
  return *node;
}

Value nest(std::initializer_list<std::string_view> path, Value leaf) {
  std::vector<std::string_view> keys(path);
  for (auto it = keys.rbegin(); it != keys.rend(); ++it) leaf = Value(Object{{Value(*it), std::move(leaf)}});
  return leaf;
}

TEST(PatchConformance, WorkloadPodTemplatesMergeAsPodTemplates) {
  const fs::path cases = fs::path(SINDRI_TESTS_DIR) / "patch" / "cases";
  size_t checked = 0;
  for (const auto& entry : fs::directory_iterator(cases)) {
    if (entry.path().filename().string().rfind("podtemplate_", 0) != 0) continue;
    SCOPED_TRACE(entry.path().string());
    const Value original = read_one(entry.path() / "original.yaml");
    const Value patch = read_one(entry.path() / "patch.yaml");
    const Value expected = at(read_one(entry.path() / "expected.yaml"), {"template"});
    ASSERT_FALSE(expected.is_null());

    auto check = [&](std::string_view api_version, std::string_view kind,
                     std::initializer_list<std::string_view> where) {
      Value object = nest(where, at(original, {"template"}));
      object.set("apiVersion", api_version);
      object.set("kind", kind);
      auto patched = patch_object(object, nest(where, at(patch, {"template"})), PatchType::Strategic);
      ASSERT_TRUE(patched.ok()) << patched.error().describe();
      EXPECT_TRUE(patched->notices.empty());
      EXPECT_EQ(at(patched->value, where), expected) << kind;
      ++checked;
    };
    check("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", {"spec", "leaderWorkerTemplate", "leaderTemplate"});
    check("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", {"spec", "leaderWorkerTemplate", "workerTemplate"});
    check("apps/v1", "Deployment", {"spec", "template"});
    check("apps/v1", "StatefulSet", {"spec", "template"});
    check("batch/v1", "CronJob", {"spec", "jobTemplate", "spec", "template"});

    // RoleBasedGroup keeps templates in lists keyed by name.
    for (std::string_view list : {"roles", "roleTemplates"}) {
      auto role = [&](const Value& tpl) {
        return Value(Object{{Value("name"), Value("r")}, {Value("template"), tpl}});
      };
      Value object = nest({"spec", list}, Value(Array{role(at(original, {"template"}))}));
      object.set("apiVersion", "workloads.x-k8s.io/v1alpha1");
      object.set("kind", "RoleBasedGroup");
      auto patched = patch_object(object, nest({"spec", list}, Value(Array{role(at(patch, {"template"}))})),
                                  PatchType::Strategic);
      ASSERT_TRUE(patched.ok()) << patched.error().describe();
      const Value merged = at(patched->value, {"spec", list});
      ASSERT_EQ(merged.size(), 1u);
      EXPECT_EQ(at(*merged.at(0), {"template"}), expected) << list;
      ++checked;
    }
  }
  EXPECT_GE(checked, 4u * 7u);
}

TEST(PatchObject, UnknownKindFallsBackToMergePatchWithNotice) {
  auto original = parse_yaml("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {items: [a, b]}\n");
  auto patch = parse_yaml("spec: {items: [c]}\n");
  ASSERT_TRUE(original.ok() && patch.ok());
  auto patched = patch_object(*original, *patch, PatchType::Strategic);
  ASSERT_TRUE(patched.ok());
  EXPECT_EQ(to_json(*patched->value.find("spec")), R"({"items":["c"]})");
  ASSERT_EQ(patched->notices.size(), 1u);
  EXPECT_NE(patched->notices[0].find("Widget"), std::string::npos);
  EXPECT_NE(patched->notices[0].find("JSON merge patch"), std::string::npos);
}

class PatchDocuments : public ::testing::Test {
 protected:
  std::vector<Value> originals() {
    auto stream = parse_yaml_stream(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {x: '1'}\n---\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata: {x: '1'}\n---\n"
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec: {replicas: 1}\n");
    std::vector<Value> out;
    for (auto& d : *stream) out.push_back(d.value);
    return out;
  }
  static Value yaml(std::string_view text) { return *parse_yaml(text); }
};

TEST_F(PatchDocuments, EachPatchFindsItsDocumentByApiVersionKindAndName) {
  const std::vector<Value> patches{
      yaml("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata: {z: '2'}\n"),
      yaml("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec: {replicas: 3}\n")};
  auto patched = patch_documents(originals(), patches, PatchType::Strategic);
  ASSERT_TRUE(patched.ok()) << patched.error().describe();
  ASSERT_EQ(patched->documents.size(), 3u);
  EXPECT_EQ(to_json(*patched->documents[0].find("data")), R"({"x":"1"})");
  EXPECT_EQ(to_json(*patched->documents[1].find("data")), R"({"x":"1","z":"2"})");
  EXPECT_EQ(to_json(*patched->documents[2].find("spec")), R"({"replicas":3})");
}

TEST_F(PatchDocuments, TargetNamesTheDocument) {
  const std::vector<Value> patches{yaml("[{op: replace, path: /spec/replicas, value: 5}]")};
  auto patched = patch_documents(originals(), patches, PatchType::Json, "deployment/a");
  ASSERT_TRUE(patched.ok()) << patched.error().describe();
  EXPECT_EQ(to_json(*patched->documents[2].find("spec")), R"({"replicas":5})");
}

TEST_F(PatchDocuments, APatchMatchingNothingIsAnErrorNamingIt) {
  const std::vector<Value> patches{yaml("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: zzz}\ndata: {}\n")};
  auto patched = patch_documents(originals(), patches, PatchType::Strategic);
  ASSERT_FALSE(patched.ok());
  EXPECT_EQ(patched.error().describe(), "document 1: patch document 1 (v1 ConfigMap/zzz) matches no original document");

  auto wrong_version = patch_documents(
      originals(), std::vector<Value>{yaml("apiVersion: apps/v2\nkind: Deployment\nmetadata: {name: a}\n")},
      PatchType::Strategic);
  ASSERT_FALSE(wrong_version.ok());

  auto no_target = patch_documents(originals(), std::vector<Value>{yaml("a: 1")}, PatchType::Merge, "Secret/a");
  ASSERT_FALSE(no_target.ok());
  EXPECT_NE(no_target.error().message.find("Secret/a matches no original document"), std::string::npos);
}

TEST_F(PatchDocuments, AnAnonymousPatchNeedsOneDocumentOrATarget) {
  auto patched = patch_documents(originals(), std::vector<Value>{yaml("data: {z: '3'}")}, PatchType::Strategic);
  ASSERT_FALSE(patched.ok());
  EXPECT_NE(patched.error().message.find("--target"), std::string::npos);
}

TEST(StrategicErrors, CarryThePointerOfTheFailingField) {
  auto original = parse_yaml("spec: {containers: [{name: a}]}");
  auto patch = parse_yaml("spec: {containers: [{image: b}]}");
  auto patched = strategic_merge_patch(*original, *patch, "PodSpecHolder");
  // Without metadata the list is replaced, so no error...
  ASSERT_TRUE(patched.ok());
  // ...with it the element lacks its merge key.
  auto holder = parse_yaml("spec: {containers: [{name: a}]}");
  auto typed = strategic_merge_patch(*holder, *patch, "PodTemplateSpec");
  ASSERT_FALSE(typed.ok());
  EXPECT_EQ(typed.error().pointer, "/spec/containers");
  EXPECT_EQ(typed.error().message, "map: map[image:b] does not contain declared merge key: name");
}

TEST(JsonPatch, ErrorsNameTheOperation) {
  auto doc = parse_yaml("a: {b: [1, 2]}");
  auto ops = parse_json(R"([{"op":"add","path":"/a/c","value":1},{"op":"test","path":"/a/b/1","value":3}])");
  auto patched = json_patch(*doc, *ops);
  ASSERT_FALSE(patched.ok());
  EXPECT_EQ(patched.error().message, "operation 1 (test /a/b/1): testing value /a/b/1 failed: test failed");
  auto bad_op = json_patch(*doc, *parse_json(R"([{"op":"frobnicate","path":"/a"}])"));
  ASSERT_FALSE(bad_op.ok());
  EXPECT_NE(bad_op.error().message.find("operation 0 (frobnicate /a)"), std::string::npos);
  auto numbers = json_patch(*doc, *parse_json(R"([{"op":"test","path":"/a/b/0","value":1.0}])"));
  EXPECT_TRUE(numbers.ok());
  // By mathematical value, as the schema's const: 2^53 + 1 is not 2^53.0.
  auto big = parse_yaml("num: 9007199254740993");
  EXPECT_FALSE(json_patch(*big, *parse_json(R"([{"op":"test","path":"/num","value":9007199254740992.0}])")).ok());
  EXPECT_TRUE(json_patch(*big, *parse_json(R"([{"op":"test","path":"/num","value":9007199254740993}])")).ok());
}

TEST(PatchMeta, TableIsConsistent) {
  std::set<std::string_view> owners;
  for (const FieldRow& row : field_rows()) owners.insert(row.owner);
  for (const FieldRow& row : field_rows()) {
    SCOPED_TRACE(std::string(row.owner) + "." + std::string(row.field));
    const FieldMeta meta = field_meta(row.owner, row.field);
    EXPECT_EQ(meta.type, row.type);
    EXPECT_EQ(meta.merge_key, row.merge_key);
    // A named type must describe something, or it could not be descended into.
    if (!row.type.empty()) {
      EXPECT_TRUE(owners.count(row.type));
    }
  }
  for (const KindRow& row : kind_rows()) EXPECT_TRUE(owners.count(row.type)) << row.kind;
  EXPECT_EQ(field_meta("PodSpec", "volumes").retain_keys, true);
  EXPECT_EQ(field_meta("PodSpec", "tolerations").strategy, Strategy::None);
  EXPECT_EQ(type_for_kind("apps/v1", "Deployment"), "Deployment");
  EXPECT_EQ(type_for_kind("v1", "Deployment"), "");
}

}  // namespace
}  // namespace sindri::patch
