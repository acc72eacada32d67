// sindri repo: list, show, validate, render, diff and sync over a project
// with a filesystem source, and the default repository shipped with Sindri.

#include <string>

#include "cli/sindri_process.hpp"

namespace sindri_test {
namespace {

class RepoCli : public SindriTest {
 protected:
  void SetUp() override {
    SindriTest::SetUp();
    file("templates/web/template.json",
         R"({"name": "Web", "description": "A web page", "tags": ["html"], "default_settings": {"title": "Hello"}})");
    file("templates/web/template_schema.json", R"({"type": "object", "properties": {
      "title": {"description": "The page's title", "type": "string"},
      "theme": {"type": "string", "enum": ["light", "dark"]}}})");
    file("templates/web/files/index.html.tera", "<h1>{{ title }}</h1>\n");
    file("templates/web/files_init/notes.txt", "yours to edit\n");
    file("templates/lint/template.json", R"({"name": "Lint", "always_apply": true})");
    file("templates/lint/files/.lintrc", "strict\n");
    file("templates/spare/template.json", R"({"name": "Spare"})");
    project("web:\n  title: Shop\n");
  }
  void project(const std::string& settings) {
    file("project/sindri-templates.yaml",
         "sindri_templates:\n  version: 2\n  template_sources:\n    - type: filesystem\n      location: ../templates\n"
         "  templates: [web]\n" +
             settings);
  }
  Outcome repo(std::vector<std::string> args) {
    args.insert(args.begin(), "repo");
    args.insert(args.end(), {"--project", (dir_ / "project").string()});
    return sindri(args);
  }
};

TEST_F(RepoCli, ListShowsEveryTemplateAndHowItApplies) {
  const Outcome out = repo({"list"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const std::string source = "filesystem " + (dir_ / "templates").string();
  EXPECT_EQ(out.out, "NAME    DESCRIPTION   SOURCE" + std::string(source.size() - 3, ' ') + "TAGS       APPLIED\n" +
                         "lint    Lint          " + source + "   lint       always\n" +
                         "spare   Spare         " + source + "   spare      -\n" +
                         "web     A web page    " + source + "   html,web   listed\n");
}

TEST_F(RepoCli, ShowDescribesATemplateAndItsSettings) {
  const Outcome out = repo({"show", "web"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.out.find("web template\n------------\n\nName: Web\nDescription: A web page\nType: project\n"),
            std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find("Settings:\n* theme\n  Type: string\n  Values: \"light\", \"dark\"\n"
                         "* title\n  Description: The page's title\n  Type: string\n  Default: \"Hello\"\n"),
            std::string::npos)
      << out.out;
  const Outcome missing = repo({"show", "nope"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err, "error: no template `nope` in the template sources\n");
}

TEST_F(RepoCli, ValidateReportsEveryProblemAndExits1) {
  project("  hook_timeout_seconds: 1\nweb:\n  title: 7\n  theme: blue\n");
  const Outcome bad = repo({"validate"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.out, "");
  const std::string at = (dir_ / "project/sindri-templates.yaml").string();
  EXPECT_EQ(bad.err, "error: template `web`: /theme: must be one of \"light\", \"dark\", got \"blue\" (from the project file, " +
                         at + ":10:10)\nerror: template `web`: /title: must be string, got integer (from the project "
                         "file, " + at + ":9:10)\n");
  project("");
  const Outcome good = repo({"validate"});
  EXPECT_EQ(good.exit_code, 0) << good.err;
  EXPECT_EQ(good.out, "2 templates valid: web, lint\n");
}

TEST_F(RepoCli, ValidateNamesAWrongVersion) {
  file("project/sindri-templates.yaml", "sindri_templates:\n  version: 3\n");
  const Outcome out = repo({"validate"});
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_EQ(out.err, "error: " + (dir_ / "project/sindri-templates.yaml").string() +
                         ":2:12: version 3 is not supported (this Sindri reads version 2)\n");
}

TEST_F(RepoCli, RenderPrintsEachFileWithItsPath) {
  const Outcome out = repo({"render"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(out.out,
            "# File: index.html (template web)\n<h1>Shop</h1>\n"
            "# File: notes.txt (template web, init only)\nyours to edit\n"
            "# File: .lintrc (template lint)\nstrict\n");
  EXPECT_FALSE(fs::exists(dir_ / "project/index.html"));
}

TEST_F(RepoCli, RenderAsJsonAndIntoADirectory) {
  const Outcome json = repo({"render", "-o", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("\"content\": \"<h1>Shop</h1>\\n\",\n    \"init_only\": false,\n    \"path\": \"index.html\""),
            std::string::npos)
      << json.out;
  const Outcome written = repo({"render", "--output-dir", (dir_ / "out").string()});
  ASSERT_EQ(written.exit_code, 0) << written.err;
  EXPECT_EQ(read_all(dir_ / "out/index.html"), "<h1>Shop</h1>\n");
  EXPECT_EQ(read_all(dir_ / "out/.lintrc"), "strict\n");
}

TEST_F(RepoCli, DiffThenSyncThenNothingToDiff) {
  file("project/index.html", "<h1>Old</h1>\n");
  const Outcome diff = repo({"diff"});
  EXPECT_EQ(diff.exit_code, 1) << diff.err;
  EXPECT_NE(diff.out.find("--- a/index.html\n+++ b/index.html\n@@ -1 +1 @@\n-<h1>Old</h1>\n+<h1>Shop</h1>\n"),
            std::string::npos)
      << diff.out;
  EXPECT_NE(diff.out.find("--- /dev/null\n+++ b/.lintrc\n"), std::string::npos) << diff.out;

  const Outcome sync = repo({"sync"});
  ASSERT_EQ(sync.exit_code, 0) << sync.err;
  EXPECT_EQ(sync.out, "updated index.html\ncreated notes.txt\ncreated .lintrc\n");
  EXPECT_EQ(read_all(dir_ / "project/index.html"), "<h1>Shop</h1>\n");

  const Outcome again = repo({"diff"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, "");
  const Outcome resync = repo({"sync"});
  EXPECT_EQ(resync.exit_code, 0);
  EXPECT_EQ(resync.err, "note: nothing to change: every file is up to date\n");
}

TEST_F(RepoCli, DiffExits2OnAnError) {
  project("web:\n  title: 7\n");
  const Outcome out = repo({"diff"});
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_NE(out.err.find("error: template `web`: /title: must be string"), std::string::npos) << out.err;
}

TEST_F(RepoCli, TheDefaultRepositoryRendersKubernetesManifests) {
  file("project/sindri-templates.yaml",
       "sindri_templates:\n  version: 2\n  templates: [deployment, service]\ndeployment:\n  name: shop\n"
       "  image: shop:1.0\nservice:\n  name: shop\n");
  const Outcome out = repo({"render"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.out.find("# File: deployment.yaml (template deployment)\napiVersion: apps/v1\nkind: Deployment\n"
                         "metadata:\n  name: \"shop\"\n"),
            std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find("          image: \"shop:1.0\"\n"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("# File: service.yaml (template service)\napiVersion: v1\nkind: Service\n"), std::string::npos)
      << out.out;
}

// A git source with a hook, cloned into $XDG_CACHE_HOME/sindri/repos.
TEST_F(RepoCli, HooksOfAGitSourceRunOnlyWhenTrusted) {
  file("work/hooked/template.json", R"({"name": "Hooked"})");
  file("work/hooked/files/out.txt.tera", "{{ greeting }}\n");
  file("work/hooked/hooks/after_default_settings",
       "#!/bin/sh\ncat >/dev/null\necho '{\"settings\": {\"greeting\": \"hi\"}}'\n");
  fs::permissions(dir_ / "work/hooked/hooks/after_default_settings", fs::perms::owner_all);
  const std::string remote = bare_repository("work");
  file("project/sindri-templates.yaml", "sindri_templates:\n  version: 2\n  template_sources:\n    - type: git\n"
                                        "      location: " + remote + "\n  templates: [hooked]\n");
  setenv("XDG_CACHE_HOME", (dir_ / "cache").c_str(), 1);
  const Outcome refused = repo({"render"});
  const Outcome trusted = repo({"render", "--trust-hooks"});
  unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(refused.err.rfind("error: template `hooked`: hook " + (dir_ / "cache/sindri/repos/").string(), 0), 0u)
      << refused.err;
  EXPECT_NE(refused.err.find("/hooked/hooks/after_default_settings (from git " + remote +
                             ") would run, but its source is not trusted: mark it `trusted: true` or pass "
                             "--trust-hooks\n"),
            std::string::npos)
      << refused.err;
  ASSERT_EQ(trusted.exit_code, 0) << trusted.err;
  EXPECT_EQ(trusted.out, "# File: out.txt (template hooked)\nhi\n");
  EXPECT_TRUE(fs::is_directory(dir_ / "cache/sindri/repos"));
}

// A hook needs no interpreter: $SINDRI renders the new state from the old.
TEST_F(RepoCli, AShellHookCanRenderTheStateWithSindriItself) {
  file("templates/web/hooks/state.tera", "{\"settings\": {\"title\": {{ settings.title | upper | json_encode() }}}}\n");
  file("templates/web/hooks/after_project_settings",
       "#!/bin/sh\nexec \"$SINDRI\" render \"$(dirname \"$0\")/state.tera\" -f -\n");
  fs::permissions(dir_ / "templates/web/hooks/after_project_settings", fs::perms::owner_exec, fs::perm_options::add);
  const Outcome out = repo({"render"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.out.find("# File: index.html (template web)\n<h1>SHOP</h1>\n"), std::string::npos) << out.out;
}

TEST_F(RepoCli, NoProjectFileIsAnError) {
  const Outcome out = sindri({"repo", "list", "--project", (dir_ / "templates").string()});
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_EQ(out.err, "error: no project file in " + (dir_ / "templates").string() +
                         ": expected sindri-templates.yaml (or .sync.yml)\n");
}

}  // namespace
}  // namespace sindri_test
