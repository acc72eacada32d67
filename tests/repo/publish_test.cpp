// A repository's kubernetes template as a broker template: its files as one
// Tera text that renders what the repository renders, its defaults in the
// parameter schema, and the refusals of what a broker cannot do.

#include <gtest/gtest.h>

#include "repo/publish.hpp"
#include "repo/repo_fixture.hpp"
#include "schema/schema.hpp"
#include "tera/tera.hpp"
#include "value/json.hpp"

namespace sindri::repo {
namespace {

using namespace repo_testing;

class Publish : public RepoTest {
 protected:
  void SetUp() override {
    RepoTest::SetUp();
    fs::create_directories(root_ / "first");
    project_file("sindri_templates:\n  version: 2\n  template_sources:\n    - type: filesystem\n      location: ../first\n"
                 "    - type: filesystem\n      location: ../second\n");
  }
  Result<BrokerTemplate> publish(const std::string& name) {
    auto workspace = open();
    if (!workspace) return std::move(workspace).error();
    workspace_ = std::make_unique<Workspace>(std::move(workspace).value());
    const auto location = workspace_->catalog.locate(name);
    if (!location) return make_error("no template " + name);
    SINDRI_TRY(tpl, load_template(*location));
    return broker_template(tpl);
  }
  static std::string rendered(const std::string& tera_text, const Value& context) {
    auto compiled = tera::compile("published", tera_text);
    EXPECT_TRUE(compiled.ok()) << (compiled.ok() ? "" : compiled.error().describe()) << "\n" << tera_text;
    if (!compiled.ok()) return {};
    auto out = tera::render(**compiled, context);
    EXPECT_TRUE(out.ok()) << (out.ok() ? "" : out.error().describe());
    return out.ok() ? *out : std::string();
  }
  static Value json(const std::string& text) { return *parse_json(text); }
};

TEST_F(Publish, FilesBecomeOneStreamInPathOrderOverridesHonoured) {
  make_template("second", "web", R"({"name": "Web", "type": "kubernetes", "default_settings": {"name": "shop"}})");
  write("second/web/files/b/service.yaml.tera", "kind: Service\nname: {{ name }}\n");
  write("second/web/files/a.yaml", "kind: ConfigMap\ndata: '{{ not rendered }}'");
  write("second/web/files/c.yaml.tera", "kind: Original\n");
  write("first/web/files/c.yaml.tera", "kind: Tweaked\nname: {{ name }}\n");
  auto published = publish("web");
  ASSERT_TRUE(published.ok()) << published.error().message;
  EXPECT_EQ(published->name, "web");
  EXPECT_EQ(published->description, "Web");
  EXPECT_EQ(published->template_content,
            "{% raw %}kind: ConfigMap\ndata: '{{ not rendered }}'{% endraw %}\n---\n"
            "kind: Service\nname: {{ name }}\n---\n"
            "kind: Tweaked\nname: {{ name }}\n");
  EXPECT_EQ(rendered(published->template_content, json(R"({"name": "shop"})")),
            "kind: ConfigMap\ndata: '{{ not rendered }}'\n---\nkind: Service\nname: shop\n---\nkind: Tweaked\nname: shop\n");
}

TEST_F(Publish, AnyTextComesOutVerbatimEvenOneHoldingEndraw) {
  for (const std::string& text :
       {std::string("a {% endraw %} b"), std::string("{%- endraw -%}{%endraw%}{%"), std::string("{% raw %}{{ x }}"),
        std::string("%}{#-{{"), std::string("ends with {"), std::string("{%\n endraw\t%} {% if %}"), std::string()}) {
    EXPECT_EQ(rendered(verbatim_tera(text), Value(Object{})), text) << verbatim_tera(text);
  }
}

TEST_F(Publish, TrimmingTagsAtTheEdgesOfAFileKeepTheDocumentsApart) {
  make_template("second", "web", R"({"name": "Web", "type": "kubernetes", "default_settings": {"on": true}})");
  write("second/web/files/a.yaml.tera", "kind: A\n{% if on -%}\non: yes\n{%- endif -%}\n");
  write("second/web/files/b.yaml.tera", "  {%- if on %}kind: B{% endif %}");
  auto published = publish("web");
  ASSERT_TRUE(published.ok()) << published.error().message;
  EXPECT_EQ(rendered(published->template_content, json(R"({"on": true})")), "kind: A\non: yes\n---\nkind: B\n");
}

TEST_F(Publish, DefaultsAndSharedDefaultsBecomeTheSchemasDefaults) {
  make_template("second", "web",
                R"({"name": "Web", "type": "kubernetes",
                    "default_settings": {"name": "shop", "replicas": 2, "resources": {"cpu": "1", "memory": "1Gi"}},
                    "shared_settings": {"domain": "example.org", "replicas": 5},
                    "setting_subscriptions": ["region"]})",
                R"({"type": "object", "required": ["name"],
                    "properties": {"name": {"type": "string"}, "resources": {"type": "object"},
                                   "region": {"type": "string"}}})");
  write("second/web/files/x.yaml.tera", "name: {{ name }}\n");
  auto published = publish("web");
  ASSERT_TRUE(published.ok()) << published.error().message;
  // The template's own default wins over its shared setting's, as in the
  // repository; the subscribed setting stays an ordinary parameter.
  EXPECT_EQ(published->parameters_schema, json(R"({"type": "object", "required": ["name"], "properties": {
      "name": {"type": "string", "default": "shop"},
      "replicas": {"default": 2},
      "domain": {"default": "example.org"},
      "region": {"type": "string"},
      "resources": {"type": "object", "default": {"cpu": "1", "memory": "1Gi"},
                    "properties": {"cpu": {"default": "1"}, "memory": {"default": "1Gi"}}}}})"));
  // The broker fills a partly given object as the repository merges it.
  auto compiled = schema::compile_schema(published->parameters_schema);
  ASSERT_TRUE(compiled.ok());
  EXPECT_EQ(schema::apply_defaults(*compiled, json(R"({"resources": {"cpu": "2"}})")),
            json(R"({"name": "shop", "replicas": 2, "domain": "example.org",
                     "resources": {"cpu": "2", "memory": "1Gi"}})"));
}

TEST_F(Publish, WithoutASchemaTheDefaultsMakeAnObjectSchema) {
  make_template("second", "web", R"({"name": "Web", "type": "kubernetes", "default_settings": {"port": 80}})");
  write("second/web/files/x.yaml.tera", "port: {{ port }}\n");
  auto published = publish("web");
  ASSERT_TRUE(published.ok()) << published.error().message;
  EXPECT_EQ(published->parameters_schema, json(R"({"type": "object", "properties": {"port": {"default": 80}}})"));
}

TEST_F(Publish, EveryRefusalOfATemplateAtOnce) {
  make_template("second", "app", R"({"name": "App"})");
  write("second/app/files/x.yaml", "x: 1\n");
  script("second/app/hooks/after_default_settings", "#!/bin/sh\ncat\n");
  write("second/app/files_init/README.md", "hello\n");
  auto refused = publish("app");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            "template `app` is of type project: only kubernetes templates can be published to a broker\n"
            "template `app` has a hook, " + (root_ / "second/app/hooks/after_default_settings").string() +
                ", which a broker cannot run\n"
                "template `app` has files_init/ files, which mean nothing on a broker (it has no project to "
                "initialise)");
}

TEST_F(Publish, ATemplateWithoutFilesIsRefused) {
  make_template("second", "empty", R"({"name": "Empty", "type": "kubernetes"})");
  auto refused = publish("empty");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message, "template `empty` has no files under files/: there is nothing to publish");
}

TEST_F(Publish, BinaryFilesBadTeraAndReferencesAreRefusedNamingTheFile) {
  make_template("second", "web", R"({"name": "Web", "type": "kubernetes"})");
  write("second/web/files/logo.png", std::string("\x89PNG\r\n", 6));
  write("second/web/files/nul.txt", std::string("a\0b", 3));
  write("second/web/files/bad.yaml.tera", "x: {{ oops\n");
  write("second/web/files/inc.yaml.tera", "a: 1\n{% include \"other\" %}\n");
  auto refused = publish("web");
  ASSERT_FALSE(refused.ok());
  const std::string dir = (root_ / "second/web/files/").string();
  const Problems problems = problems_of(refused.error());
  ASSERT_EQ(problems.size(), 4u) << refused.error().message;
  EXPECT_EQ(problems[0].rfind("template `web`: " + dir + "bad.yaml.tera:1:", 0), 0u) << problems[0];
  EXPECT_EQ(problems[1], "template `web`: " + dir +
                             "inc.yaml.tera:2:1: names another template, `other`, which a broker template cannot reach");
  EXPECT_EQ(problems[2], "template `web`: " + dir +
                             "logo.png is not UTF-8 text (a binary file?): a broker template holds text only");
  EXPECT_EQ(problems[3], "template `web`: " + dir +
                             "nul.txt is not UTF-8 text (a binary file?): a broker template holds text only");
}

// The broker compiles the files as one template: what only the whole
// stream gets wrong is refused before anything is written, at its file,
// line and column.
TEST_F(Publish, TheStreamIsCheckedAsTheBrokerCompilesIt) {
  make_template("second", "web", R"({"name": "Web", "type": "kubernetes"})");
  write("second/web/files/a.yaml.tera", "{% macro m() %}a{% endmacro m %}a: {{ self::m() }}\n");
  write("second/web/files/b.yaml.tera", "b: 1\n{% macro m() %}b{% endmacro m %}b: {{ self::m() }}\n");
  const std::string dir = (root_ / "second/web/files/").string();
  auto twice = publish("web");
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().message, "template `web`: " + dir +
                                       "b.yaml.tera:2:10: macro `m` is duplicated, in the files published as one "
                                       "template");

  // Isolated, as on a broker: no clock. The column is the file's, though a
  // separator stands before it on that line of the stream.
  fs::remove(root_ / "second/web/files/b.yaml.tera");
  write("second/web/files/c.yaml.tera", "  {%- if true %}c: {{ now() }}{% endif %}\n");
  auto refused = publish("web");
  ASSERT_FALSE(refused.ok());
  const Problems problems = problems_of(refused.error());
  ASSERT_EQ(problems.size(), 1u) << refused.error().message;
  EXPECT_EQ(problems[0].rfind("template `web`: " + dir + "c.yaml.tera:1:23: ", 0), 0u) << problems[0];
  EXPECT_NE(problems[0].find("now"), std::string::npos) << problems[0];
  EXPECT_TRUE(problems[0].ends_with(", in the files published as one template")) << problems[0];
}

TEST_F(Publish, ASetThatWouldReachAnotherFileIsRefused) {
  make_template("second", "web", R"({"name": "Web", "type": "kubernetes"})");
  write("second/web/files/a.yaml.tera", "{% if true %}\n  {% set n = 99 %}{% endif %}a: {{ n }}\n");
  write("second/web/files/b.yaml.tera",
        "{% for i in [1] %}{% set m = 1 %}{% set_global g = 2 %}{% endfor %}"
        "{% macro k() %}{% set q = 1 %}{% set_global r = 1 %}{% endmacro k %}b: {{ self::k() }}\n");
  write("second/web/files/c.yaml.tera", "c: {{ self::elsewhere() }}\n");
  auto refused = publish("web");
  ASSERT_FALSE(refused.ok());
  const std::string dir = (root_ / "second/web/files/").string();
  const std::string reaches =
      "would reach the template's other files on a broker, which renders them as one template: set it inside a "
      "`for` loop, or in each file that uses it";
  const Problems problems = problems_of(refused.error());
  ASSERT_EQ(problems.size(), 3u) << refused.error().message;
  EXPECT_EQ(problems[0], "template `web`: " + dir + "a.yaml.tera:2:3: `set n` " + reaches);
  EXPECT_EQ(problems[1], "template `web`: " + dir + "b.yaml.tera:1:34: `set_global g` " + reaches);
  // A macro of another file is not there when the repository renders.
  EXPECT_EQ(problems[2], "template `web`: " + dir +
                             "c.yaml.tera:1:7: macro `self::elsewhere` is not defined in this template (in "
                             "`self::elsewhere()`)");
}

TEST_F(Publish, ASetInTheOnlyTeraFileIsPublished) {
  make_template("second", "web", R"({"name": "Web", "type": "kubernetes"})");
  write("second/web/files/a.yaml", "a: 1\n");
  write("second/web/files/b.yaml.tera", "{% set n = 3 %}n: {{ n }}\n");
  auto published = publish("web");
  ASSERT_TRUE(published.ok()) << published.error().message;
  EXPECT_EQ(rendered(published->template_content, Value(Object{})), "a: 1\n---\nn: 3\n");
}

// Brokkr's API has no `name` filter: the list may hold every template.
TEST_F(Publish, TheLiveTemplateIsTheOwnersNewestOfTheName) {
  const Value listed = json(R"([
      {"id": "1", "name": "web", "generator_id": null, "version": 2},
      {"id": "2", "name": "db", "generator_id": null, "version": 7},
      {"id": "3", "name": "web", "generator_id": "g", "version": 9},
      {"id": "4", "name": "web", "generator_id": null, "version": 3},
      {"id": "5", "name": "web-2", "generator_id": null, "version": 8},
      {"id": "6", "generator_id": null, "version": 10}])");
  const auto system = owned_live_template(listed.get_array(), "web", Value());
  ASSERT_TRUE(system.has_value());
  EXPECT_EQ(*system->find("id"), Value("4"));
  const auto generators = owned_live_template(listed.get_array(), "web", Value("g"));
  ASSERT_TRUE(generators.has_value());
  EXPECT_EQ(*generators->find("id"), Value("3"));
  EXPECT_FALSE(owned_live_template(listed.get_array(), "api", Value()).has_value());
  EXPECT_FALSE(owned_live_template(listed.get_array(), "db", Value("g")).has_value());
}

TEST_F(Publish, TheBrokerHoldsATemplateOnlyWithTheSameDescriptionContentAndSchema) {
  const BrokerTemplate published{"web", "Web", "a: 1\n", json(R"({"type": "object", "properties": {}})")};
  Value live = json(R"({"name": "web", "description": "Web", "template_content": "a: 1\n",
                        "parameters_schema": "{\"properties\": {}, \"type\": \"object\"}"})");
  EXPECT_TRUE(broker_holds(live, published));
  Value described = live;
  described.set("description", Value("Another"));
  EXPECT_FALSE(broker_holds(described, published));
  Value changed = live;
  changed.set("template_content", Value("a: 2\n"));
  EXPECT_FALSE(broker_holds(changed, published));
  Value schema = live;
  schema.set("parameters_schema", Value(R"({"type": "object"})"));
  EXPECT_FALSE(broker_holds(schema, published));
  const BrokerTemplate undescribed{"web", "", "a: 1\n", published.parameters_schema};
  Value none = live;
  none.set("description", Value());
  EXPECT_TRUE(broker_holds(none, undescribed));
  EXPECT_FALSE(broker_holds(none, published));
}

TEST_F(Publish, TheDefaultDeploymentTemplateIsPublishable) {
  project_file("sindri_templates:\n  version: 2\n  template_sources:\n    - type: filesystem\n      location: " +
               std::string(SINDRI_SOURCE_DIR) + "/templates/default\n");
  auto published = publish("deployment");
  ASSERT_TRUE(published.ok()) << published.error().message;
  const Value* name = published->parameters_schema.find("properties")->find("name");
  EXPECT_EQ(*name->find("default"), Value("app"));
  EXPECT_NE(published->template_content.find("kind: Deployment"), std::string::npos);
}

}  // namespace
}  // namespace sindri::repo
