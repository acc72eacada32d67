#include "placeholder/resolver.hpp"

#include <string>

#include <gtest/gtest.h>

#include "placeholder/kcl.hpp"
#include "placeholder/tree_root.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::placeholder {
namespace {

YamlDocument document(const std::string& text) {
  YamlOptions options;
  options.record_positions = true;
  auto docs = parse_yaml_stream(text, "t.yaml", options);
  EXPECT_TRUE(docs.ok());
  return docs.ok() ? docs->front() : YamlDocument{};
}

// A root "app" over {name: pg, replicas: 3, labels: {tier: db}, trap: "{$slapperRef: app.name}"}.
Resolver app_resolver() {
  Value labels{Object{}};
  labels.set("tier", "db");
  Value tree{Object{}};
  tree.set("name", "pg");
  tree.set("replicas", 3);
  tree.set("labels", labels);
  tree.set("trap", "{$slapperRef: app.name}");
  auto root = std::make_shared<TreeRoot>(tree, std::vector<Field>{{"name", true, Value::Kind::String, false},
                                                                  {"replicas", true, Value::Kind::Int, false},
                                                                  {"labels", false, Value::Kind::Object, false},
                                                                  {"trap", true, Value::Kind::String, false},
                                                                  {"owner", true, Value::Kind::String, false},
                                                                  {"extra", false, Value::Kind::Object, false},
                                                                  {"tags", false, Value::Kind::Array, false}});
  Resolver resolver;
  resolver.add_root("app", [root](std::string_view rest) { return root->lookup(rest); });
  return resolver;
}

std::string resolved_yaml(const std::string& text) {
  auto out = app_resolver().resolve(document(text), "t.yaml");
  EXPECT_TRUE(out.ok()) << (out.ok() ? "" : out.error().message);
  return out.ok() ? to_yaml(*out) : "";
}

std::string error_of(const std::string& text) {
  auto out = app_resolver().resolve(document(text), "t.yaml");
  EXPECT_FALSE(out.ok());
  return out.ok() ? "" : out.error().message;
}

TEST(Resolver, ReplacesSingleKeyMapsStructurally) {
  EXPECT_EQ(resolved_yaml("a: {$slapperRef: app.name}\nb:\n- $slapperRef: app.replicas\n- {$slapperRef: app.labels}\n"),
            "a: pg\nb:\n- 3\n- tier: db\n");
}

TEST(Resolver, LeavesOtherTemplateSyntaxesAlone) {
  EXPECT_EQ(resolved_yaml("a: '{{ .Values.x }} ${y} has(self.z)'\n"), "a: '{{ .Values.x }} ${y} has(self.z)'\n");
}

TEST(Resolver, KclViewAtAYamlPositionIsTheKclText) {
  EXPECT_EQ(resolved_yaml("a: {$slapperRef: app.name.kcl}\n"), "a: '\"pg\"'\n");
}

TEST(Resolver, DoesNotRecurseIntoSubstitutedValues) {
  EXPECT_EQ(resolved_yaml("a: {$slapperRef: app.trap}\n"), "a: '{$slapperRef: app.name}'\n");
  // Nor into the KCL text of a value placed inside a string.
  EXPECT_EQ(resolved_yaml("a: 'x = {$slapperRef: app.trap}'\n"), "a: 'x = \"{$slapperRef: app.name}\"'\n");
}

TEST(Resolver, InStringPlaceholdersBecomeKclText) {
  EXPECT_EQ(resolved_yaml("s: |\n  n = {$slapperRef: app.name}\n  r = { $slapperRef :  app.replicas }\n"),
            "s: |\n  n = \"pg\"\n  r = 3\n");
}

TEST(Resolver, MultiLineKclTextKeepsTheLineIndent) {
  Value tree{Object{}};
  Value values{Object{}};
  values.set("a", 1);
  values.set("b", 2);
  tree.set("values", values);
  auto root = std::make_shared<TreeRoot>(tree, std::vector<Field>{{"values", false, Value::Kind::Object, false}});
  Resolver resolver;
  resolver.add_root("r", [root](std::string_view rest) { return root->lookup(rest); });
  auto out = resolver.resolve(document("s: |\n  x = 1\n      v = {$slapperRef: r.values.kcl}\n"), "t.yaml");
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(out->find("s")->get_string(), "x = 1\n    v = {\n        a = 1\n        b = 2\n    }\n");
}

TEST(Resolver, UnknownRootNamesPathAndPosition) {
  const std::string e = error_of("spec:\n  a: {$slapperRef: nope.field}\n");
  EXPECT_NE(e.find("t.yaml:2:6"), std::string::npos) << e;
  EXPECT_NE(e.find("nope.field"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown root \"nope\""), std::string::npos) << e;
}

TEST(Resolver, UnknownRootInsideAStringNamesTheLineOfTheString) {
  const std::string e = error_of("s: |\n  a\n  b = {$slapperRef: nope.x}\n");
  EXPECT_NE(e.find("t.yaml:2:1"), std::string::npos) << e;
  EXPECT_NE(e.find("line 2 of the string"), std::string::npos) << e;
  EXPECT_NE(e.find("nope.x"), std::string::npos) << e;
}

TEST(Resolver, MissingRequiredFieldIsAnError) {
  const std::string e = error_of("x:\n  y: {$slapperRef: app.owner}\n");
  EXPECT_NE(e.find("t.yaml:2:6"), std::string::npos) << e;
  EXPECT_NE(e.find("app.owner"), std::string::npos) << e;
  EXPECT_NE(e.find("required field \"owner\" is missing"), std::string::npos) << e;
}

TEST(Resolver, MissingOptionalFieldIsTheEmptyValueOfItsKind) {
  EXPECT_EQ(resolved_yaml("a: {$slapperRef: app.extra}\nb: {$slapperRef: app.tags}\nc: 'v = {$slapperRef: app.extra}'\n"),
            "a: {}\nb: []\nc: v = {}\n");
}

TEST(Resolver, UnknownFieldIsAnError) {
  const std::string e = error_of("a: {$slapperRef: app.colour}\n");
  EXPECT_NE(e.find("unknown field \"colour\""), std::string::npos) << e;
}

TEST(Resolver, MalformedPlaceholdersAreErrors) {
  EXPECT_NE(error_of("a: 'x = {$slapperRef: }'\n").find("malformed placeholder"), std::string::npos);
  EXPECT_NE(error_of("a: 'x = $slapperRef: app.name'\n").find("malformed placeholder"), std::string::npos);
  EXPECT_NE(error_of("a: {$slapperRef: app.name, other: 1}\n").find("only key"), std::string::npos);
  EXPECT_NE(error_of("a: {$slapperRef: [x]}\n").find("must be a string"), std::string::npos);
}

TEST(Resolver, KeysAreNotSearched) {
  EXPECT_EQ(resolved_yaml("'{$slapperRef: app.name}': 1\n"), "'{$slapperRef: app.name}': 1\n");
}

}  // namespace
}  // namespace sindri::placeholder
