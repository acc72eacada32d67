// The project file: version, sources, templates, settings.

#include <gtest/gtest.h>

#include "repo/project.hpp"
#include "repo/repo_fixture.hpp"

namespace sindri::repo {
namespace {

using namespace repo_testing;

Result<Project> parse(std::string_view text) {
  return parse_project(text, "sindri-templates.yaml", "/work/project", "sindri_templates");
}

TEST(ProjectFile, ReadsSourcesTemplatesAndSettings) {
  auto project = parse(R"(sindri_templates:
  version: 2
  template_sources:
    - type: filesystem
      location: ../custom
    - type: git
      location: https://example.com/t.git
      ref: v1
      trusted: true
    - default
  templates: [deployment, service]
  hook_timeout_seconds: 2.5
deployment:
  replicas: 3
)");
  ASSERT_TRUE(project.ok()) << project.error().message;
  ASSERT_EQ(project->sources.size(), 3u);
  EXPECT_EQ(project->sources[0].type, SourceSpec::Type::Filesystem);
  EXPECT_EQ(project->sources[0].location, "/work/custom");
  EXPECT_EQ(project->sources[1].type, SourceSpec::Type::Git);
  EXPECT_EQ(project->sources[1].describe(), "git https://example.com/t.git@v1");
  EXPECT_TRUE(project->sources[1].trusted);
  EXPECT_EQ(project->sources[2].type, SourceSpec::Type::Default);
  ASSERT_EQ(project->templates.size(), 2u);
  EXPECT_EQ(project->templates[1].name, "service");
  EXPECT_EQ(project->hook_timeout_seconds, 2.5);
  EXPECT_EQ(*project->settings_for("deployment")->find("replicas"), Value(3));
  EXPECT_EQ(project->settings_for("service"), nullptr);
}

TEST(ProjectFile, DefaultIsTheSourceWhenNoneIsGiven) {
  auto project = parse("sindri_templates:\n  version: 2\n");
  ASSERT_TRUE(project.ok()) << project.error().message;
  ASSERT_EQ(project->sources.size(), 1u);
  EXPECT_EQ(project->sources[0].type, SourceSpec::Type::Default);
}

TEST(ProjectFile, VersionIsRequired) {
  auto project = parse("sindri_templates:\n  templates: [a]\n");
  ASSERT_FALSE(project.ok());
  EXPECT_EQ(project.error().message, "sindri-templates.yaml:2:3: `version` is required (this Sindri reads version 2)");
}

TEST(ProjectFile, AnotherVersionIsAClearError) {
  auto project = parse("sindri_templates:\n  version: 1\n");
  ASSERT_FALSE(project.ok());
  EXPECT_EQ(project.error().message,
            "sindri-templates.yaml:2:12: version 1 is not supported (this Sindri reads version 2)");
}

TEST(ProjectFile, AnUnknownSourceTypeIsNamed) {
  auto project = parse("sindri_templates:\n  version: 2\n  template_sources:\n    - type: svn\n      location: x\n");
  ASSERT_FALSE(project.ok());
  EXPECT_EQ(project.error().message,
            "sindri-templates.yaml:4:13: unknown template source type \"svn\" (known: filesystem, git, default)");
}

TEST(ProjectFile, UnknownKeysAndBadEntriesAllAtOnce) {
  auto project = parse(R"(sindri_templates:
  version: 2
  template: [a]
  template_sources:
    - type: filesystem
    - defaults
  templates: [a, 3, a]
)");
  ASSERT_FALSE(project.ok());
  EXPECT_EQ(project.error().message,
            "sindri-templates.yaml:3:13: unknown key `template` in `sindri_templates` (known: version, "
            "template_sources, templates, hook_timeout_seconds)\n"
            "sindri-templates.yaml:5:7: a filesystem source needs a `location` string\n"
            "sindri-templates.yaml:6:7: a template source given as a string must be `default`, not `defaults`\n"
            "sindri-templates.yaml:7:18: a template name must be a string, not integer\n"
            "sindri-templates.yaml:7:21: template `a` is listed twice");
}

TEST(ProjectFile, AHookTimeoutAboveAnHourIsRefused) {
  auto project = parse("sindri_templates:\n  version: 2\n  hook_timeout_seconds: 10000\n");
  ASSERT_FALSE(project.ok());
  EXPECT_EQ(project.error().message, "sindri-templates.yaml:3:25: `hook_timeout_seconds` must be a number of seconds "
                                     "above 0 and at most 3600");
}

TEST(ProjectFile, TheRootKeyMustHoldAMapping) {
  auto project = parse("deployment: {}\n");
  ASSERT_FALSE(project.ok());
  EXPECT_EQ(project.error().message, "sindri-templates.yaml:1:1: `sindri_templates` must be a mapping holding `version: 2`");
}

class ProjectLoading : public RepoTest {};

TEST_F(ProjectLoading, ReadsTheSeedsSyncFileWithItsRoot) {
  write("project/.sync.yml", "pdk_template:\n  version: 2\n  templates: [rubocop]\nGemfile:\n  extra: []\n");
  auto project = load_project(project_dir());
  ASSERT_TRUE(project.ok()) << project.error().message;
  EXPECT_EQ(project->root_key, "pdk_template");
  ASSERT_EQ(project->templates.size(), 1u);
  EXPECT_EQ(project->templates[0].name, "rubocop");
}

TEST_F(ProjectLoading, PrefersSindriTemplatesYaml) {
  write("project/.sync.yml", "pdk_template:\n  version: 2\n  templates: [from_sync]\n");
  project_file("sindri_templates:\n  version: 2\n  templates: [from_sindri]\n");
  auto project = load_project(project_dir());
  ASSERT_TRUE(project.ok()) << project.error().message;
  EXPECT_EQ(project->templates[0].name, "from_sindri");
}

TEST_F(ProjectLoading, NoProjectFileIsAnError) {
  auto project = load_project(project_dir());
  ASSERT_FALSE(project.ok());
  EXPECT_NE(project.error().message.find("expected sindri-templates.yaml (or .sync.yml)"), std::string::npos);
}

TEST(ProjectFile, AGitLocationOrRefStartingWithADashIsRefused) {
  auto project = parse(R"(sindri_templates:
  version: 2
  template_sources:
    - type: git
      location: "--upload-pack=touch x"
    - type: git
      location: https://example.com/t.git
      ref: --output=x
)");
  ASSERT_FALSE(project.ok());
  EXPECT_EQ(project.error().message,
            "sindri-templates.yaml:5:17: a git `location` cannot start with `-`\n"
            "sindri-templates.yaml:8:12: `ref` cannot start with `-`");
}

}  // namespace
}  // namespace sindri::repo
