// `sindri validate` and `sindri lint`.

#include "sindri_process.hpp"

namespace sindri_test {
namespace {

constexpr const char* kSchema = R"({
  "$schema": "http://json-schema.org/draft-07/schema#",
  "type": "object",
  "required": ["name"],
  "properties": {
    "name": {"type": "string", "pattern": "^[a-z]+$"},
    "replicas": {"type": "integer", "minimum": 1},
    "image": {"$ref": "#/definitions/image"}
  },
  "definitions": {
    "image": {"type": "object", "properties": {"tag": {"type": "string"}}}
  }
})";

class Validate : public SindriTest {};

TEST_F(Validate, ValidFilesExit0Silently) {
  auto schema = file("s.json", kSchema);
  auto a = file("a.yaml", "name: web\nreplicas: 2\n");
  auto b = file("b.json", R"({"name": "api", "image": {"tag": "1.0"}})");
  Outcome r = sindri({"validate", "--schema", schema.string(), a.string(), b.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out + r.err, "");
}

TEST_F(Validate, ViolationsExit2WithFileLinePointerAndSchemaLocation) {
  auto schema = file("s.json", kSchema);
  auto good = file("good.yaml", "name: web\n");
  auto bad = file("bad.yaml", "name: web\nreplicas: 0\nimage:\n  tag: 1.0\n");
  auto bad_json = file("bad.json", R"({"replicas": 2})");
  Outcome r = sindri({"validate", "-s", schema.string(), good.string(), bad.string(), bad_json.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(bad.string() + ":2:11: /replicas: must be at least 1, got 0 (schema /properties/replicas/minimum)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(bad.string() + ":4:8: /image/tag: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(bad_json.string() + ": (root): missing required property `name` (schema /required)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find(good.string()), std::string::npos) << r.err;
}

TEST_F(Validate, MissingPropertyPointsAtTheObjectThatLacksIt) {
  auto schema = file("s.json", R"({"properties": {"db": {"type": "object", "required": ["host"]}}})");
  auto values = file("v.yaml", "# comment\ndb:\n  port: 5432\n");
  Outcome r = sindri({"validate", "--schema", schema.string(), values.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(values.string() + ":3:3: /db: missing required property `host`"), std::string::npos) << r.err;
}

TEST_F(Validate, AnEmptyValueIsPlacedWhereItsParentStands) {
  auto schema = file("s.json", kSchema);
  auto values = file("v.yaml", "name: web\nimage:\n  tag:\n");
  Outcome r = sindri({"validate", "--schema", schema.string(), values.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(values.string() + ":3:3: /image/tag: "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(":0:0:"), std::string::npos) << r.err;
}

TEST_F(Validate, InvalidSchemaExits1WithItsProblems) {
  auto schema = file("s.json", R"({"type": "objekt", "properties": {"a": {"pattern": "("}}})");
  auto values = file("v.yaml", "a: 1\n");
  Outcome r = sindri({"validate", "--schema", schema.string(), values.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(schema.string() + " is not a valid JSON Schema"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(schema.string() + ": /type: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/properties/a/pattern"), std::string::npos) << r.err;
}

TEST_F(Validate, UnreadableSchemaExits1) {
  Outcome r = sindri({"validate", "--schema", (dir_ / "none.json").string(), (dir_ / "v.yaml").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot read schema file " + (dir_ / "none.json").string()), std::string::npos) << r.err;

  auto broken = file("broken.json", "{\n  \"type\": \"object\",\n  \"properties\": {\n}");
  r = sindri({"validate", "--schema", broken.string(), broken.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(broken.string() + ":4:"), std::string::npos) << r.err;
}

TEST_F(Validate, UnreadableValuesExit1AndTheOthersAreStillChecked) {
  auto schema = file("s.json", kSchema);
  auto broken = file("broken.yaml", "name: web\n  replicas: 2\n");
  auto bad = file("bad.yaml", "name: Web\n");
  Outcome r = sindri({"validate", "--schema", schema.string(), (dir_ / "none.yaml").string(), broken.string(),
                      bad.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot read values file " + (dir_ / "none.yaml").string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(broken.string() + ":1:7: invalid YAML"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(bad.string() + ":1:7: /name: must match the pattern"), std::string::npos) << r.err;
}

TEST_F(Validate, ViolationsReadTopToBottom) {
  // The validator goes in schema order: properties by name, a, m, z.
  auto schema = file("s.json", R"({"type": "object", "required": ["name"],
      "properties": {"a": {"type": "string"}, "m": {"type": "string"}, "z": {"type": "string"}}})");
  auto values = file("v.yaml", "z: 1\nm: 2\nother:\n  a: 3\na: 4\n");
  Outcome r = sindri({"validate", "--schema", schema.string(), values.string()});
  EXPECT_EQ(r.exit_code, 2);
  const std::string v = values.string();
  const size_t root = r.err.find("(root): missing required property `name`");
  const size_t z = r.err.find("error: " + v + ":1:4: /z: ");
  const size_t m = r.err.find("error: " + v + ":2:4: /m: ");
  const size_t a = r.err.find("error: " + v + ":5:4: /a: ");
  ASSERT_NE(a, std::string::npos) << r.err;
  EXPECT_LT(root, z) << r.err;
  EXPECT_LT(z, m) << r.err;
  EXPECT_LT(m, a) << r.err;
}

TEST_F(Validate, AValuesFileGivenAsTheSchemaIsWarnedAbout) {
  auto values = file("values.yaml", "name: web\nreplicas: 2\n");
  Outcome r = sindri({"validate", "--schema", values.string(), values.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "warning: " + values.string() +
                       " has no JSON Schema keyword that constrains at its top level (type, properties, $ref, ...), "
                       "so as a schema it accepts anything: is it a values file?\n");
  auto tpl = file("t.tera", "{{ name }}");
  r = sindri({"render", tpl.string(), "-f", values.string(), "--schema", values.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "web");
  EXPECT_NE(r.err.find("warning: " + values.string() + " has no JSON Schema keyword"), std::string::npos) << r.err;
  r = sindri({"lint", tpl.string(), "--schema", values.string()});
  EXPECT_NE(r.err.find("warning: " + values.string() + " has no JSON Schema keyword"), std::string::npos) << r.err;
  // A keyword that only describes does not make a values file a schema.
  auto described = file("described.yaml", "name: x\ndescription: my app\nreplicas: 2\n");
  r = sindri({"validate", "--schema", described.string(), values.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: " + described.string() + " has no JSON Schema keyword"), std::string::npos) << r.err;
  // One that constrains does; an empty schema says plainly that anything goes.
  auto schema = file("schema.yaml", "title: Web\nrequired: [name]\n");
  auto empty = file("empty.json", "{}");
  for (const auto& taken : {schema, empty}) {
    r = sindri({"validate", "--schema", taken.string(), values.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "") << taken;
  }
}

TEST_F(Validate, NeedsASchemaAndValues) {
  EXPECT_EQ(sindri({"validate", "v.yaml"}).exit_code, 2);
  EXPECT_EQ(sindri({"validate", "--schema", "s.json"}).exit_code, 2);
}

class Lint : public SindriTest {};

TEST_F(Lint, CleanTemplateExits0AndWarnsAboutUnreadProperties) {
  auto schema = file("s.json", kSchema);
  auto tpl = file("t.tera",
                  "{% set suffix = '-x' %}{% macro label(key, value='v') %}{{ key }}={{ value }}{% endmacro %}"
                  "name: {{ name ~ suffix }}\n"
                  "{% for k, v in image %}{{ k }}: {{ v }} {{ loop.index }}{% endfor %}\n"
                  "{{ self::label(key='a') }} {{ __tera_context | length }}\n");
  Outcome r = sindri({"lint", tpl.string(), "--schema", schema.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, schema.string() + ": warning: property `replicas` is never read by " + tpl.string() + "\n");
}

TEST_F(Lint, UnknownVariableIsAnErrorAtItsLineAndColumn) {
  auto schema = file("s.json", kSchema);
  auto tpl = file("t.tera", "name: {{ name }}\nreplicas: {{ replcas }}\ntag: {{ imag.tag | default(value='x') }}\n"
                            "{% for p in ports %}{{ p }}{% endfor %}{{ replicas }}{{ image.tag }}");
  Outcome r = sindri({"lint", tpl.string(), "--schema", schema.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(tpl.string() + ":2:14: error: `replcas`, which is not a property of the schema " +
                       schema.string()),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(tpl.string() + ":3:9: error: `imag.tag` reads `imag`"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(tpl.string() + ":4:13: error: `ports`"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
}

TEST_F(Lint, NameSetBeforeItIsReadIsLocalButAReadBeforeTheSetIsNot) {
  auto schema = file("s.json", R"({"properties": {"name": {}}})");
  auto tpl = file("t.tera", "{{ name }}{{ early }}{% set early = 1 %}{{ early }}"
                            "{% for x in [1] %}{% set inner = x %}{{ inner }}{% endfor %}{{ inner }}");
  Outcome r = sindri({"lint", tpl.string(), "-s", schema.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(tpl.string() + ":1:14: error: `early`"), std::string::npos) << r.err;
  // A set inside a loop ends with the loop.
  EXPECT_NE(r.err.find(":1:115: error: `inner`"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("error: `early`", r.err.find("error: `early`") + 1), std::string::npos) << r.err;
}

TEST_F(Lint, WithoutASchemaANoteSaysWhatWasNotChecked) {
  auto tpl = file("t.tera", "name: {{ name }}\n");
  Outcome r = sindri({"lint", tpl.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "note: checked the syntax and names of " + tpl.string() +
                       " only: the variables it reads were not checked against a schema (pass --schema SCHEMA)\n");
}

TEST_F(Lint, SyntaxErrorsExit1WithLineAndColumn) {
  auto tpl = file("t.tera", "ok\n{{ a | nofilter }}\n{% if %}\n");
  Outcome r = sindri({"lint", tpl.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(tpl.string() + ":3:"), std::string::npos) << r.err;
}

TEST_F(Lint, UnknownFilterIsAnError) {
  auto tpl = file("t.tera", "ok\n{{ a | nofilter }}\n");
  Outcome r = sindri({"lint", tpl.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(tpl.string() + ":2:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("unknown filter `nofilter`"), std::string::npos) << r.err;
}

TEST_F(Lint, InvalidSchemaIsAnErrorWithItsPointer) {
  auto tpl = file("t.tera", "{{ a }}");
  auto schema = file("s.json", R"({"properties": {"a": {"type": 5}}})");
  Outcome r = sindri({"lint", tpl.string(), "--schema", schema.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(schema.string() + ": error: /properties/a/type: "), std::string::npos) << r.err;
}

TEST_F(Lint, PropertiesComeThroughAllOfAndRef) {
  auto tpl = file("t.tera", "{{ a }}{{ b }}{{ c }}");
  auto schema = file("s.yaml",
                     "$ref: '#/$defs/base'\nallOf:\n  - properties: {b: {}}\n"
                     "$defs:\n  base:\n    properties:\n      a: {}\n      c: {}\n");
  Outcome r = sindri({"lint", tpl.string(), "--schema", schema.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

TEST_F(Lint, TemplatesDirectoryCountsReadsInEveryTemplate) {
  file("tpl/base.tera", "{{ a }}{% block body %}{% endblock %}");
  file("tpl/child.tera", "{% extends \"base.tera\" %}{% block body %}{{ b }}{% endblock %}");
  auto schema = file("s.json", R"({"properties": {"a": {}, "b": {}}})");
  Outcome r = sindri({"lint", "child.tera", "--templates", (dir_ / "tpl").string(), "--schema", schema.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");

  file("tpl/orphan.tera", "{% extends \"missing.tera\" %}");
  r = sindri({"lint", "child.tera", "--templates", (dir_ / "tpl").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("missing.tera"), std::string::npos) << r.err;
}

TEST_F(Lint, TemplatesDirectoryReportsAnIncludeOfAnAbsentTemplate) {
  file("tpl/main.tera", "{{ a }}\n{% include \"gone.tera\" %}");
  Outcome r = sindri({"lint", "main.tera", "--templates", (dir_ / "tpl").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "main.tera:2:1: render error: Template '[gone.tera]' not found\n");
}

}  // namespace
}  // namespace sindri_test
