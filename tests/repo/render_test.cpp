// Rendering and syncing: .tera files rendered, others copied, files_init
// only where absent.

#include <gtest/gtest.h>

#include "repo/repo_fixture.hpp"
#include "repo/sync.hpp"

namespace sindri::repo {
namespace {

using namespace repo_testing;

class Rendering : public RepoTest {
 protected:
  void SetUp() override {
    RepoTest::SetUp();
    make_template("default", "app", R"({"name": "App", "default_settings": {"name": "web", "ports": [80, 443]}})");
    write("default/app/files/deploy/app.yaml.tera", "name: {{ name }}\n{% for p in ports %}- {{ p }}\n{% endfor %}");
    write("default/app/files/raw.tera.txt", "{{ not rendered }}\n");
    script("default/app/files/bin/run.sh", "#!/bin/sh\necho run\n");
    write("default/app/files_init/README.md.tera", "# {{ name }}\n");
    write("default/app/files_init/.gitignore", "build/\n");
    project_file("sindri_templates:\n  version: 2\n  templates: [app]\napp:\n  name: shop\n");
  }
};

TEST_F(Rendering, TeraFilesAreRenderedAndLoseTheirSuffixOthersAreCopied) {
  const auto files = render();
  ASSERT_EQ(files.size(), 5u);
  EXPECT_EQ(find_file(files, "deploy/app.yaml")->bytes, "name: shop\n- 80\n- 443\n");
  EXPECT_EQ(find_file(files, "raw.tera.txt")->bytes, "{{ not rendered }}\n");
  EXPECT_TRUE(find_file(files, "bin/run.sh")->executable);
  EXPECT_FALSE(find_file(files, "deploy/app.yaml")->init_only);
  EXPECT_TRUE(find_file(files, "README.md")->init_only);
  EXPECT_EQ(find_file(files, "README.md")->bytes, "# shop\n");
  EXPECT_EQ(find_file(files, ".gitignore")->template_name, "app");
}

TEST_F(Rendering, InitFilesAreLeftOutWhereTheTargetExists) {
  write("project/README.md", "# mine\n");
  const auto files = render();
  EXPECT_EQ(find_file(files, "README.md"), nullptr);
  EXPECT_NE(find_file(files, ".gitignore"), nullptr);
}

TEST_F(Rendering, ATeraErrorNamesTheFileLineAndColumn) {
  write("default/app/files/bad.txt.tera", "line one\n{{ name | nosuchfilter }}\n");
  auto planned = plan();
  ASSERT_TRUE(planned.ok()) << planned.error().message;
  auto rendered = render_plan(*planned, workspace_->project);
  ASSERT_FALSE(rendered.ok());
  EXPECT_EQ(rendered.error().message.rfind((root_ / "default/app/files/bad.txt.tera").string() + ":2:", 0), 0u)
      << rendered.error().message;
}

TEST_F(Rendering, SyncWritesWhatChangedAndReportsIt) {
  write("project/deploy/app.yaml", "old\n");
  const auto files = render();
  auto synced = sync_files(project_dir(), files);
  ASSERT_TRUE(synced.ok()) << synced.error().message;
  std::map<std::string, FileChange> changes;
  for (const SyncedFile& file : *synced) changes[file.path] = file.change;
  EXPECT_EQ(changes["deploy/app.yaml"], FileChange::Updated);
  EXPECT_EQ(changes["README.md"], FileChange::Created);
  EXPECT_EQ(read_text(project_dir() / "deploy/app.yaml"), "name: shop\n- 80\n- 443\n");
  EXPECT_EQ(read_text(project_dir() / ".gitignore"), "build/\n");
  EXPECT_NE(fs::status(project_dir() / "bin/run.sh").permissions() & fs::perms::owner_exec, fs::perms::none);

  // Again: nothing changes, and the init files, now present, are not rendered.
  const auto again = render();
  EXPECT_EQ(find_file(again, "README.md"), nullptr);
  auto resynced = sync_files(project_dir(), again);
  ASSERT_TRUE(resynced.ok()) << resynced.error().message;
  for (const SyncedFile& file : *resynced) EXPECT_EQ(file.change, FileChange::Unchanged) << file.path;
}

TEST_F(Rendering, AnInitFileIsKeptWhereItAppearedSinceRendering) {
  const auto files = render();
  write("project/README.md", "# mine\n");
  auto synced = sync_files(project_dir(), files);
  ASSERT_TRUE(synced.ok()) << synced.error().message;
  EXPECT_EQ(read_text(project_dir() / "README.md"), "# mine\n");
}

TEST_F(Rendering, SyncKeepsTheModeOfAFileItRewrites) {
  write("project/deploy/app.yaml", "old\n");
  fs::permissions(project_dir() / "deploy/app.yaml", fs::perms::owner_read | fs::perms::owner_write);
  write("project/bin/run.sh", "old\n");
  fs::permissions(project_dir() / "bin/run.sh", fs::perms::owner_read | fs::perms::owner_write);
  auto synced = sync_files(project_dir(), render());
  ASSERT_TRUE(synced.ok()) << synced.error().message;
  EXPECT_EQ(read_text(project_dir() / "deploy/app.yaml"), "name: shop\n- 80\n- 443\n");
  EXPECT_EQ(fs::status(project_dir() / "deploy/app.yaml").permissions(),
            fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(read_text(project_dir() / "bin/run.sh"), "#!/bin/sh\necho run\n");
  EXPECT_EQ(fs::status(project_dir() / "bin/run.sh").permissions(), fs::perms::owner_read | fs::perms::owner_write);
}

}  // namespace
}  // namespace sindri::repo
