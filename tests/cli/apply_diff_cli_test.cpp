// apply --dry-run, apply of unchanged content (and --force), and diff against
// a real broker on SQLite: each test runs `sindri serve`, drives it with the
// `sindri` binary and counts what the broker holds over its API.

#include <filesystem>
#include <string>
#include <vector>

#include "broker_cli_fixture.hpp"
#include "value/json.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri_test {
namespace {

using sindri::Value;

// As apply re-emits them (keys sorted, as kubectl prints YAML), so that the
// files and the stored YAML read alike.
constexpr const char* kConfigMap =
    "apiVersion: v1\n"
    "data:\n"
    "  color: blue\n"
    "  size: large\n"
    "kind: ConfigMap\n"
    "metadata:\n"
    "  name: settings\n"
    "  namespace: demo\n";

constexpr const char* kDeployment =
    "apiVersion: apps/v1\n"
    "kind: Deployment\n"
    "metadata:\n"
    "  name: hello\n"
    "  namespace: demo\n"
    "spec:\n"
    "  replicas: 2\n";

std::string json_text(const std::string& text) { return sindri::to_json(Value(text)); }

class ApplyDiff : public BrokerCli {
 protected:
  void SetUp() override {
    BrokerCli::SetUp();
    stack_id_ = make_stack("web");
    manifests_ = file("m/a.yaml", std::string(kConfigMap) + "---\n" + kDeployment).string();
  }

  Outcome apply(std::vector<std::string> args) {
    args.insert(args.begin(), {"apply", "web", "-f", manifests_});
    return as_generator(args);
  }
  Outcome diff(std::vector<std::string> args = {}) {
    args.insert(args.begin(), {"diff", "web", "-f", manifests_});
    return as_generator(args);
  }

  // diff finds nothing and apply says unchanged, creating nothing: the two
  // verbs agree that the newest object holds manifests_.
  void expect_unchanged() {
    const std::string id = text_of(newest(), "id");
    const size_t count = object_count();
    Outcome compared = diff();
    EXPECT_EQ(compared.exit_code, 0) << compared.out << compared.err;
    EXPECT_EQ(compared.out, "");
    Outcome applied = apply({});
    EXPECT_EQ(applied.exit_code, 0) << applied.err;
    EXPECT_EQ(applied.out, "stack web: unchanged (deployment object " + id + ")\n");
    EXPECT_EQ(object_count(), count);
  }

  size_t object_count() { return deployment_objects(stack_id_).size(); }
  Value newest() {
    const Value objects = deployment_objects(stack_id_);
    return objects.size() == 0 ? Value() : *objects.at(objects.size() - 1);
  }

  std::string stack_id_;
  std::string manifests_;
};

// --- apply --dry-run -----------------------------------------------------------------

TEST_F(ApplyDiff, DryRunPrintsWhatWouldBeSentAndCreatesNothing) {
  Outcome dry = apply({"--dry-run"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_EQ(dry.out, std::string(kConfigMap) + "---\n" + kDeployment);
  EXPECT_EQ(dry.err, "note: would create a deployment object in stack web (2 resources); --dry-run sent nothing\n");
  EXPECT_EQ(object_count(), 0u);

  Outcome as_json = apply({"--dry-run", "-o", "json"});
  ASSERT_EQ(as_json.exit_code, 0) << as_json.err;
  auto body = sindri::parse_json(as_json.out);
  ASSERT_TRUE(body.ok()) << as_json.out;
  EXPECT_EQ(*body, *sindri::parse_json(R"({"yaml_content":)" + json_text(dry.out) + "}"));
  EXPECT_EQ(object_count(), 0u);

  // What the dry run printed is what apply sends.
  ASSERT_EQ(apply({}).exit_code, 0);
  EXPECT_EQ(text_of(newest(), "yaml_content"), dry.out);
}

TEST_F(ApplyDiff, DryRunMakesEveryCheck) {
  Outcome unknown = as_generator({"apply", "nope", "-f", manifests_, "--dry-run"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.err, "error: stack \"nope\" not found\n");
  const std::string bad = file("bad.yaml", "apiVersion: v1\nmetadata:\n  name: x\n").string();
  Outcome invalid = as_generator({"apply", "web", "-f", bad, "--dry-run"});
  EXPECT_EQ(invalid.exit_code, 1);
  EXPECT_EQ(invalid.err, "error: " + bad + ":1: document 1 has no `kind` string\n");
  EXPECT_EQ(invalid.out, "");
  EXPECT_EQ(object_count(), 0u);
}

// --- apply: unchanged and --force -----------------------------------------------------

TEST_F(ApplyDiff, ApplyOfTheNewestContentIsUnchanged) {
  ASSERT_EQ(apply({}).exit_code, 0);
  const std::string first_id = text_of(newest(), "id");

  Outcome again = apply({});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, "stack web: unchanged (deployment object " + first_id + ")\n");
  EXPECT_EQ(object_count(), 1u);

  // The same objects written otherwise are sent as the same text.
  const std::string commented =
      file("c.yaml", "# the demo's settings\n" + std::string(kConfigMap) + "---\n---\n" + kDeployment).string();
  Outcome rewritten = as_generator({"apply", "web", "-f", commented});
  EXPECT_EQ(rewritten.exit_code, 0) << rewritten.err;
  EXPECT_EQ(rewritten.out, again.out);

  // The existing object, as kubectl prints it, and on stderr what tells it
  // from a created one.
  const std::string note = "note: stack web: unchanged (deployment object " + first_id + ")\n";
  Outcome as_json = apply({"-o", "json"});
  ASSERT_EQ(as_json.exit_code, 0) << as_json.err;
  EXPECT_EQ(*sindri::parse_json(as_json.out), newest());
  EXPECT_EQ(as_json.err, note);
  Outcome as_yaml = apply({"-o", "yaml"});
  ASSERT_EQ(as_yaml.exit_code, 0) << as_yaml.err;
  EXPECT_EQ(as_yaml.out, sindri::to_yaml(newest()));
  EXPECT_EQ(as_yaml.err, note);
  EXPECT_EQ(again.err, "");

  Outcome dry = apply({"--dry-run"});
  EXPECT_EQ(dry.exit_code, 0);
  EXPECT_EQ(dry.err, "note: stack web: unchanged (deployment object " + first_id + "): nothing would be created\n");
  EXPECT_EQ(object_count(), 1u);
}

TEST_F(ApplyDiff, ForceOrAChangedFileCreates) {
  ASSERT_EQ(apply({}).exit_code, 0);
  Outcome forced_dry = apply({"--force", "--dry-run"});
  EXPECT_EQ(forced_dry.exit_code, 0);
  EXPECT_EQ(forced_dry.err,
            "note: would create a deployment object in stack web (2 resources); --dry-run sent nothing\n");
  EXPECT_EQ(object_count(), 1u);

  Outcome forced = apply({"--force"});
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_EQ(object_count(), 2u);
  EXPECT_EQ(forced.out, "deployment object " + text_of(newest(), "id") + " created in stack web (sequence " +
                            std::to_string(newest().find("sequence_id")->get_int()) + ", 2 resources)\n");
  Outcome forced_json = apply({"--force", "-o", "json"});
  ASSERT_EQ(forced_json.exit_code, 0) << forced_json.err;
  EXPECT_EQ(*sindri::parse_json(forced_json.out), newest());
  EXPECT_EQ(forced_json.err, "");
  EXPECT_EQ(object_count(), 3u);

  file("m/a.yaml", kConfigMap);
  Outcome changed = apply({});
  ASSERT_EQ(changed.exit_code, 0) << changed.err;
  EXPECT_EQ(changed.out.rfind("deployment object ", 0), 0u) << changed.out;
  EXPECT_EQ(object_count(), 4u);
  EXPECT_EQ(text_of(newest(), "yaml_content"), kConfigMap);
}

// --- apply and diff agree --------------------------------------------------------------

// instantiate stores the broker's rendering, not the text apply would send:
// the same manifests are still the same content.
TEST_F(ApplyDiff, TheManifestsOfAnInstantiatedObjectAreUnchanged) {
  const std::filesystem::path hello = std::filesystem::path(SINDRI_SOURCE_DIR) / "examples" / "hello";
  const std::string tera = (hello / "deployment.yaml.tera").string();
  const std::string values = (hello / "values.json").string();
  Outcome created =
      as_generator({"template", "create", "hello", "-f", tera, "--schema", (hello / "schema.yaml").string()});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  Outcome instantiated = as_generator({"instantiate", "web", "hello", "-f", values});
  ASSERT_EQ(instantiated.exit_code, 0) << instantiated.err;
  Outcome rendered = sindri({"render", tera, "-f", values});
  ASSERT_EQ(rendered.exit_code, 0) << rendered.err;
  manifests_ = file("same.yaml", rendered.out).string();
  Outcome sent = apply({"--dry-run", "--force"});
  ASSERT_EQ(sent.exit_code, 0) << sent.err;
  ASSERT_NE(sent.out, text_of(newest(), "yaml_content")) << "the stored text is apply's own";
  expect_unchanged();
}

TEST_F(ApplyDiff, ReorderedDocumentsAndKeysAreUnchanged) {
  ASSERT_EQ(apply({}).exit_code, 0);
  manifests_ = file("reordered.yaml",
                    "kind: Deployment\n"
                    "metadata: {namespace: demo, name: hello}\n"
                    "apiVersion: apps/v1\n"
                    "spec:\n"
                    "  replicas: 2\n"
                    "---\n" +
                        std::string(kConfigMap))
                   .string();
  expect_unchanged();
}

TEST_F(ApplyDiff, AChangeIsCreatedAndDiffedAlike) {
  ASSERT_EQ(apply({}).exit_code, 0);
  std::string changed = std::string(kConfigMap) + "---\n" + kDeployment;
  changed.replace(changed.find("replicas: 2"), 11, "replicas: 3");
  file("m/a.yaml", changed);
  Outcome compared = diff();
  EXPECT_EQ(compared.exit_code, 1) << compared.err;
  EXPECT_NE(compared.out.find("-  replicas: 2\n+  replicas: 3\n"), std::string::npos) << compared.out;
  Outcome applied = apply({});
  ASSERT_EQ(applied.exit_code, 0) << applied.err;
  EXPECT_EQ(applied.out.rfind("deployment object ", 0), 0u) << applied.out;
  EXPECT_EQ(object_count(), 2u);
  expect_unchanged();

  // An object fewer is a change too.
  file("m/a.yaml", kConfigMap);
  EXPECT_EQ(diff().exit_code, 1);
  EXPECT_EQ(apply({}).out.rfind("deployment object ", 0), 0u);
  EXPECT_EQ(object_count(), 3u);
}

// The stack is to be emptied: the same content again is a change.
TEST_F(ApplyDiff, ADeletionMarkerIsNeverUnchanged) {
  const std::string yaml = std::string(kConfigMap) + "---\n" + kDeployment;
  Reply marker = call(*generator_, "POST", "/api/v1/stacks/" + stack_id_ + "/deployment-objects",
                      R"({"yaml_content":)" + json_text(yaml) + R"(,"is_deletion_marker":true})");
  ASSERT_EQ(marker.status, 201) << marker.body;
  Outcome r = apply({});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("deployment object ", 0), 0u) << r.out;
  EXPECT_EQ(object_count(), 2u);
}

// --- diff -----------------------------------------------------------------------------

TEST_F(ApplyDiff, DiffWithoutAnObjectAddsEverything) {
  file("m/a.yaml", kConfigMap);
  Outcome r = diff();
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out,
            "--- web/v1/ConfigMap/demo/settings (no deployment object yet)\n"
            "+++ web/v1/ConfigMap/demo/settings (files)\n"
            "@@ -0,0 +1,8 @@\n"
            "+apiVersion: v1\n"
            "+data:\n"
            "+  color: blue\n"
            "+  size: large\n"
            "+kind: ConfigMap\n"
            "+metadata:\n"
            "+  name: settings\n"
            "+  namespace: demo\n");
}

TEST_F(ApplyDiff, DiffOfTheAppliedFilesIsEmpty) {
  ASSERT_EQ(apply({}).exit_code, 0);
  Outcome r = diff();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
}

TEST_F(ApplyDiff, DiffShowsEachChangedObject) {
  ASSERT_EQ(apply({}).exit_code, 0);
  const std::string id = text_of(newest(), "id");
  std::string changed = kConfigMap;
  changed.replace(changed.find("blue"), 4, "green");
  file("m/a.yaml", changed + "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: hello\n  namespace: demo\n");

  Outcome r = diff({"--context", "1"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out,
            "--- web/v1/ConfigMap/demo/settings (deployment object " + id + ")\n"
            "+++ web/v1/ConfigMap/demo/settings (files)\n"
            "@@ -2,3 +2,3 @@\n"
            " data:\n"
            "-  color: blue\n"
            "+  color: green\n"
            "   size: large\n"
            "--- web/v1/Service/demo/hello (not in deployment object " + id + ")\n"
            "+++ web/v1/Service/demo/hello (files)\n"
            "@@ -0,0 +1,5 @@\n"
            "+apiVersion: v1\n"
            "+kind: Service\n"
            "+metadata:\n"
            "+  name: hello\n"
            "+  namespace: demo\n"
            "--- web/apps/v1/Deployment/demo/hello (deployment object " + id + ")\n"
            "+++ web/apps/v1/Deployment/demo/hello (not in the files)\n"
            "@@ -1,7 +0,0 @@\n"
            "-apiVersion: apps/v1\n"
            "-kind: Deployment\n"
            "-metadata:\n"
            "-  name: hello\n"
            "-  namespace: demo\n"
            "-spec:\n"
            "-  replicas: 2\n");
  EXPECT_EQ(object_count(), 1u);
}

TEST_F(ApplyDiff, DiffAgainstADeletionMarkerAddsEverything) {
  Reply marker = call(*generator_, "POST", "/api/v1/stacks/" + stack_id_ + "/deployment-objects",
                      R"({"yaml_content":)" + json_text(kConfigMap) + R"(,"is_deletion_marker":true})");
  ASSERT_EQ(marker.status, 201) << marker.body;
  file("m/a.yaml", kConfigMap);
  Outcome r = diff();
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out.rfind("--- web/v1/ConfigMap/demo/settings (deployment object " + text_of(marker.json, "id") +
                            " is a deletion marker)\n+++ web/v1/ConfigMap/demo/settings (files)\n@@ -0,0 +1,8 @@\n",
                        0),
            0u)
      << r.out;
}

TEST_F(ApplyDiff, DiffErrorsExit2) {
  Outcome unknown = as_generator({"diff", "nope", "-f", manifests_});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.out, "");
  EXPECT_EQ(unknown.err, "error: stack \"nope\" not found\n");

  const std::string missing = (dir_ / "missing.yaml").string();
  Outcome unreadable = as_generator({"diff", "web", "-f", missing});
  EXPECT_EQ(unreadable.exit_code, 2);
  EXPECT_EQ(unreadable.err, "error: cannot read manifest file " + missing + ": No such file or directory\n");

  const std::string twice = file("twice.yaml", std::string(kConfigMap) + "---\n" + kConfigMap).string();
  Outcome duplicate = as_generator({"diff", "web", "-f", twice});
  EXPECT_EQ(duplicate.exit_code, 2);
  EXPECT_NE(duplicate.err.find("ConfigMap demo/settings is given already"), std::string::npos) << duplicate.err;

  Outcome no_pak = sindri({"diff", "web", "-f", manifests_, "--broker", broker_.url()});
  EXPECT_EQ(no_pak.exit_code, 2);
  EXPECT_EQ(no_pak.err, "error: no PAK given: pass --pak or set SINDRI_PAK\n");

  Outcome no_files = as_generator({"diff", "web"});
  EXPECT_EQ(no_files.exit_code, 2);
  Outcome negative = as_generator({"diff", "web", "-f", manifests_, "--context", "-1"});
  EXPECT_EQ(negative.exit_code, 2);
  EXPECT_NE(negative.err.find("--context: must be 0 or more"), std::string::npos) << negative.err;
  EXPECT_EQ(object_count(), 0u);
}

}  // namespace
}  // namespace sindri_test
