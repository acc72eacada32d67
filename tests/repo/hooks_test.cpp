// Lifecycle hooks: each point changes the state; failures name the
// template, the hook and its stderr.

#include <gtest/gtest.h>

#include "repo/repo_fixture.hpp"
#include "value/json.hpp"

namespace sindri::repo {
namespace {

using namespace repo_testing;

class Hooks : public RepoTest {
 protected:
  void SetUp() override {
    RepoTest::SetUp();
    make_template("default", "app", R"({"name": "App", "default_settings": {"stage": "none"}})",
                  R"({"type": "object", "properties": {"stage": {"type": "string"}}})");
    write("default/app/files/a.txt.tera", "{{ stage }}\n");
    write("default/app/files/b.txt", "copied\n");
    write("default/app/files/dropped.txt", "dropped\n");
    make_template("default", "other", R"({"name": "Other"})");
    write("default/other/files/other.txt", "other\n");
  }
  void use_project(const std::string& extra_root = "") {
    project_file("sindri_templates:\n  version: 2\n  templates: [app, other]\n" + extra_root +
                 "app:\n  from_project: true\n");
  }
  // A hook that keeps its input in the project directory (its working
  // directory) and prints `output`.
  void recording_hook(const std::string& point, const std::string& output) {
    script("default/app/hooks/" + point, "#!/bin/sh\ncat > seen_" + point + ".json\necho '" + output + "'\n");
  }
  Value seen(const std::string& point) {
    auto parsed = parse_json(read_text(project_dir() / ("seen_" + point + ".json")));
    EXPECT_TRUE(parsed.ok()) << point;
    return parsed.ok() ? *parsed : Value();
  }
  std::string plan_error() {
    auto planned = plan();
    return planned.ok() ? "(no error) " + joined(planned->problems) : planned.error().message;
  }
  std::string hook_path(const std::string& point) { return (root_ / "default/app/hooks" / point).string(); }
};

TEST_F(Hooks, EachPointChangesTheState) {
  recording_hook("after_default_settings", R"({"settings": {"stage": "after_default_settings"}})");
  recording_hook("after_shared_settings", R"({"settings": {"stage": "after_shared_settings"}})");
  recording_hook("after_project_settings", R"({"settings": {"stage": "after_project_settings"}})");
  recording_hook("after_file_resolution", R"({"files_to_render": ["a.txt", "b.txt"]})");
  script("default/app/hooks/before_file_render", R"(#!/bin/sh
input=$(cat)
printf '%s\n' "$input" >> before_file_render.log
case "$input" in
  *'"file":"a.txt"'*) echo '{"settings": {"stage": "rendering a.txt"}}' ;;
  *) echo '{}' ;;
esac
)");
  use_project();
  const auto files = render();
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(find_file(files, "a.txt")->bytes, "rendering a.txt\n");
  EXPECT_EQ(find_file(files, "b.txt")->bytes, "copied\n");
  EXPECT_EQ(find_file(files, "dropped.txt"), nullptr);
  EXPECT_EQ(find_file(files, "other.txt")->bytes, "other\n");

  EXPECT_EQ(*seen("after_default_settings").find("settings"), parse_json(R"({"stage": "none"})").value());
  EXPECT_EQ(*seen("after_shared_settings").find("settings"),
            parse_json(R"({"stage": "after_default_settings"})").value());
  // The project's settings are applied before after_project_settings.
  EXPECT_EQ(*seen("after_project_settings").find("settings"),
            parse_json(R"({"stage": "after_shared_settings", "from_project": true})").value());
  const Value resolution = seen("after_file_resolution");
  EXPECT_EQ(*resolution.find("files_to_render"), parse_json(R"(["a.txt", "b.txt", "dropped.txt"])").value());
  EXPECT_EQ(*resolution.find("template"),
            parse_json(R"({"name": "app", "path": ")" + (root_ / "default/app").string() + "\"}").value());
  EXPECT_EQ(*resolution.find("other_templates"),
            parse_json(R"([{"name": "other", "type": "project", "files_to_render": ["other.txt"]}])").value());
  // Once per file of the template, each with its own path.
  const std::string log = read_text(project_dir() / "before_file_render.log");
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 2) << log;
  EXPECT_NE(log.find(R"("file":"b.txt")"), std::string::npos) << log;
}

TEST_F(Hooks, AHookIsToldTheSindriProgram) {
  script("default/app/hooks/after_project_settings",
         "#!/bin/sh\nprintf '{\"settings\": {\"stage\": \"%s\"}}' \"$SINDRI\"\n");
  use_project();
  auto planned = plan(PlanOptions{.trust_hooks = false, .sindri_program = "/opt/sindri/bin/sindri"});
  ASSERT_TRUE(planned.ok()) << planned.error().message;
  EXPECT_EQ(*planned->templates[0].settings.find("stage"), Value("/opt/sindri/bin/sindri"));
}

TEST_F(Hooks, AFailingHookNamesTheTemplateTheHookAndItsStderr) {
  script("default/app/hooks/after_project_settings", "#!/bin/sh\necho 'cannot reach the registry' >&2\nexit 3\n");
  use_project();
  EXPECT_EQ(plan_error(), "(no error) template `app`: hook after_project_settings (" + hook_path("after_project_settings") +
                              ") failed with exit code 3; it printed on stderr: cannot reach the registry");
}

TEST_F(Hooks, AHangingHookIsStoppedAtTheTimeout) {
  script("default/app/hooks/after_default_settings", "#!/bin/sh\necho 'waiting' >&2\nsleep 30\n");
  use_project("  hook_timeout_seconds: 0.2\n");
  EXPECT_EQ(plan_error(), "(no error) template `app`: hook after_default_settings (" + hook_path("after_default_settings") +
                              ") did not finish within 0.2 s; it printed on stderr: waiting");
}

// Closing its outputs does not let it run past the timeout.
TEST_F(Hooks, AHookThatClosesItsOutputsAndHangsIsStoppedAtTheTimeout) {
  script("default/app/hooks/after_default_settings", "#!/bin/sh\nexec >&- 2>&- <&-\nsleep 30\n");
  use_project("  hook_timeout_seconds: 0.2\n");
  EXPECT_EQ(plan_error(), "(no error) template `app`: hook after_default_settings (" + hook_path("after_default_settings") +
                              ") did not finish within 0.2 s");
}

TEST_F(Hooks, AHookThatPrintsNoStateIsAnError) {
  script("default/app/hooks/after_shared_settings", "#!/bin/sh\necho done\n");
  use_project();
  EXPECT_EQ(plan_error().rfind("(no error) template `app`: hook after_shared_settings (" + hook_path("after_shared_settings") +
                                   "): it printed no JSON state: ",
                               0),
            0u)
      << plan_error();
}

TEST_F(Hooks, AHookMayNotListAFileTheTemplateDoesNotHave) {
  recording_hook("after_file_resolution", R"({"files_to_render": ["a.txt", "../etc/passwd"]})");
  use_project();
  EXPECT_EQ(plan_error(), "(no error) template `app`: hook after_file_resolution listed `../etc/passwd`, which is not a file "
                          "of the template");
}

TEST_F(Hooks, SettingsAHookMakesInvalidNameTheHook) {
  recording_hook("after_project_settings", R"({"settings": {"stage": 7}})");
  use_project();
  EXPECT_EQ(plan_error(), "(no error) template `app`: /stage: must be string, got integer (from hook "
                          "after_project_settings of `app`)");
}

TEST_F(Hooks, AHookThatIsNotExecutableIsAnError) {
  write("default/app/hooks/after_default_settings", "#!/bin/sh\necho '{}'\n");
  use_project();
  EXPECT_EQ(plan_error(), "(no error) template `app`: hook after_default_settings (" + hook_path("after_default_settings") +
                              ") is not executable");
}

// The project directory and a filesystem source given relative to the
// current directory are made absolute, so the hook (run in the project
// directory) is found and gets its template's path right.
TEST_F(Hooks, ARelativeProjectAndSourceWorkFromAnotherDirectory) {
  project_file("sindri_templates:\n  version: 2\n  template_sources:\n    - type: filesystem\n      location: ../default\n"
               "  templates: [app]\n");
  script("default/app/hooks/after_default_settings",
         "#!/bin/sh\ncat > seen.json\ngrep -q '\"path\":\"" + (root_ / "default/app").string() +
             "\"' seen.json || exit 3\necho '{}'\n");
  const fs::path relative = fs::relative(project_dir(), fs::current_path());
  ASSERT_TRUE(relative.is_relative()) << relative;
  auto workspace = open_workspace(relative, SourceOptions{.default_repository = root_ / "default",
                                                          .cache_directory = root_ / "cache",
                                                          .update = false,
                                                          .git_timeout_seconds = 60});
  ASSERT_TRUE(workspace.ok()) << workspace.error().message;
  EXPECT_EQ(workspace->project.directory, project_dir());
  EXPECT_EQ(workspace->project.sources[0].location, (root_ / "default").string());
  auto planned = make_plan(workspace->project, workspace->catalog, {});
  ASSERT_TRUE(planned.ok()) << planned.error().message;
  EXPECT_EQ(joined(planned->problems), "");
  EXPECT_TRUE(fs::exists(project_dir() / "seen.json"));
}

// validate reports every problem: a failing hook's joins those found before.
TEST_F(Hooks, AFailingHookKeepsTheProblemsFoundBefore) {
  script("default/app/hooks/after_default_settings", "#!/bin/sh\nexit 4\n");
  project_file("sindri_templates:\n  version: 2\n  templates: [app]\nstray:\n  x: 1\n");
  EXPECT_EQ(plan_error(), "(no error) " + (project_dir() / "sindri-templates.yaml").string() +
                              ":5:3: settings for `stray`, which is not an applied template\n"
                              "template `app`: hook after_default_settings (" + hook_path("after_default_settings") +
                              ") failed with exit code 4");
}

}  // namespace
}  // namespace sindri::repo
