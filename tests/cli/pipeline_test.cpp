// `sindri render` as a pipeline: values files, --set, schema, -o, --output-dir.

#include "sindri_process.hpp"

namespace sindri_test {
namespace {

class Render : public SindriTest {
 protected:
  // A ConfigMap and a Service named from the values.
  fs::path manifests() {
    return file("app.tera",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ name }}\n"
                "data:\n  replicas: \"{{ replicas }}\"\n---\n"
                "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ name }}-svc\n");
  }
  fs::path schema() {
    return file("s.json", R"({
  "type": "object",
  "required": ["name"],
  "properties": {
    "name": {"type": "string", "pattern": "^[a-z]+$"},
    "replicas": {"type": "integer", "minimum": 1, "default": 1}
  }
})");
  }
};

TEST_F(Render, ValuesFilesDeepMergeInOrderThenSetThenSetString) {
  auto tpl = file("t.tera", "{{ a.x }} {{ a.y }} {{ b }} {{ l | join(sep='+') }} {{ n + 1 }} {{ s }} {{ c }}");
  auto ctx = file("c.json", R"({"c": "ctx", "b": "from-context"})");
  auto v1 = file("v1.yaml", "a:\n  x: 1\n  y: 1\nb: one\nl: [1]\n");
  auto v2 = file("v2.json", R"({"a": {"y": 2}, "b": "two"})");
  Outcome r = sindri({"render", "-f", v1.string(), "-f", v2.string(), "--context", ctx.string(),
                      "--set-string", "s=007", "--set", "l={x,y},n=41", "--set", "s=overridden", tpl.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // --set-string is applied after every --set, as Helm does.
  EXPECT_EQ(r.out, "1 2 two x+y 42 007 ctx");
}

TEST_F(Render, SetTypesAsHelmDoes) {
  auto tpl = file("t.tera", "{{ __tera_context }}");
  Outcome r = sindri({"render", tpl.string(), "--set", "i=10,b=true,f=1.5,z=0755,big=99999999999999999999",
                      "--set", "list[1].k=v", "--set", R"(e=a\,b)"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, R"({
  "b": true,
  "big": "99999999999999999999",
  "e": "a,b",
  "f": "1.5",
  "i": 10,
  "list": [
    null,
    {
      "k": "v"
    }
  ],
  "z": "0755"
})");
}

TEST_F(Render, MissingValuesFileIsNamed) {
  auto tpl = file("t.tera", "x");
  Outcome r = sindri({"render", tpl.string(), "-f", (dir_ / "nope.yaml").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot read values file " + (dir_ / "nope.yaml").string()), std::string::npos) << r.err;
}

TEST_F(Render, InvalidYamlValuesNameFileLineAndColumn) {
  auto tpl = file("t.tera", "x");
  auto values = file("v.yaml", "a: 1\nb: [1, 2\nc: 3\n");
  Outcome r = sindri({"render", tpl.string(), "-f", values.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(values.string() + ":"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("invalid YAML"), std::string::npos) << r.err;
}

TEST_F(Render, InvalidJsonValuesNameFileLineAndColumn) {
  auto tpl = file("t.tera", "x");
  auto values = file("v.json", "{\n  \"a\": 1,\n}\n");  // a trailing comma: not JSON
  Outcome r = sindri({"render", tpl.string(), "-f", values.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(values.string() + ":3:1: invalid JSON"), std::string::npos) << r.err;
}

TEST_F(Render, ValuesThatAreNotAMappingAreAnError) {
  auto tpl = file("t.tera", "x");
  auto values = file("v.yaml", "- a\n- b\n");
  Outcome r = sindri({"render", tpl.string(), "-f", values.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(values.string() + ":1:1: values must be a mapping, not a list"), std::string::npos) << r.err;
}

// A --set that does not parse is a usage error, before any file is read.
TEST_F(Render, BadSetNamesTheArgumentAndColumn) {
  auto tpl = file("t.tera", "x");
  Outcome r = sindri({"render", tpl.string(), "--set", "ok=1", "--set", "a[x]=1", "-f", "missing.yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("--set: `a[x]=1` at column 3: index `x` is not a number\n", 0), 0u) << r.err;

  r = sindri({"render", tpl.string(), "--set-string", "list={a,b"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--set-string: `list={a,b` at column 6"), std::string::npos) << r.err;

  r = sindri({"render", tpl.string(), "--set", "a.b"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("`a.b` at column 4: `a.b` has no value"), std::string::npos) << r.err;
}

TEST_F(Render, SchemaViolationsExit2WithEveryViolation) {
  auto values = file("v.yaml", "name: Web\nreplicas: 0\n");
  Outcome r = sindri({"render", manifests().string(), "-f", values.string(), "--schema", schema().string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(values.string() + ":1:7: /name: must match the pattern"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(schema /properties/name/pattern)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(values.string() + ":2:11: /replicas: must be at least 1, got 0 (schema /properties/replicas/minimum)"),
            std::string::npos)
      << r.err;
}

TEST_F(Render, ViolationsFromSetOrMissingPropertiesNameThePointer) {
  auto values = file("v.yaml", "replicas: 3\n");
  Outcome r = sindri({"render", manifests().string(), "-f", values.string(), "--set", "replicas=0", "--schema",
                      schema().string()});
  EXPECT_EQ(r.exit_code, 2);
  // The failing value came from --set, not from the file.
  EXPECT_NE(r.err.find("values /replicas: must be at least 1, got 0"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("values (root): missing required property `name` (schema /required)"), std::string::npos)
      << r.err;
}

TEST_F(Render, SchemaDefaultsFillAbsentValues) {
  Outcome r = sindri({"render", manifests().string(), "--set", "name=web", "--schema", schema().string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("replicas: \"1\""), std::string::npos) << r.out;
}

TEST_F(Render, InvalidSchemaNamesTheSchemaAndPointer) {
  auto bad = file("bad.json", R"({"type": "object", "properties": {"a": {"minimum": "one"}}})");
  Outcome r = sindri({"render", manifests().string(), "--schema", bad.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(bad.string() + " is not a valid JSON Schema"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/properties/a/minimum"), std::string::npos) << r.err;

  auto broken = file("broken.json", "{\"type\": }");
  r = sindri({"render", manifests().string(), "--schema", broken.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(broken.string() + ":1:10: invalid JSON"), std::string::npos) << r.err;
}

TEST_F(Render, OutputYamlReEmitsTheManifests) {
  auto tpl = file("t.tera",
                  "---\n# empty\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"
                  "data: {mode: \"0755\", on: yes}\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: b\n");
  Outcome r = sindri({"render", tpl.string(), "-o", "yaml"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "apiVersion: v1\ndata:\n  mode: \"0755\"\n  \"true\": true\nkind: ConfigMap\nmetadata:\n  name: a\n"
            "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: b\n");
}

TEST_F(Render, OutputJsonIsTheObjectOrAList) {
  auto one = file("one.tera", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n");
  Outcome r = sindri({"render", one.string(), "-o", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"ConfigMap\",\n  \"metadata\": {\n    \"name\": \"a\"\n  }\n}\n");

  r = sindri({"render", manifests().string(), "--set", "name=web,replicas=2", "-o", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("{\n  \"apiVersion\": \"v1\",\n  \"items\": [", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\"kind\": \"List\""), std::string::npos);
  EXPECT_NE(r.out.find("\"name\": \"web-svc\""), std::string::npos);
}

TEST_F(Render, OutputYamlNamesTheDocumentAndLineOfAnIncompleteManifest) {
  auto tpl = file("t.tera",
                  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n"
                  "apiVersion: v1\nmetadata:\n  name: b\n");
  Outcome r = sindri({"render", tpl.string(), "-o", "yaml"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(tpl.string() + " (rendered):5: document 2 has no `kind` string"), std::string::npos) << r.err;

  auto unnamed = file("u.tera", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ missing | default(value='') }}\n");
  r = sindri({"render", unnamed.string(), "-o", "json"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("(rendered):1: document 1 has no `metadata.name` string"), std::string::npos) << r.err;

  auto list = file("l.tera", "- a\n");
  r = sindri({"render", list.string(), "-o", "yaml"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("(rendered):1: document 1 is a list, not a mapping"), std::string::npos) << r.err;
}

TEST_F(Render, OutputYamlNamesTheDocumentLineAndColumnOfInvalidYaml) {
  auto tpl = file("t.tera", "apiVersion: v1\nkind: A\nmetadata:\n  name: a\n---\nkey: [unclosed\n");
  Outcome r = sindri({"render", tpl.string(), "-o", "yaml"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(tpl.string() + " (rendered):"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("document 2"), std::string::npos) << r.err;
}

TEST_F(Render, OutputDirWritesOneFilePerManifest) {
  const fs::path out = dir_ / "out" / "nested";
  Outcome r = sindri({"render", manifests().string(), "--set", "name=Web,replicas=2", "--output-dir", out.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, (out / "configmap-web.yaml").string() + "\n" + (out / "service-web-svc.yaml").string() + "\n");
  EXPECT_EQ(read_all(out / "configmap-web.yaml"),
            "apiVersion: v1\ndata:\n  replicas: \"2\"\nkind: ConfigMap\nmetadata:\n  name: Web\n");
  EXPECT_TRUE(fs::exists(out / "service-web-svc.yaml"));
}

TEST_F(Render, OutputDirRefusesTwoManifestsWithOneFileName) {
  auto tpl = file("t.tera",
                  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n"
                  "apiVersion: v1\nkind: Secret\nmetadata:\n  name: a\n---\n"
                  "apiVersion: v1\nkind: configmap\nmetadata:\n  name: A\n  namespace: other\n");
  const fs::path out = dir_ / "out";
  Outcome r = sindri({"render", tpl.string(), "--output-dir", out.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("manifests 1 and 3 would both be written to " + (out / "configmap-a.yaml").string()),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(Render, OutputDirWithJsonIsAUsageError) {
  Outcome r = sindri({"render", manifests().string(), "-o", "json", "--output-dir", (dir_ / "o").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--output-dir writes YAML files"), std::string::npos) << r.err;
}

TEST_F(Render, UnknownOutputFormatIsAUsageError) {
  Outcome r = sindri({"render", manifests().string(), "-o", "xml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("xml"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace sindri_test
