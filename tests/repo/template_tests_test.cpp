// `repo test`: each tests/<case>/ of a template rendered from its
// settings.yaml and compared with its expected/ files.

#include <gtest/gtest.h>

#include "repo/repo_fixture.hpp"
#include "repo/template_tests.hpp"

namespace sindri::repo {
namespace {

using namespace repo_testing;

class TemplateTests : public RepoTest {
 protected:
  void SetUp() override {
    RepoTest::SetUp();
    make_template("repo", "web", R"({"name": "Web", "default_settings": {"title": "Hello"},
                                     "setting_subscriptions": ["port"]})",
                  R"({"type": "object", "properties": {"title": {"type": "string"}, "port": {"type": "integer"}},
                      "required": ["title"]})");
    write("repo/web/files/index.html.tera", "<h1>{{ title }}</h1>\nport {{ port }}\n");
    write("repo/web/files_init/notes.txt", "yours\n");
    make_template("repo", "metrics", R"({"name": "Metrics", "shared_settings": {"port": 9090}})",
                  R"({"type": "object", "properties": {"port": {"type": "integer"}}})");
    write("repo/metrics/files/metrics.yaml.tera", "port: {{ port }}\n");
    // Always applied in a project, never in another template's test case:
    // it writes index.html too, which would conflict.
    make_template("repo", "clash", R"({"name": "Clash", "always_apply": true})");
    write("repo/clash/files/index.html", "clash\n");
  }
  // The outcome of case `name` of template `tpl`.
  CaseResult run(const std::string& name, const std::string& tpl = "web") {
    auto catalog = repository_catalog(root_ / "repo");
    EXPECT_TRUE(catalog.ok());
    const auto location = catalog->locate(tpl);
    EXPECT_TRUE(location.has_value());
    return run_test_case(*catalog, *location, root_ / "repo" / tpl / "tests" / name);
  }
  // A case whose settings.yaml is `settings`, expecting the default files.
  void make_case(const std::string& name, const std::string& settings) {
    write("repo/web/tests/" + name + "/settings.yaml", settings);
    write("repo/web/tests/" + name + "/expected/index.html", "<h1>Hello</h1>\nport 9090\n");
    write("repo/web/tests/" + name + "/expected/notes.txt", "yours\n");
  }
};

TEST_F(TemplateTests, ACaseMatchingItsExpectedFilesPassesWithAPublisherAsContext) {
  make_case("defaults", "metrics: {}\n");
  const CaseResult result = run("defaults");
  EXPECT_TRUE(result.passed()) << joined(result.problems);
  EXPECT_EQ(result.template_name, "web");
  EXPECT_EQ(result.name, "defaults");
  EXPECT_TRUE(result.mismatches.empty());
  // Only the template under test's files: metrics.yaml is context.
  ASSERT_EQ(result.outputs.size(), 2u);
  EXPECT_EQ(result.outputs[0].path, "index.html");
  EXPECT_EQ(result.outputs[1].path, "notes.txt");
}

TEST_F(TemplateTests, ThePublishersSettingReachesTheSubscriber) {
  make_case("port", "metrics:\n  port: 9100\nweb: {title: Shop}\n");
  const CaseResult result = run("port");
  ASSERT_TRUE(result.problems.empty()) << joined(result.problems);
  ASSERT_EQ(result.mismatches.size(), 1u);
  const FileMismatch& mismatch = result.mismatches[0];
  EXPECT_EQ(mismatch.kind, FileMismatch::Kind::Differs);
  EXPECT_EQ(mismatch.path, "index.html");
  EXPECT_EQ(mismatch.expected, "<h1>Hello</h1>\nport 9090\n");
  EXPECT_EQ(mismatch.actual, "<h1>Shop</h1>\nport 9100\n");
  EXPECT_FALSE(result.passed());
}

TEST_F(TemplateTests, MissingAndExtraExpectedFilesAreNamedHiddenOnesIncluded) {
  make_case("files", "metrics: {}\n");
  fs::remove(root_ / "repo/web/tests/files/expected/notes.txt");
  write("repo/web/tests/files/expected/.gitkeep", "");
  write("repo/web/tests/files/expected/sub/old.txt", "old\n");
  const CaseResult result = run("files");
  ASSERT_TRUE(result.problems.empty()) << joined(result.problems);
  ASSERT_EQ(result.mismatches.size(), 3u);
  EXPECT_EQ(result.mismatches[0].kind, FileMismatch::Kind::Extra);
  EXPECT_EQ(result.mismatches[0].path, ".gitkeep");
  EXPECT_EQ(result.mismatches[1].kind, FileMismatch::Kind::Missing);
  EXPECT_EQ(result.mismatches[1].path, "notes.txt");
  EXPECT_EQ(result.mismatches[1].actual, "yours\n");
  EXPECT_EQ(result.mismatches[2].kind, FileMismatch::Kind::Extra);
  EXPECT_EQ(result.mismatches[2].path, "sub/old.txt");
  EXPECT_EQ(result.mismatches[2].expected, "old\n");
}

TEST_F(TemplateTests, InvalidYamlInSettingsFailsTheCaseAtItsPosition) {
  make_case("broken", "web:\n  title: [unclosed\n");
  const CaseResult result = run("broken");
  EXPECT_FALSE(result.passed());
  ASSERT_EQ(result.problems.size(), 1u);
  const std::string file = (root_ / "repo/web/tests/broken/settings.yaml").string();
  EXPECT_EQ(result.problems[0].rfind(file + ":", 0), 0u) << result.problems[0];
  EXPECT_NE(result.problems[0].find(": invalid YAML: "), std::string::npos) << result.problems[0];
  EXPECT_TRUE(result.outputs.empty());
}

TEST_F(TemplateTests, SettingsBreakingTheSchemaNameTheirLineAndColumn) {
  make_case("schema", "metrics: {}\nweb:\n  title: 7\n");
  const CaseResult result = run("schema");
  const std::string file = (root_ / "repo/web/tests/schema/settings.yaml").string();
  ASSERT_EQ(result.problems.size(), 1u) << joined(result.problems);
  EXPECT_EQ(result.problems[0],
            "template `web`: /title: must be string, got integer (from the project file, " + file + ":3:10)");
}

TEST_F(TemplateTests, SettingsYamlMustMapTemplatesToMappings) {
  make_case("shape", "metrics: {}\nweb: [1]\nnope: {}\n");
  const std::string file = (root_ / "repo/web/tests/shape/settings.yaml").string();
  CaseResult result = run("shape");
  ASSERT_EQ(result.problems.size(), 1u) << joined(result.problems);
  EXPECT_EQ(result.problems[0],
            file + ":2:6: the settings of template `web` must be a mapping (`web: {}` for its defaults), not array");
  make_case("shape", "web: {}\nmetrics:\n");
  result = run("shape");
  ASSERT_EQ(result.problems.size(), 1u) << joined(result.problems);
  EXPECT_NE(result.problems[0].find("the settings of template `metrics` must be a mapping (`metrics: {}` for its "
                                    "defaults), not null"),
            std::string::npos)
      << result.problems[0];
  // An empty value has no position of its own: never "0:0".
  EXPECT_EQ(result.problems[0].rfind(file + ":1:1: ", 0), 0u) << result.problems[0];
  make_case("shape", "- web\n");
  result = run("shape");
  ASSERT_EQ(result.problems.size(), 1u) << joined(result.problems);
  EXPECT_EQ(result.problems[0], file + ":1:1: settings.yaml must map template names to their settings, not hold a array");
  make_case("shape", "metrics: {}\nnope: {}\n");
  result = run("shape");
  ASSERT_EQ(result.problems.size(), 1u) << joined(result.problems);
  EXPECT_EQ(result.problems[0], file + ":2:7: no template `nope` in the template sources (filesystem " +
                                    (root_ / "repo").string() + ")");
  fs::remove(root_ / "repo/web/tests/shape/settings.yaml");
  result = run("shape");
  ASSERT_EQ(result.problems.size(), 1u) << joined(result.problems);
  EXPECT_EQ(result.problems[0].rfind("cannot read test settings " + file + ": ", 0), 0u) << result.problems[0];
}

TEST_F(TemplateTests, WithoutThePublisherTheSubscribedSettingIsAbsent) {
  make_case("alone", "{}\n");
  const CaseResult result = run("alone");
  // metrics, which publishes `port`, is in the sources but not in the case:
  // no mistake in the subscription, only a template that needs the setting.
  ASSERT_FALSE(result.problems.empty());
  EXPECT_EQ(result.problems[0].rfind((root_ / "repo/web/files/index.html.tera").string() + ":2:9: render error: "
                                     "Variable `port` not found", 0),
            0u)
      << joined(result.problems);
}

TEST_F(TemplateTests, ATeraErrorNamesTheTemplateFileNotTheCasesLinks) {
  write("repo/metrics/files/metrics.yaml.tera", "port: {{ port \n");
  write("repo/metrics/tests/bad/settings.yaml", "{}\n");
  const CaseResult result = run("bad", "metrics");
  ASSERT_FALSE(result.problems.empty());
  EXPECT_EQ(result.problems[0].rfind((root_ / "repo/metrics/files/metrics.yaml.tera").string() + ":", 0), 0u)
      << result.problems[0];
}

TEST_F(TemplateTests, WritingExpectedMakesTheCasePass) {
  write("repo/web/tests/fresh/settings.yaml", "metrics: {port: 1}\nweb: {title: New}\n");
  write("repo/web/tests/fresh/expected/index.html", "stale\n");
  write("repo/web/tests/fresh/expected/gone/old.txt", "old\n");
  const CaseResult before = run("fresh");
  ASSERT_FALSE(before.passed());
  auto written = write_expected(before);
  ASSERT_TRUE(written.ok()) << written.error().message;
  EXPECT_EQ(written->created, std::vector<std::string>{"notes.txt"});
  EXPECT_EQ(written->updated, std::vector<std::string>{"index.html"});
  EXPECT_EQ(written->removed, std::vector<std::string>{"gone/old.txt"});
  EXPECT_FALSE(fs::exists(root_ / "repo/web/tests/fresh/expected/gone"));
  EXPECT_EQ(read_text(root_ / "repo/web/tests/fresh/expected/index.html"), "<h1>New</h1>\nport 1\n");
  const CaseResult after = run("fresh");
  EXPECT_TRUE(after.passed()) << joined(after.problems);
  auto again = write_expected(after);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->created.empty() && again->updated.empty() && again->removed.empty());

  make_case("broken", "web: [\n");
  auto refused = write_expected(run("broken"));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message, "case web/broken does not render, so " +
                                         (root_ / "repo/web/tests/broken/expected").string() + " is left as it is");
}

TEST_F(TemplateTests, TheCaseAppliesItsTemplatesInTheOrderWrittenAndNoOtherAlwaysApplied) {
  // A template whose hook sees the others, as a kustomization does.
  make_template("repo", "kust", R"({"name": "Kust", "always_apply": true})");
  script("repo/kust/hooks/after_file_resolution",
         "#!/bin/sh\norder=$(grep -o '\"name\": *\"[a-z]*\"' | sed 's/.*: *\"//; s/\"$//' | tr '\\n' ' ')\n"
         "printf '{\"settings\": {\"order\": \"%s\"}}' \"$order\"\n");
  write("repo/kust/files/order.txt.tera", "{{ order }}\n");
  make_template("repo", "zeta", R"({"name": "Zeta"})");
  write("repo/zeta/files/zeta.txt", "z\n");
  write("repo/kust/tests/order/settings.yaml", "zeta: {}\nmetrics: {}\n");
  write("repo/kust/tests/order/expected/order.txt", "zeta metrics kust \n");
  const CaseResult result = run("order", "kust");
  // `clash`, always applied elsewhere, is not among the others.
  EXPECT_TRUE(result.passed()) << joined(result.problems)
                               << (result.mismatches.empty() ? "" : result.mismatches[0].actual);
}

TEST_F(TemplateTests, CasesAreTheDirectoriesUnderTests) {
  auto catalog = repository_catalog(root_ / "repo");
  ASSERT_TRUE(catalog.ok());
  EXPECT_TRUE(test_cases(*catalog->locate("web"))->empty());
  make_case("b", "{}\n");
  make_case("a", "{}\n");
  write("repo/web/tests/README", "not a case\n");
  const auto cases = test_cases(*catalog->locate("web"));
  ASSERT_TRUE(cases.ok());
  ASSERT_EQ(cases->size(), 2u);
  EXPECT_EQ((*cases)[0], root_ / "repo/web/tests/a");
  EXPECT_EQ((*cases)[1], root_ / "repo/web/tests/b");
}

// A link among the tests is named, never followed; the template itself
// still renders for the projects using it.
TEST_F(TemplateTests, ASymlinkAmongTheTestsIsNamedAndTheTemplateStillRenders) {
  make_case("a", "{}\n");
  fs::create_symlink("a", root_ / "repo/web/tests/b");
  fs::create_directories(root_ / "repo/web/tests/a/expected");
  fs::create_symlink("/etc/hostname", root_ / "repo/web/tests/a/expected/secret.html");
  auto catalog = repository_catalog(root_ / "repo");
  ASSERT_TRUE(catalog.ok());
  const auto cases = test_cases(*catalog->locate("web"));
  ASSERT_FALSE(cases.ok());
  EXPECT_EQ(cases.error().message,
            (root_ / "repo/web/tests/a/expected/secret.html").string() +
                ": a template's tests cannot hold a symlink (it could read or overwrite any file)\n" +
                (root_ / "repo/web/tests/b").string() +
                ": a template's tests cannot hold a symlink (it could read or overwrite any file)");
  EXPECT_TRUE(load_template(*catalog->locate("web")).ok());
}

}  // namespace
}  // namespace sindri::repo
