// TOML text as a Value (Brokkr's configuration files): every TOML type, and
// bad files answered with an error naming file, line and column, never a crash.

#include "agent/toml_config.hpp"

#include <gtest/gtest.h>

#include <string>

#include "value/json.hpp"

namespace sindri::agent {
namespace {

std::string json_of(std::string_view toml) {
  auto parsed = parse_toml(toml, "t.toml");
  return parsed.ok() ? to_json(*parsed) : "error: " + parsed.error().message;
}

std::string error_of(std::string_view toml) {
  auto parsed = parse_toml(toml, "t.toml");
  return parsed.ok() ? "(no error)" : parsed.error().message;
}

TEST(TomlConfig, EveryTypeBecomesAValue) {
  EXPECT_EQ(json_of("s = \"text\"\nl = 'literal'\nm = \"\"\"\nmulti\"\"\"\ni = -42\nh = 0xff\nf = 0.25\n"
                    "e = 1e3\nb = true\nn = false\n"),
            R"({"b":true,"e":1000.0,"f":0.25,"h":255,"i":-42,"l":"literal","m":"multi","n":false,"s":"text"})");
  EXPECT_EQ(json_of("a = [1, \"two\", [3.5], {x = 1}]\nempty = []\n"),
            R"({"a":[1,"two",[3.5],{"x":1}],"empty":[]})");
  EXPECT_EQ(json_of("big = 9223372036854775807\n"), R"({"big":9223372036854775807})");
}

TEST(TomlConfig, DatesAndTimesBecomeTheirText) {
  EXPECT_EQ(json_of("offset = 1979-05-27T00:32:00.5-07:00\nutc = 1979-05-27T07:32:00Z\nlocal = 1979-05-27T07:32:00\n"
                    "day = 1979-05-27\ntime = 07:32:00\n"),
            R"({"day":"1979-05-27","local":"1979-05-27T07:32:00","offset":"1979-05-27T00:32:00.5-07:00",)"
            R"("time":"07:32:00","utc":"1979-05-27T07:32:00Z"})");
}

TEST(TomlConfig, TablesNestAsObjects) {
  EXPECT_EQ(json_of("top = 1\n[agent]\nname = \"a\"\n[telemetry.agent]\nservice_name = \"x\"\n"
                    "[[hooks]]\nurl = \"u1\"\n[[hooks]]\nurl = \"u2\"\n"),
            R"({"agent":{"name":"a"},"hooks":[{"url":"u1"},{"url":"u2"}],"telemetry":{"agent":{"service_name":"x"}},)"
            R"("top":1})");
  EXPECT_EQ(json_of("a.b.c = 1\n"), R"({"a":{"b":{"c":1}}})");
  EXPECT_EQ(json_of(""), "{}");
  EXPECT_EQ(json_of("# only a comment\n"), "{}");
}

TEST(TomlConfig, SyntaxErrorsNameFileLineAndColumn) {
  EXPECT_EQ(error_of("[agent]\nbroker_url = \"http://b\"\npolling_interval = = 5\n").rfind("t.toml:3:20: ", 0), 0u)
      << error_of("[agent]\nbroker_url = \"http://b\"\npolling_interval = = 5\n");
  EXPECT_EQ(error_of("[agent]\npak = \"unterminated\n").rfind("t.toml:2:", 0), 0u)
      << error_of("[agent]\npak = \"unterminated\n");
  const std::string duplicate = error_of("[agent]\npak = \"a\"\npak = \"b\"\n");
  EXPECT_EQ(duplicate.rfind("t.toml:3:", 0), 0u) << duplicate;
  EXPECT_NE(duplicate.find("pak"), std::string::npos) << duplicate;
  EXPECT_EQ(error_of("[agent]\n[agent]\n").rfind("t.toml:2:", 0), 0u) << error_of("[agent]\n[agent]\n");
  EXPECT_EQ(error_of("agent: {broker_url: x}\n").rfind("t.toml:1:", 0), 0u);  // YAML is not TOML
  EXPECT_EQ(error_of("n = 99999999999999999999\n").rfind("t.toml:1:", 0), 0u);
  EXPECT_EQ(error_of(std::string("s = \"\xff\"\n")).rfind("t.toml:1:", 0), 0u);  // not UTF-8
  EXPECT_EQ(error_of(std::string("s = 1\0\n", 7)).rfind("t.toml:1:", 0), 0u);
}

TEST(TomlConfig, DeepNestingIsAnErrorNotACrash) {
  std::string header = "[a";
  for (int level = 0; level < 200; ++level) header += ".a";
  EXPECT_EQ(error_of(header + "]\nx = 1\n"), "t.toml:1:1: nested deeper than 128 tables and arrays");

  std::string deepest_read = "[a";  // as deep as the bound on '.' lets toml++ go
  for (int level = 0; level < 8190; ++level) deepest_read += ".a";
  EXPECT_NE(error_of(deepest_read + "]\n").find("nested deeper than 128"), std::string::npos);

  std::string deeper = "[a";
  for (int level = 0; level < 100000; ++level) deeper += ".a";
  EXPECT_EQ(error_of(deeper + "]\n"),
            "t.toml: more than 8192 '.', '[' and '{', which could nest too deeply to read; a configuration needs "
            "far fewer");

  const std::string arrays = "x = " + std::string(1000, '[') + std::string(1000, ']') + "\n";
  EXPECT_EQ(error_of(arrays).rfind("t.toml:1:", 0), 0u) << error_of(arrays);
}

}  // namespace
}  // namespace sindri::agent
