// Git sources: a bare repository the test makes, at a branch, a tag and a
// commit, used from the cache offline; hooks only from trusted sources.

#include <cstdlib>

#include <gtest/gtest.h>

#include "process/process.hpp"
#include "repo/git.hpp"
#include "repo/repo_fixture.hpp"

namespace sindri::repo {
namespace {

using namespace repo_testing;

class GitSources : public RepoTest {
 protected:
  void SetUp() override {
    RepoTest::SetUp();
    work_ = root_ / "work";
    fs::create_directories(work_);
    git({"init", "--quiet", "--initial-branch=main"});
    write("work/web/template.json", R"({"name": "Web"})");
    write("work/web/files/version.txt", "one\n");
    first_commit_ = commit("one");
    git({"tag", "v1"});
    write("work/web/files/version.txt", "two\n");
    commit("two");
    git({"checkout", "--quiet", "-b", "next"});
    write("work/web/files/version.txt", "three\n");
    commit("three");
    git({"checkout", "--quiet", "main"});
    run({"git", "clone", "--quiet", "--bare", work_.string(), (root_ / "remote.git").string()}, root_);
  }

  std::string run(const std::vector<std::string>& argv, const fs::path& directory) {
    auto outcome = run_process(ProcessRequest{.argv = argv, .input = {}, .directory = directory,
                                              .timeout_seconds = 60, .extra_environment = {},
                                              .withheld_environment = {}, .max_output_bytes = 0});
    EXPECT_TRUE(outcome.ok() && outcome->exit_code == 0) << (outcome.ok() ? outcome->err : outcome.error().message);
    std::string out = outcome.ok() ? outcome->out : "";
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
  }
  std::string git(std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), {"git", "-c", "user.name=Test", "-c", "user.email=test@example.com"});
    return run(arguments, work_);
  }
  std::string commit(const std::string& message) {
    git({"add", "-A"});
    git({"commit", "--quiet", "-m", message});
    return git({"rev-parse", "HEAD"});
  }
  void git_project(const std::string& ref, const std::string& extra = "") {
    project_file("sindri_templates:\n  version: 2\n  template_sources:\n    - type: git\n      location: " +
                 (root_ / "remote.git").string() + "\n" + (ref.empty() ? "" : "      ref: " + ref + "\n") + extra +
                 "  templates: [web]\n");
  }
  std::string rendered_version() {
    const auto files = render();
    const RenderedFile* file = find_file(files, "version.txt");
    return file ? file->bytes : "(none)";
  }

  fs::path work_;
  std::string first_commit_;
};

TEST_F(GitSources, ABranch) {
  git_project("next");
  EXPECT_EQ(rendered_version(), "three\n");
}

TEST_F(GitSources, TheRemotesDefaultBranchWithoutARef) {
  git_project("");
  EXPECT_EQ(rendered_version(), "two\n");
}

TEST_F(GitSources, ATag) {
  git_project("v1");
  EXPECT_EQ(rendered_version(), "one\n");
}

TEST_F(GitSources, ACommit) {
  git_project(first_commit_);
  EXPECT_EQ(rendered_version(), "one\n");
}

TEST_F(GitSources, TheCacheIsUsedOffline) {
  git_project("main");
  EXPECT_EQ(rendered_version(), "two\n");
  fs::rename(root_ / "remote.git", root_ / "gone.git");
  EXPECT_EQ(rendered_version(), "two\n");
  // Another ref the cached clone has: the fetch fails, the cache answers.
  git_project("v1");
  EXPECT_EQ(rendered_version(), "one\n");
}

TEST_F(GitSources, AnUpdateFetchesNewCommits) {
  git_project("main");
  EXPECT_EQ(rendered_version(), "two\n");
  write("work/web/files/version.txt", "four\n");
  commit("four");
  run({"git", "push", "--quiet", (root_ / "remote.git").string(), "main"}, work_);
  EXPECT_EQ(rendered_version(), "two\n");  // not fetched without an update
  auto updated = open_workspace(project_dir(), SourceOptions{.default_repository = root_ / "default",
                                                             .cache_directory = root_ / "cache",
                                                             .update = true,
                                                             .git_timeout_seconds = 60});
  ASSERT_TRUE(updated.ok()) << updated.error().message;
  EXPECT_EQ(rendered_version(), "four\n");
}

TEST_F(GitSources, AnUnreachableSourceWithNoCacheIsAnErrorNamingIt) {
  project_file("sindri_templates:\n  version: 2\n  template_sources:\n    - type: git\n      location: " +
               (root_ / "nowhere.git").string() + "\n  templates: [web]\n");
  auto workspace = open();
  ASSERT_FALSE(workspace.ok());
  EXPECT_EQ(workspace.error().message.rfind((project_dir() / "sindri-templates.yaml").string() +
                                                ":4:7: template source git " + (root_ / "nowhere.git").string() +
                                                ": cannot clone " + (root_ / "nowhere.git").string() +
                                                " and nothing is cached: ",
                                            0),
            0u)
      << workspace.error().message;
}

// A remote that stops answering: a `git` that never finishes is stopped.
TEST_F(GitSources, AGitCommandThatHangsIsStoppedAtItsTimeout) {
  script("bin/git", "#!/bin/sh\nexec sleep 60\n");
  const std::string path = std::getenv("PATH");
  setenv("PATH", ((root_ / "bin").string() + ":" + path).c_str(), 1);
  auto checkout = git_checkout(GitSource{(root_ / "remote.git").string(), "main"}, root_ / "cache", false, 0.2);
  setenv("PATH", path.c_str(), 1);
  ASSERT_FALSE(checkout.ok());
  EXPECT_EQ(checkout.error().message, "cannot clone " + (root_ / "remote.git").string() +
                                          " and nothing is cached: git clone did not finish within 0.2 s (--git-timeout)");
}

TEST_F(GitSources, AnUnknownRefIsAnErrorNamingIt) {
  git_project("no-such-branch");
  auto workspace = open();
  ASSERT_FALSE(workspace.ok());
  EXPECT_NE(workspace.error().message.find("no branch, tag or commit `no-such-branch` in " +
                                           (root_ / "remote.git").string()),
            std::string::npos)
      << workspace.error().message;
}

class GitHooks : public GitSources {
 protected:
  void SetUp() override {
    GitSources::SetUp();
    script("work/web/hooks/after_default_settings", "#!/bin/sh\ncat >/dev/null\necho '{\"settings\": {\"hooked\": true}}'\n");
    write("work/web/files/hooked.txt.tera", "{{ hooked }}\n");
    commit("a hook");
    run({"git", "push", "--quiet", (root_ / "remote.git").string(), "main"}, work_);
  }
};

TEST_F(GitHooks, HooksOfAnUntrustedSourceDoNotRunAndAreNamed) {
  git_project("main");
  auto planned = plan();
  ASSERT_FALSE(planned.ok());
  EXPECT_EQ(planned.error().message.rfind("template `web`: hook " + (root_ / "cache").string(), 0), 0u)
      << planned.error().message;
  EXPECT_NE(planned.error().message.find("/web/hooks/after_default_settings (from git " +
                                         (root_ / "remote.git").string() + "@main) would run, but its source is "
                                         "not trusted: mark it `trusted: true` or pass --trust-hooks"),
            std::string::npos)
      << planned.error().message;
}

TEST_F(GitHooks, HooksOfATrustedSourceRun) {
  git_project("main", "      trusted: true\n");
  EXPECT_EQ(find_file(render(), "hooked.txt")->bytes, "true\n");
}

TEST_F(GitHooks, TheTrustOptionRunsThem) {
  git_project("main");
  auto planned = plan(PlanOptions{.trust_hooks = true, .sindri_program = {}});
  ASSERT_TRUE(planned.ok()) << planned.error().message;
  EXPECT_EQ(*planned->templates[0].settings.find("hooked"), Value(true));
}

}  // namespace
}  // namespace sindri::repo
