// template.json: defaults, types, unknown keys, positions.

#include <gtest/gtest.h>

#include "repo/metadata.hpp"
#include "repo/problems.hpp"

namespace sindri::repo {
namespace {

TEST(TemplateJson, FillsTheDefaults) {
  auto meta = parse_template_json(R"({"name": "Web"})", "web/template.json", "web");
  ASSERT_TRUE(meta.ok()) << meta.error().message;
  EXPECT_EQ(meta->name, "Web");
  EXPECT_EQ(meta->description, "Web");
  EXPECT_EQ(meta->type, TemplateType::Project);
  EXPECT_EQ(meta->default_settings, Value(Object{}));
  EXPECT_FALSE(meta->always_apply);
  EXPECT_EQ(meta->tags, std::vector<std::string>{"web"});
  EXPECT_TRUE(meta->setting_subscriptions.empty());
}

TEST(TemplateJson, ReadsEveryKey) {
  auto meta = parse_template_json(R"({
  "name": "Service monitor",
  "description": "A ServiceMonitor",
  "type": "kubernetes",
  "default_settings": {"interval": "30s"},
  "always_apply": true,
  "tags": ["metrics", "service_monitor"],
  "shared_settings": {"metrics_port": 9090},
  "setting_subscriptions": ["app_name"]
})",
                                  "service_monitor/template.json", "service_monitor");
  ASSERT_TRUE(meta.ok()) << meta.error().message;
  EXPECT_EQ(meta->description, "A ServiceMonitor");
  EXPECT_EQ(meta->type, TemplateType::Kubernetes);
  EXPECT_EQ(*meta->default_settings.find("interval"), Value("30s"));
  EXPECT_TRUE(meta->always_apply);
  EXPECT_EQ(meta->tags, (std::vector<std::string>{"metrics", "service_monitor"}));
  EXPECT_EQ(*meta->shared_settings.find("metrics_port"), Value(9090));
  EXPECT_EQ(meta->setting_subscriptions, std::vector<std::string>{"app_name"});
}

TEST(TemplateJson, AnUnknownKeyIsAnErrorWithItsLineAndColumn) {
  auto meta = parse_template_json("{\n  \"name\": \"Web\",\n  \"alway_apply\": true\n}", "web/template.json", "web");
  ASSERT_FALSE(meta.ok());
  EXPECT_NE(meta.error().message.find("web/template.json:3:18: unknown key `alway_apply`"), std::string::npos)
      << meta.error().message;
}

TEST(TemplateJson, MalformedJsonNamesItsLineAndColumn) {
  auto meta = parse_template_json("{\n  \"name\": \"Web\",\n}", "web/template.json", "web");
  ASSERT_FALSE(meta.ok());
  EXPECT_EQ(meta.error().message.rfind("web/template.json:3:1: invalid JSON", 0), 0u) << meta.error().message;
}

TEST(TemplateJson, EveryProblemAtOnce) {
  auto meta = parse_template_json(R"({"type": "module", "tags": "web", "always_apply": "yes"})", "t.json", "web");
  ASSERT_FALSE(meta.ok());
  const Problems problems = problems_of(meta.error());
  ASSERT_EQ(problems.size(), 4u) << meta.error().message;
  EXPECT_NE(meta.error().message.find("t.json:1:1: `name` is required"), std::string::npos);
  EXPECT_NE(meta.error().message.find("`type` must be `project` or `kubernetes`, not `module`"), std::string::npos);
  EXPECT_NE(meta.error().message.find("`tags` must be a list of strings, not string"), std::string::npos);
  EXPECT_NE(meta.error().message.find("`always_apply` must be true or false, not string"), std::string::npos);
}

}  // namespace
}  // namespace sindri::repo
