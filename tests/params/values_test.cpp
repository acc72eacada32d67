// src/params: values files, merging, and Helm's --set syntax.

#include "params/values.hpp"

#include <gtest/gtest.h>

#include "value/json.hpp"

namespace sindri::params {
namespace {

Value json(std::string_view text) { return *parse_json(text); }

Value set(std::string_view argument, SetMode mode = SetMode::Typed, Value values = Value(Object{})) {
  auto applied = apply_set(values, argument, mode);
  EXPECT_TRUE(applied.ok()) << argument << ": " << (applied ? "" : applied.error().describe());
  return values;
}

SetError set_error(std::string_view argument) {
  Value values{Object{}};
  auto applied = apply_set(values, argument, SetMode::Typed);
  EXPECT_FALSE(applied.ok()) << argument;
  return applied ? SetError{} : applied.error();
}

TEST(TypedValue, FollowsHelmsTypedVal) {
  EXPECT_EQ(typed_value("true"), Value(true));
  EXPECT_EQ(typed_value("FALSE"), Value(false));
  EXPECT_EQ(typed_value("Null"), Value());
  EXPECT_EQ(typed_value("0"), Value(0));
  EXPECT_EQ(typed_value("42"), Value(42));
  EXPECT_EQ(typed_value("-7"), Value(-7));
  EXPECT_EQ(typed_value("+5"), Value(5));
  EXPECT_EQ(typed_value("9223372036854775807"), Value(9223372036854775807L));
  EXPECT_EQ(typed_value("-9223372036854775808"), Value(static_cast<long>(INT64_MIN)));
  // Strings: leading zeros, too large, floats, YAML 1.1 bools, empty.
  EXPECT_EQ(typed_value("0755"), Value("0755"));
  EXPECT_EQ(typed_value("007"), Value("007"));
  EXPECT_EQ(typed_value("9223372036854775808"), Value("9223372036854775808"));
  EXPECT_EQ(typed_value("1.5"), Value("1.5"));
  EXPECT_EQ(typed_value("1e3"), Value("1e3"));
  EXPECT_EQ(typed_value("yes"), Value("yes"));
  EXPECT_EQ(typed_value("-"), Value("-"));
  EXPECT_EQ(typed_value(""), Value(""));
}

TEST(ApplySet, DottedPathsAndSeveralAssignments) {
  EXPECT_EQ(set("a.b.c=1,d=x"), json(R"({"a":{"b":{"c":1}},"d":"x"})"));
  EXPECT_EQ(set("a=b=c"), json(R"({"a":"b=c"})"));
  EXPECT_EQ(set("a="), json(R"({"a":""})"));
  EXPECT_EQ(set("a=1,"), json(R"({"a":1})"));
}

TEST(ApplySet, ListsAndIndexes) {
  EXPECT_EQ(set("l={x,2,true}"), json(R"({"l":["x",2,true]})"));
  EXPECT_EQ(set("l={},m=1"), json(R"({"l":[],"m":1})"));
  EXPECT_EQ(set("a[1]=x"), json(R"({"a":[null,"x"]})"));
  EXPECT_EQ(set("a[0].b=1,a[0].c=2"), json(R"({"a":[{"b":1,"c":2}]})"));
  EXPECT_EQ(set("m[1][0]=z"), json(R"({"m":[null,["z"]]})"));
  EXPECT_EQ(set("a.b[0]={x,y}"), json(R"({"a":{"b":[["x","y"]]}})"));
}

TEST(ApplySet, EscapesKeepCommasAndDots) {
  EXPECT_EQ(set(R"(v=x\,y,w=1)"), json(R"({"v":"x,y","w":1})"));
  EXPECT_EQ(set(R"(a\.b=1)"), json(R"({"a.b":1})"));
  EXPECT_EQ(set(R"(l={a\,b,c})"), json(R"({"l":["a,b","c"]})"));
  EXPECT_EQ(set(R"(p=C:\\dir)"), json(R"({"p":"C:\\dir"})"));
}

TEST(ApplySet, SetStringNeverTypes) {
  EXPECT_EQ(set("a=1,b=true,c=null,l={1,false}", SetMode::String),
            json(R"({"a":"1","b":"true","c":"null","l":["1","false"]})"));
}

TEST(ApplySet, MergesIntoExistingValues) {
  Value base = json(R"({"image":{"repo":"nginx","tag":"1"},"ports":[80,443],"s":"x"})");
  EXPECT_EQ(set("image.tag=2,ports[1]=8443,s.t=1", SetMode::Typed, base),
            json(R"({"image":{"repo":"nginx","tag":2},"ports":[80,8443],"s":{"t":1}})"));
  EXPECT_EQ(set("image=plain", SetMode::Typed, base).find("image")->get_string(), "plain");
}

TEST(ApplySet, ErrorsNameTheArgumentAndColumn) {
  SetError e = set_error("a.b");
  EXPECT_EQ(e.column, 4u);
  EXPECT_EQ(e.describe(), "`a.b` at column 4: `a.b` has no value (expected `=`)");
  EXPECT_EQ(set_error("a=1,b,c=2").column, 6u);
  EXPECT_EQ(set_error("a[x]=1").column, 3u);
  EXPECT_NE(set_error("a[x]=1").message.find("not a number"), std::string::npos);
  EXPECT_NE(set_error("a[-1]=1").message.find("negative"), std::string::npos);
  EXPECT_NE(set_error("a[70000]=1").message.find("larger"), std::string::npos);
  EXPECT_EQ(set_error("a[0=1").column, 2u);
  EXPECT_EQ(set_error("a[0]x=1").column, 5u);
  EXPECT_EQ(set_error("l={x,y").column, 3u);
  EXPECT_EQ(set_error("l={x}y").column, 6u);
  EXPECT_EQ(set_error("a..b=1").column, 3u);
  EXPECT_EQ(set_error("=1").column, 1u);
  std::string deep;
  for (int i = 0; i < 31; ++i) deep += "a.";
  EXPECT_NE(set_error(deep + "b=1").message.find("nested deeper"), std::string::npos);
}

TEST(MergeValues, DeepMergesMapsLaterWins) {
  Value a = json(R"({"a":{"x":1,"y":{"z":1}},"l":[1,2],"s":"keep","n":1})");
  Value b = json(R"({"a":{"y":{"w":2},"x":null},"l":[3],"n":{"m":1}})");
  EXPECT_EQ(merge_values(a, b), json(R"({"a":{"x":null,"y":{"z":1,"w":2}},"l":[3],"s":"keep","n":{"m":1}})"));
  EXPECT_EQ(merge_values(json(R"({"a":{"b":1}})"), json(R"({"a":2})")), json(R"({"a":2})"));
}

TEST(ParseValues, YamlOrJsonByContent) {
  auto yaml = parse_values("replicas: 3\nenabled: yes\nmode: \"0755\"\n", "v.yaml");
  ASSERT_TRUE(yaml.ok()) << yaml.error().message;
  EXPECT_EQ(yaml->value, json(R"({"replicas":3,"enabled":true,"mode":"0755"})"));
  ASSERT_NE(yaml->position_of("/mode"), nullptr);
  EXPECT_EQ(yaml->position_of("/mode")->line, 3u);

  // JSON keeps JSON's meaning: 1.0 stays a float.
  auto js = parse_values(R"({"ratio": 1.0})", "v.json");
  ASSERT_TRUE(js.ok());
  EXPECT_TRUE(js->value.find("ratio")->is_float());
  // Text starting with `{` is JSON, and only JSON.
  auto flow = parse_values("{a: 1}", "v.yaml");
  ASSERT_FALSE(flow.ok());
  EXPECT_EQ(flow.error().message.rfind("v.yaml:1:2: invalid JSON", 0), 0u) << flow.error().message;
  EXPECT_EQ(parse_values("", "empty.yaml")->value, Value(Object{}));
}

TEST(ParseValues, ErrorsNameFileLineAndColumn) {
  auto bad_json = parse_values("{\n  \"a\": 1,\n}", "v.json");
  ASSERT_FALSE(bad_json.ok());
  EXPECT_EQ(bad_json.error().message.rfind("v.json:3:1: invalid JSON", 0), 0u) << bad_json.error().message;
  // A key given twice is an error in JSON as in YAML, naming both places.
  auto twice = parse_values("{\"a\": 1,\n \"a\": 2}", "dup.json");
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().message, "dup.json:2:2: invalid JSON: duplicate key \"a\" (first at line 1 column 2)");
  EXPECT_FALSE(parse_values("a: 1\na: 2\n", "dup.yaml").ok());
  auto bad_yaml = parse_values("a: 1\nb: [1, 2\n", "v.yaml");
  ASSERT_FALSE(bad_yaml.ok());
  EXPECT_EQ(bad_yaml.error().message.rfind("v.yaml:", 0), 0u) << bad_yaml.error().message;
  EXPECT_NE(bad_yaml.error().message.find("invalid YAML"), std::string::npos);
  auto list = parse_values("- 1\n", "l.yaml");
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.error().message, "l.yaml:1:1: values must be a mapping, not a list");
  auto two = parse_values("a: 1\n---\nb: 2\n", "two.yaml");
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.error().message.rfind("two.yaml:", 0), 0u);
}

}  // namespace
}  // namespace sindri::params
