// sindri repo sources, repo source add|remove: the table and its states, and
// edits that leave every other byte of the project file as it was.

#include <cstdlib>
#include <string>

#include "cli/sindri_process.hpp"

namespace sindri_test {
namespace {

class RepoSources : public SindriTest {
 protected:
  void SetUp() override {
    SindriTest::SetUp();
    // A cache and a `default` of the test's own, so that the output does not
    // depend on the machine.
    setenv("XDG_CACHE_HOME", (dir_ / "cache").c_str(), 1);
    setenv("SINDRI_DEFAULT_TEMPLATES", (dir_ / "default").c_str(), 1);
    file("default/web/template.json", R"({"name": "Web"})");
    file("templates/lint/template.json", R"({"name": "Lint"})");
  }
  void TearDown() override {
    unsetenv("XDG_CACHE_HOME");
    unsetenv("SINDRI_DEFAULT_TEMPLATES");
    SindriTest::TearDown();
  }
  Outcome repo(std::vector<std::string> args) {
    args.insert(args.begin(), "repo");
    args.insert(args.end(), {"--project", (dir_ / "project").string()});
    return sindri(args);
  }
  fs::path project_file() const { return dir_ / "project/sindri-templates.yaml"; }
};

const std::string kProject = R"(# Our project.
sindri_templates:
  version: 2
  template_sources:
    # ours first
    - type: filesystem
      location: ../templates   # shared with the other project
    - type: filesystem
      location: ../gone
    - type: git
      location: https://example.com/templates.git
      ref: v1.2
      trusted: true
    - default

  templates: [web]   # opted in

web:
  title: Shop
)";

TEST_F(RepoSources, TableShowsEachSourceAndItsState) {
  file("project/sindri-templates.yaml", kProject);
  const Outcome out = repo({"sources"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(out.err, "");
  EXPECT_EQ(out.out, "#   TYPE         LOCATION                            REF    TRUSTED   STATE\n"
                     "1   filesystem   ../templates                        -      -         ok\n"
                     "2   filesystem   ../gone                             -      -         missing\n"
                     "3   git          https://example.com/templates.git   v1.2   true      not cached\n"
                     "4   default      -                                   -      -         " +
                         (dir_ / "default").string() + "\n");
}

TEST_F(RepoSources, WithoutSourcesTheDefaultIsImplicit) {
  file("project/sindri-templates.yaml", "sindri_templates:\n  version: 2\n");
  const Outcome table = repo({"sources"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out, "#   TYPE      LOCATION     REF   TRUSTED   STATE\n"
                       "-   default   (implicit)   -     -         " + (dir_ / "default").string() + "\n");
  const Outcome json = repo({"sources", "-o", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.out, "[\n  {\n    \"directory\": \"" + (dir_ / "default").string() +
                          "\",\n    \"implicit\": true,\n    \"location\": null,\n    \"position\": null,\n"
                          "    \"ref\": null,\n    \"state\": \"ok\",\n    \"trusted\": null,\n    \"type\": \"default\"\n"
                          "  }\n]\n");
}

TEST_F(RepoSources, AGitSourceIsCachedOnceCloned) {
  file("work/lint/template.json", R"({"name": "Lint"})");
  const std::string remote = bare_repository("work");
  file("project/sindri-templates.yaml",
       "sindri_templates:\n  version: 2\n  template_sources:\n    - type: git\n      location: " + remote + "\n");
  const Outcome before = repo({"sources"});
  ASSERT_EQ(before.exit_code, 0) << before.err;
  EXPECT_NE(before.out.find(remote + "   -     false     not cached\n"), std::string::npos) << before.out;
  EXPECT_FALSE(fs::exists(dir_ / "cache")) << "`repo sources` must not fetch";
  ASSERT_EQ(repo({"list"}).exit_code, 0);
  const Outcome after = repo({"sources"});
  EXPECT_NE(after.out.find(remote + "   -     false     cached\n"), std::string::npos) << after.out;
}

TEST_F(RepoSources, AddThenRemoveGivesBackTheSameFile) {
  const fs::path path = file("project/sindri-templates.yaml", kProject);
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace);

  const Outcome git = repo({"source", "add", "git", "location=https://example.com/more.git#main", "--first"});
  ASSERT_EQ(git.exit_code, 0) << git.err;
  EXPECT_EQ(git.out, "added git https://example.com/more.git#main (position 1)\n");
  EXPECT_EQ(git.err, "");
  const Outcome local = repo({"source", "add", "filesystem", "location=../later"});
  ASSERT_EQ(local.exit_code, 0) << local.err;
  EXPECT_EQ(local.out, "added filesystem ../later (position 6)\n");
  EXPECT_EQ(local.err, "warning: the directory " + (dir_ / "later").string() +
                           " does not exist (yet): `sindri repo` commands fail until it does\n");
  EXPECT_EQ(read_all(path), R"(# Our project.
sindri_templates:
  version: 2
  template_sources:
    # ours first
    - type: git
      location: "https://example.com/more.git#main"
    - type: filesystem
      location: ../templates   # shared with the other project
    - type: filesystem
      location: ../gone
    - type: git
      location: https://example.com/templates.git
      ref: v1.2
      trusted: true
    - default
    - type: filesystem
      location: ../later

  templates: [web]   # opted in

web:
  title: Shop
)");
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);

  const Outcome by_location = repo({"source", "remove", "https://example.com/more.git#main"});
  ASSERT_EQ(by_location.exit_code, 0) << by_location.err;
  EXPECT_EQ(by_location.out, "removed git https://example.com/more.git#main (position 1)\n");
  const Outcome by_number = repo({"source", "remove", "5"});
  ASSERT_EQ(by_number.exit_code, 0) << by_number.err;
  EXPECT_EQ(by_number.out, "removed filesystem ../later (position 5)\n");
  EXPECT_EQ(read_all(path), kProject);
}

TEST_F(RepoSources, EditsASyncFile) {
  const fs::path path = file("project/.sync.yml", "---\npdk_template:\n  version: 2\n  template_sources: [default]\n");
  const Outcome out = repo({"source", "add", "filesystem", "location=../templates"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(read_all(path),
            "---\npdk_template:\n  version: 2\n  template_sources: [default, {type: filesystem, location: ../templates}]\n");
  ASSERT_EQ(repo({"source", "remove", "default"}).exit_code, 0);
  EXPECT_EQ(read_all(path), "---\npdk_template:\n  version: 2\n  template_sources: [{type: filesystem, location: ../templates}]\n");
}

TEST_F(RepoSources, RemovingTheLastSourceSaysDefaultIsImplied) {
  const fs::path path = file("project/sindri-templates.yaml",
                             "sindri_templates:\n  version: 2\n  template_sources:\n    - type: filesystem\n"
                             "      location: ../templates\n  templates: []\n");
  const Outcome out = repo({"source", "remove", "1"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(out.out, "removed filesystem ../templates (position 1)\n");
  EXPECT_EQ(out.err, "note: " + path.string() + " lists no template sources now: the project uses `default` implicitly\n");
  EXPECT_EQ(read_all(path), "sindri_templates:\n  version: 2\n  template_sources:\n  templates: []\n");
  const Outcome again = repo({"source", "remove", "default"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_EQ(again.err, "error: " + path.string() +
                           " lists no template sources (the project uses `default` implicitly): `default` cannot be "
                           "removed\n");
}

TEST_F(RepoSources, BadArgumentsAreErrorsAndLeaveTheFileAlone) {
  const fs::path path = file("project/sindri-templates.yaml", kProject);
  const std::string at = path.string();
  struct Case {
    std::vector<std::string> args;
    int exit_code;
    std::string err;
  };
  const std::vector<Case> cases = {
      {{"source", "add", "git", "location=u", "branch=main"}, 1,
       "error: `branch=main`: unknown key `branch` for a git source (known: location, ref, trusted)\n"},
      {{"source", "add", "git"}, 1, "error: a git source needs `location=URL`\n"},
      {{"source", "add", "filesystem", "location=x", "ref=main"}, 1,
       "error: `ref=main`: a filesystem source takes only `location` (`ref` is for git sources)\n"},
      {{"source", "add", "git", "location=-oops"}, 1, "error: `location=-oops`: a git location cannot start with `-`\n"},
      {{"source", "add", "default"}, 1, "error: `default` is already listed in " + at + " at position 4 (" + at + ":14:7)\n"},
      {{"source", "add", "filesystem", "location=../templates/"}, 1,
       "error: `filesystem ../templates/` is already listed in " + at + " at position 1 (" + at + ":6:7)\n"},
      {{"source", "remove", "../nowhere"}, 1,
       "error: no template source `../nowhere` in " + at +
           "; the sources are: 1: filesystem ../templates, 2: filesystem ../gone, 3: git "
           "https://example.com/templates.git@v1.2, 4: default\n"},
      {{"source", "remove", "7"}, 1,
       "error: no template source at position 7 in " + at +
           "; the sources are: 1: filesystem ../templates, 2: filesystem ../gone, 3: git "
           "https://example.com/templates.git@v1.2, 4: default\n"},
  };
  for (const Case& c : cases) {
    const Outcome out = repo(c.args);
    EXPECT_EQ(out.exit_code, c.exit_code) << c.args.back();
    EXPECT_EQ(out.err, c.err);
    EXPECT_EQ(out.out, "");
  }
  EXPECT_EQ(read_all(path), kProject);

  const Outcome no_type = repo({"source", "add"});
  EXPECT_EQ(no_type.exit_code, 2);
  EXPECT_NE(no_type.err.find("TYPE"), std::string::npos) << no_type.err;
  const Outcome no_project = sindri({"repo", "sources", "--project", (dir_ / "templates").string()});
  EXPECT_EQ(no_project.exit_code, 1);
  EXPECT_EQ(no_project.err, "error: no project file in " + (dir_ / "templates").string() +
                                ": expected sindri-templates.yaml (or .sync.yml)\n");
}

}  // namespace
}  // namespace sindri_test
