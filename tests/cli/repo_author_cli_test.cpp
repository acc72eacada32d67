// sindri repo docs and sindri repo test: a template author's verbs, over a
// template repository alone (--repository) or a project's sources.

#include <cstdlib>
#include <string>

#include "cli/sindri_process.hpp"

namespace sindri_test {
namespace {

class RepoAuthorCli : public SindriTest {
 protected:
  void SetUp() override {
    SindriTest::SetUp();
    file("templates/web/template.json", R"({"name": "Web", "description": "A web page", "default_settings": {"title": "Hello"}})");
    file("templates/web/template_schema.json",
         R"({"type": "object", "properties": {"title": {"description": "The title", "type": "string"}}})");
    file("templates/web/files/index.html.tera", "<h1>{{ title }}</h1>\n");
    file("templates/web/tests/basic/settings.yaml", "{}\n");
    file("templates/web/tests/basic/expected/index.html", "<h1>Hello</h1>\n");
    file("templates/web/tests/shop/settings.yaml", "web:\n  title: Shop\n");
    file("templates/web/tests/shop/expected/index.html", "<h1>Shop</h1>\n");
    file("templates/lint/template.json", R"({"name": "Lint", "always_apply": true})");
    file("templates/lint/files/.lintrc", "strict\n");
  }
  std::string repository() const { return (dir_ / "templates").string(); }
  Outcome repo(std::vector<std::string> args) {
    args.insert(args.begin(), "repo");
    return sindri(args);
  }
};

TEST_F(RepoAuthorCli, DocsPrintsEachReadmeWithoutAProjectFile) {
  const Outcome out = repo({"docs", "--repository", repository()});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(out.out.find("# File: " + repository() + "/lint/README.md\n# Lint\n\n"), 0u) << out.out;
  EXPECT_NE(out.out.find("# File: " + repository() + "/web/README.md\n# Web\n\nA web page\n"), std::string::npos);
  EXPECT_NE(out.out.find("| `title` | string | `\"Hello\"` | The title |\n"), std::string::npos) << out.out;
  EXPECT_FALSE(fs::exists(dir_ / "templates/web/README.md"));
  const Outcome one = repo({"docs", "web", "--repository", repository()});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(one.out.find("# File: " + repository() + "/web/README.md\n"), 0u);
  EXPECT_EQ(one.out.find("# File: ", 1), std::string::npos) << one.out;
}

TEST_F(RepoAuthorCli, DocsCheckFailsUntilWriteMakesEveryReadmeCurrent) {
  const std::string web = repository() + "/web/README.md";
  const std::string lint = repository() + "/lint/README.md";
  Outcome check = repo({"docs", "--check", "--repository", repository()});
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_EQ(check.out, "");
  EXPECT_EQ(check.err, "error: " + lint + " is missing: run `sindri repo docs --write lint --repository " + repository() +
                           "`\nerror: " + web + " is missing: run `sindri repo docs --write web --repository " +
                           repository() + "`\n");
  const Outcome write = repo({"docs", "--write", "--repository", repository()});
  ASSERT_EQ(write.exit_code, 0) << write.err;
  EXPECT_EQ(write.out, "created " + lint + "\ncreated " + web + "\n");
  check = repo({"docs", "--check", "--repository", repository()});
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_EQ(check.out, "2 READMEs are current\n");
  // A change to template.json makes the README stale.
  file("templates/web/template.json", R"({"name": "Web", "description": "A shop"})");
  check = repo({"docs", "--check", "--repository", repository()});
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_EQ(check.err, "error: " + web + " is stale: run `sindri repo docs --write web --repository " + repository() +
                           "`\n");
  const Outcome again = repo({"docs", "--write", "--repository", repository()});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, "updated " + web + "\n");
  EXPECT_NE(read_all(dir_ / "templates/web/README.md").find("A shop"), std::string::npos);
  const Outcome nothing = repo({"docs", "--write", "--repository", repository()});
  EXPECT_EQ(nothing.exit_code, 0);
  EXPECT_EQ(nothing.out, "");
  EXPECT_EQ(repo({"docs", "web", "--check", "--repository", repository()}).out, "1 README is current\n");
}

TEST_F(RepoAuthorCli, DocsRefusesBadUsageAndUnknownTemplates) {
  const Outcome both = repo({"docs", "--write", "--check", "--repository", repository()});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("excludes"), std::string::npos) << both.err;
  const Outcome unknown = repo({"docs", "web", "nope", "--repository", repository()});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.out, "");
  EXPECT_EQ(unknown.err, "error: no template `nope` in the template sources (filesystem " + repository() + ")\n");
  const Outcome missing = repo({"docs", "--repository", (dir_ / "absent").string()});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err, "error: template repository " + (dir_ / "absent").string() + ": no directory\n");
  const Outcome no_project = repo({"docs", "--project", (dir_ / "templates").string()});
  EXPECT_EQ(no_project.exit_code, 1);
  EXPECT_NE(no_project.err.find("no project file in"), std::string::npos) << no_project.err;
}

TEST_F(RepoAuthorCli, DocsWorksOnAProjectsSources) {
  file("project/sindri-templates.yaml",
       "sindri_templates:\n  version: 2\n  template_sources:\n    - type: filesystem\n      location: ../templates\n");
  const Outcome write = repo({"docs", "web", "--write", "--project", (dir_ / "project").string()});
  ASSERT_EQ(write.exit_code, 0) << write.err;
  EXPECT_EQ(write.out, "created " + repository() + "/web/README.md\n");
  EXPECT_EQ(repo({"docs", "web", "--check", "--repository", repository()}).exit_code, 0);
}

// A git source, cloned into $XDG_CACHE_HOME/sindri/repos: its templates can
// be tested and their READMEs checked, not written.
TEST_F(RepoAuthorCli, AGitSourcesCloneIsReadNeverWritten) {
  const std::string remote = bare_repository("templates");
  file("project/sindri-templates.yaml", "sindri_templates:\n  version: 2\n  template_sources:\n    - type: git\n"
                                        "      location: " + remote + "\n");
  const std::string project = (dir_ / "project").string();
  setenv("XDG_CACHE_HOME", (dir_ / "cache").c_str(), 1);
  const Outcome write = repo({"docs", "--write", "--project", project});
  const Outcome check = repo({"docs", "web", "--check", "--project", project});
  const Outcome test = repo({"test", "--project", project});
  const Outcome rewrite = repo({"test", "web", "--write-expected", "--project", project});
  unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(rewrite.exit_code, 2);
  EXPECT_EQ(rewrite.err, "error: template `web` comes from git " + remote +
                             ", a cached clone: write its expected files in a working copy of that repository "
                             "(--repository DIR)\n");
  EXPECT_EQ(write.exit_code, 1);
  EXPECT_EQ(write.out, "");
  EXPECT_EQ(write.err, "error: template `lint` comes from git " + remote +
                           ", a cached clone: write its README in a working copy of that repository (--repository DIR)\n"
                           "error: template `web` comes from git " + remote +
                           ", a cached clone: write its README in a working copy of that repository (--repository DIR)\n");
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_NE(check.err.find("/web/README.md is missing: run `sindri repo docs --write web`\n"), std::string::npos)
      << check.err;
  EXPECT_EQ(test.exit_code, 0) << test.err;
  EXPECT_EQ(test.out, "ok   web/basic\nok   web/shop\n2 passed, 0 failed\n");
}

TEST_F(RepoAuthorCli, TestRunsEveryCaseAndSaysOk) {
  const Outcome out = repo({"test", "--repository", repository()});
  EXPECT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(out.out, "ok   web/basic\nok   web/shop\n2 passed, 0 failed\n");
  EXPECT_EQ(out.err, "");
  const Outcome named = repo({"test", "lint", "--repository", repository()});
  EXPECT_EQ(named.exit_code, 0);
  EXPECT_EQ(named.out, "0 passed, 0 failed\n");
  EXPECT_EQ(named.err, "note: template `lint` has no tests (no " + repository() + "/lint/tests/CASE/ directories)\n");
}

TEST_F(RepoAuthorCli, TestFailsWithADiffAndKeepsRunningTheOtherCases) {
  file("templates/web/tests/basic/expected/index.html", "<h1>Goodbye</h1>\n");
  file("templates/web/tests/basic/expected/.gitkeep", "");
  file("templates/web/tests/broken/settings.yaml", "web:\n  title: 7\n");
  const Outcome out = repo({"test", "web", "--repository", repository()});
  EXPECT_EQ(out.exit_code, 1);
  const std::string settings = repository() + "/web/tests/broken/settings.yaml";
  EXPECT_EQ(out.out, "FAIL web/basic\n"
                     "  .gitkeep: in expected/, not written by the template\n"
                     "--- expected/index.html\n+++ rendered/index.html\n@@ -1 +1 @@\n-<h1>Goodbye</h1>\n+<h1>Hello</h1>\n"
                     "FAIL web/broken\n"
                     "  template `web`: /title: must be string, got integer (from the project file, " + settings +
                         ":2:10)\n"
                     "ok   web/shop\n"
                     "1 passed, 2 failed\n");
}

TEST_F(RepoAuthorCli, WriteExpectedMakesEveryCasePass) {
  file("templates/web/tests/basic/expected/index.html", "<h1>Goodbye</h1>\n");
  file("templates/web/tests/basic/expected/old.txt", "old\n");
  file("templates/web/tests/fresh/settings.yaml", "web: {title: New}\n");
  const Outcome write = repo({"test", "--write-expected", "--repository", repository()});
  EXPECT_EQ(write.exit_code, 0) << write.err;
  const std::string tests = repository() + "/web/tests/";
  EXPECT_EQ(write.out, "updated " + tests + "basic/expected/index.html\nremoved " + tests +
                           "basic/expected/old.txt\ncreated " + tests + "fresh/expected/index.html\n3 written, 0 failed\n");
  EXPECT_EQ(read_all(dir_ / "templates/web/tests/fresh/expected/index.html"), "<h1>New</h1>\n");
  const Outcome test = repo({"test", "--repository", repository()});
  EXPECT_EQ(test.exit_code, 0) << test.out;
  EXPECT_EQ(test.out, "ok   web/basic\nok   web/fresh\nok   web/shop\n3 passed, 0 failed\n");
}

TEST_F(RepoAuthorCli, TestRefusesBadUsageAndUnknownTemplates) {
  EXPECT_EQ(repo({"test", "--bogus", "--repository", repository()}).exit_code, 2);
  const Outcome unknown = repo({"test", "nope", "--repository", repository()});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err, "error: no template `nope` in the template sources (filesystem " + repository() + ")\n");
  file("templates/web/tests/broken/settings.yaml", "web: [\n");
  const Outcome write = repo({"test", "--write-expected", "--repository", repository()});
  EXPECT_EQ(write.exit_code, 1);
  EXPECT_NE(write.out.find("FAIL web/broken\n  " + repository() + "/web/tests/broken/settings.yaml:"), std::string::npos)
      << write.out;
  EXPECT_NE(write.out.find("2 written, 1 failed\n"), std::string::npos) << write.out;
}

// A symlink among a template's tests could print, or with --write-expected
// overwrite, any file of this machine: the case fails naming it.
TEST_F(RepoAuthorCli, ASymlinkAmongTheTestsFailsTheCaseWithoutReadingIt) {
  file("secret.txt", "TOP SECRET\n");
  fs::create_directories(dir_ / "templates/web/tests/leak/expected");
  file("templates/web/tests/leak/settings.yaml", "{}\n");
  fs::create_symlink(dir_ / "secret.txt", dir_ / "templates/web/tests/leak/expected/index.html");
  for (const bool write : {false, true}) {
    std::vector<std::string> args = {"test", "web", "--repository", repository()};
    if (write) args.push_back("--write-expected");
    const Outcome out = repo(args);
    EXPECT_EQ(out.exit_code, 1);
    EXPECT_NE(out.out.find("FAIL web\n  " + repository() + "/web/tests/leak/expected/index.html: a template's "
                           "tests cannot hold a symlink"),
              std::string::npos)
        << out.out;
    EXPECT_EQ(out.out.find("TOP SECRET"), std::string::npos) << out.out;
  }
  EXPECT_EQ(read_all(dir_ / "secret.txt"), "TOP SECRET\n");
}

}  // namespace
}  // namespace sindri_test
