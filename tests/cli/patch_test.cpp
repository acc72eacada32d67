// `sindri patch`: multi-document matching, --target, output formats, errors,
// and the JSON merge patch fallback notice.

#include "sindri_process.hpp"

namespace sindri_test {
namespace {

class Patch : public SindriTest {
 protected:
  fs::path originals() {
    return file("orig.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {x: '1'}\n---\n"
                "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
                "spec:\n  template:\n    spec:\n      containers:\n      - {name: app, image: app:1}\n"
                "      - {name: side, image: side:1}\n");
  }
};

TEST_F(Patch, StrategicByDefaultMatchingByKindAndName) {
  auto patch = file("p.yaml",
                    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
                    "spec: {template: {spec: {containers: [{name: side, image: side:2}]}}}\n");
  Outcome r = sindri({"patch", "-f", originals().string(), "-p", patch.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out,
            "apiVersion: v1\ndata:\n  x: \"1\"\nkind: ConfigMap\nmetadata:\n  name: a\n---\n"
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n"
            "      containers:\n      - image: app:1\n        name: app\n      - image: side:2\n        name: side\n");
}

TEST_F(Patch, JsonPatchWithTargetAndJsonOutput) {
  auto patch = file("p.json", R"([{"op": "add", "path": "/data/y", "value": "2"}])");
  Outcome r = sindri({"patch", "-f", originals().string(), "-p", patch.string(), "--type", "json", "--target",
                      "configmap/a", "-o", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"kind\": \"List\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"y\": \"2\""), std::string::npos) << r.out;
}

TEST_F(Patch, APatchMatchingNothingFails) {
  auto patch = file("p.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: nope}\ndata: {x: '2'}\n");
  Outcome r = sindri({"patch", "-f", originals().string(), "-p", patch.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("patch document 1 (v1 ConfigMap/nope) matches no original document"), std::string::npos)
      << r.err;
}

TEST_F(Patch, FailingJsonPatchNamesTheOperation) {
  auto patch = file("p.yaml", "[{op: test, path: /data/x, value: '9'}]\n");
  Outcome r = sindri({"patch", "-f", originals().string(), "-p", patch.string(), "--type", "json", "--target",
                      "ConfigMap/a"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("operation 0 (test /data/x): testing value /data/x failed: test failed"), std::string::npos)
      << r.err;
}

TEST_F(Patch, UnknownKindIsMergedAsJsonMergePatchWithANote) {
  auto original = file("w.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {l: [1, 2]}\n");
  auto patch = file("p.yaml", "spec: {l: [3]}\n");
  Outcome r = sindri({"patch", "-f", original.string(), "-p", patch.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  l:\n  - 3\n"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("note: no strategic merge patch metadata for Widget"), std::string::npos) << r.err;
}

TEST_F(Patch, BadTypeIsAUsageError) {
  auto patch = file("p.yaml", "a: 1\n");
  Outcome r = sindri({"patch", "-f", originals().string(), "-p", patch.string(), "--type", "funky"});
  EXPECT_EQ(r.exit_code, 2);
}

}  // namespace
}  // namespace sindri_test
