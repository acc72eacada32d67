#pragma once
// A scratch directory with template sources and a project, for the
// template repository tests.

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "repo/plan.hpp"
#include "repo/render.hpp"
#include "repo/workspace.hpp"

namespace sindri::repo::repo_testing {

namespace fs = std::filesystem;

inline std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class RepoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "sindri-repo-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    fs::create_directories(root_ / "project");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  // Writes `text` to `relative` under the scratch directory.
  fs::path write(const std::string& relative, const std::string& text) {
    const fs::path path = root_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  // An executable script (a hook).
  fs::path script(const std::string& relative, const std::string& text) {
    const fs::path path = write(relative, text);
    fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
    return path;
  }
  // A template: `source/name/template.json` with `json`, and a schema when given.
  void make_template(const std::string& source, const std::string& name, const std::string& json,
                     const std::string& schema = "") {
    write(source + "/" + name + "/template.json", json);
    if (!schema.empty()) write(source + "/" + name + "/template_schema.json", schema);
  }
  void project_file(const std::string& text) { write("project/sindri-templates.yaml", text); }
  fs::path project_dir() const { return root_ / "project"; }

  Result<Workspace> open() {
    return open_workspace(project_dir(), SourceOptions{.default_repository = root_ / "default",
                                                       .cache_directory = root_ / "cache",
                                                       .update = false,
                                                       .git_timeout_seconds = 60});
  }
  // The plan of the project, which must open.
  Result<Plan> plan(const PlanOptions& options = {}) {
    auto workspace = open();
    if (!workspace) return std::move(workspace).error();
    workspace_ = std::make_unique<Workspace>(std::move(workspace).value());
    return make_plan(workspace_->project, workspace_->catalog, options);
  }
  // The rendered files of a plan without problems.
  std::vector<RenderedFile> render() {
    auto planned = plan();
    EXPECT_TRUE(planned.ok()) << (planned.ok() ? "" : planned.error().message);
    if (!planned.ok()) return {};
    EXPECT_TRUE(planned->problems.empty()) << problems_error(planned->problems).message;
    auto rendered = render_plan(*planned, workspace_->project);
    EXPECT_TRUE(rendered.ok()) << (rendered.ok() ? "" : rendered.error().message);
    return rendered.ok() ? std::move(rendered).value() : std::vector<RenderedFile>{};
  }

  fs::path root_;
  std::unique_ptr<Workspace> workspace_;
};

// The problems of a plan, one per line, for matching.
inline std::string joined(const Problems& problems) { return problems_error(problems).message; }

inline const RenderedFile* find_file(const std::vector<RenderedFile>& files, const std::string& path) {
  for (const RenderedFile& file : files) {
    if (file.path == path) return &file;
  }
  return nullptr;
}

}  // namespace sindri::repo::repo_testing
