// Which template comes from which source, in which order, writing what.

#include <gtest/gtest.h>

#include "repo/repo_fixture.hpp"

namespace sindri::repo {
namespace {

using namespace repo_testing;

class Resolution : public RepoTest {
 protected:
  void two_sources(const std::string& templates) {
    project_file("sindri_templates:\n  version: 2\n  template_sources:\n    - type: filesystem\n      location: ../first\n"
                 "    - type: filesystem\n      location: ../second\n  templates: " +
                 templates + "\n");
  }
  static std::vector<std::string> applied_names(const Plan& plan) {
    std::vector<std::string> names;
    for (const AppliedTemplate& applied : plan.templates) names.push_back(applied.tpl.name());
    return names;
  }
};

TEST_F(Resolution, FirstOneWins) {
  make_template("first", "web", R"({"name": "Web from the first"})");
  write("first/web/files/index.html", "first\n");
  make_template("second", "web", R"({"name": "Web from the second"})");
  write("second/web/files/index.html", "second\n");
  write("second/web/files/extra.txt", "only in the second\n");
  two_sources("[web]");
  const auto files = render();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].path, "index.html");
  EXPECT_EQ(files[0].bytes, "first\n");
  EXPECT_EQ(workspace_->catalog.locate("web")->directory, root_ / "first/web");
}

TEST_F(Resolution, ADirectoryWithoutTemplateJsonOverridesOnlyTheFilesItHolds) {
  write("first/web/files/index.html.tera", "tweaked {{ title }}\n");
  make_template("second", "web", R"({"name": "Web", "default_settings": {"title": "hello"}})");
  write("second/web/files/index.html.tera", "original {{ title }}\n");
  write("second/web/files/style.css", "body {}\n");
  two_sources("[web]");
  const auto files = render();
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(find_file(files, "index.html")->bytes, "tweaked hello\n");
  EXPECT_EQ(find_file(files, "style.css")->bytes, "body {}\n");
  const auto location = workspace_->catalog.locate("web");
  EXPECT_EQ(location->directory, root_ / "second/web");
  EXPECT_EQ(location->overrides, std::vector<fs::path>{root_ / "first/web"});
}

TEST_F(Resolution, ListedOrderThenAlwaysApplyAlphabetically) {
  make_template("first", "beta", R"({"name": "b"})");
  make_template("first", "alpha", R"({"name": "a", "always_apply": true})");
  make_template("second", "zulu", R"({"name": "z", "always_apply": true})");
  make_template("second", "kilo", R"({"name": "k", "always_apply": true})");
  make_template("second", "unused", R"({"name": "u"})");
  two_sources("[beta, zulu]");
  auto planned = plan();
  ASSERT_TRUE(planned.ok()) << planned.error().message;
  EXPECT_EQ(joined(planned->problems), "");
  EXPECT_EQ(applied_names(*planned), (std::vector<std::string>{"beta", "zulu", "alpha", "kilo"}));
  EXPECT_TRUE(planned->templates[1].listed);
  EXPECT_FALSE(planned->templates[2].listed);
}

TEST_F(Resolution, AMissingTemplateIsNamedWithTheSourcesSearched) {
  make_template("first", "web", R"({"name": "Web"})");
  fs::create_directories(root_ / "second");
  two_sources("[web, databse]");
  auto planned = plan();
  ASSERT_TRUE(planned.ok()) << planned.error().message;
  EXPECT_EQ(joined(planned->problems), "" + (project_dir() / "sindri-templates.yaml").string() +
                                           ":8:20: no template `databse` in the template sources (filesystem " +
                                           (root_ / "first").string() + ", filesystem " + (root_ / "second").string() +
                                           ")");
}

TEST_F(Resolution, AMissingSourceDirectoryIsNamed) {
  make_template("first", "web", R"({"name": "Web"})");
  two_sources("[web]");
  auto workspace = open();
  ASSERT_FALSE(workspace.ok());
  EXPECT_NE(workspace.error().message.find("template source filesystem " + (root_ / "second").string() +
                                           ": no directory"),
            std::string::npos)
      << workspace.error().message;
}

TEST_F(Resolution, TwoTemplatesWritingOneFileIsAnErrorNamingBoth) {
  make_template("first", "web", R"({"name": "Web"})");
  write("first/web/files/config/app.yaml", "a: 1\n");
  make_template("second", "api", R"({"name": "API"})");
  write("second/api/files/config/app.yaml.tera", "b: 2\n");
  two_sources("[web, api]");
  auto planned = plan();
  ASSERT_TRUE(planned.ok()) << planned.error().message;
  EXPECT_EQ(joined(planned->problems), "`config/app.yaml` is written by both `web` and `api`");
  EXPECT_FALSE(render_plan(*planned, workspace_->project).ok());
}

TEST_F(Resolution, TheDefaultSourceIsTheDefaultRepository) {
  make_template("default", "web", R"({"name": "Web"})");
  write("default/web/files/a.txt", "a\n");
  project_file("sindri_templates:\n  version: 2\n  templates: [web]\n");
  const auto files = render();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].bytes, "a\n");
}

TEST_F(Resolution, BrokenMetadataOfAnUnlistedTemplateIsReported) {
  make_template("first", "web", R"({"name": "Web"})");
  make_template("second", "broken", "{\"name\": \"Broken\",}");
  two_sources("[web]");
  auto planned = plan();
  ASSERT_TRUE(planned.ok()) << planned.error().message;
  EXPECT_EQ(joined(planned->problems), (root_ / "second/broken/template.json").string() + ":1:19: invalid JSON: " +
                                           "expected a string key");
}

TEST_F(Resolution, ABrokenSchemaOfATemplateNobodyAppliesIsNoProblem) {
  make_template("first", "web", R"({"name": "Web"})");
  make_template("second", "spare", R"({"name": "Spare"})", R"({"type": "objekt"})");
  make_template("second", "lint", R"({"name": "Lint", "always_apply": true})", R"({"type": "objekt"})");
  two_sources("[web]");
  auto planned = plan();
  ASSERT_TRUE(planned.ok()) << planned.error().message;
  // Only the always applied one counts.
  const std::string problems = joined(planned->problems);
  EXPECT_NE(problems.find((root_ / "second/lint/template_schema.json").string()), std::string::npos) << problems;
  EXPECT_EQ(problems.find("spare"), std::string::npos) << problems;
}

// A symlink could copy any file of this machine into the project: refused.
TEST_F(Resolution, ASymlinkInTemplateFilesIsRefusedNamingIt) {
  make_template("first", "web", R"({"name": "Web"})");
  write("outside/secret.txt", "secret\n");
  fs::create_directories(root_ / "first/web/files");
  fs::create_symlink(root_ / "outside/secret.txt", root_ / "first/web/files/passwd.txt");
  fs::create_directories(root_ / "first/web/files_init/deep");
  fs::create_symlink(root_ / "outside/secret.txt", root_ / "first/web/files_init/deep/init.txt");
  fs::create_directories(root_ / "second");
  two_sources("[web]");
  auto planned = plan();
  ASSERT_TRUE(planned.ok()) << planned.error().message;
  const std::string problems = joined(planned->problems);
  EXPECT_NE(problems.find((root_ / "first/web/files/passwd.txt").string() + ": a template cannot hold a symlink"),
            std::string::npos)
      << problems;
  EXPECT_NE(problems.find((root_ / "first/web/files_init/deep/init.txt").string() + ": a template cannot hold a symlink"),
            std::string::npos)
      << problems;
}

}  // namespace
}  // namespace sindri::repo
