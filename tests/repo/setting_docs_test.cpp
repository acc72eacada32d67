// What `repo show` says of a template's settings, and where `default` is.

#include <gtest/gtest.h>

#include "repo/default_repository.hpp"
#include "repo/repo_fixture.hpp"
#include "repo/setting_docs.hpp"

namespace sindri::repo {
namespace {

using namespace repo_testing;

class SettingDocs : public RepoTest {};

TEST_F(SettingDocs, FromTheSchemaAndTheMetadata) {
  make_template("default", "web",
                R"({"name": "Web", "default_settings": {"theme": "light", "extra": 1},
                    "shared_settings": {"metrics_port": 9090}, "setting_subscriptions": ["use_tls"]})",
                R"({"type": "object", "properties": {
                    "theme": {"title": "Theme", "type": "string", "enum": ["light", "dark"], "default": "dark"},
                    "replicas": {"description": "Pods", "type": ["integer", "null"], "default": 1},
                    "metrics_port": {"type": "integer"}}})");
  project_file("sindri_templates:\n  version: 2\n");
  auto workspace = open();
  ASSERT_TRUE(workspace.ok()) << workspace.error().message;
  auto tpl = load_template(*workspace->catalog.locate("web"));
  ASSERT_TRUE(tpl.ok()) << tpl.error().message;
  const auto docs = setting_docs(*tpl);
  ASSERT_EQ(docs.size(), 5u);
  EXPECT_EQ(docs[0].name, "extra");
  EXPECT_EQ(docs[0].default_value, Value(1));
  EXPECT_EQ(docs[1].name, "metrics_port");
  EXPECT_TRUE(docs[1].published);
  EXPECT_EQ(docs[1].default_value, Value(9090));
  EXPECT_EQ(docs[2].name, "replicas");
  EXPECT_EQ(docs[2].description, "Pods");
  EXPECT_EQ(docs[2].type, "integer|null");
  EXPECT_EQ(docs[2].default_value, Value(1));
  // template.json's default is the one that applies, not the schema's.
  EXPECT_EQ(docs[3].name, "theme");
  EXPECT_EQ(docs[3].description, "Theme");
  EXPECT_EQ(docs[3].allowed, (std::vector<Value>{Value("light"), Value("dark")}));
  EXPECT_EQ(docs[3].default_value, Value("light"));
  EXPECT_EQ(docs[4].name, "use_tls");
  EXPECT_TRUE(docs[4].subscribed);
  EXPECT_FALSE(docs[4].default_value.has_value());
}

class DefaultRepository : public RepoTest {
 protected:
  void TearDown() override {
    unsetenv("SINDRI_DEFAULT_TEMPLATES");
    RepoTest::TearDown();
  }
};

TEST_F(DefaultRepository, TheEnvironmentThenAnInstalledCopyThenTheSourceTree) {
  fs::create_directories(root_ / "prefix/bin");
  EXPECT_EQ(default_repository(root_ / "prefix/bin"), fs::path(SINDRI_SOURCE_DIR) / "templates/default");
  fs::create_directories(root_ / "prefix/share/sindri/templates/default");
  EXPECT_EQ(default_repository(root_ / "prefix/bin"), root_ / "prefix/share/sindri/templates/default");
  setenv("SINDRI_DEFAULT_TEMPLATES", (root_ / "mine").c_str(), 1);
  EXPECT_EQ(default_repository(root_ / "prefix/bin"), root_ / "mine");
}

}  // namespace
}  // namespace sindri::repo
