#include "cli/repo_common.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "cli/errors.hpp"
#include "repo/default_repository.hpp"
#include "repo/git.hpp"
#include "repo/problems.hpp"
#include "repo/template_tests.hpp"

namespace sindri::cli {

namespace fs = std::filesystem;

namespace {

// This program's directory; empty when /proc cannot tell.
fs::path program_directory() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : self.parent_path();
}

}  // namespace

void add_project_options(CLI::App& command, RepoOptions& options) {
  command.add_option("--project", options.project, "The project's directory, holding sindri-templates.yaml (default: .)");
  command.add_flag("--update", options.update, "Fetch git template sources again");
  command.add_option("--git-timeout", options.git_timeout_seconds,
                     "Seconds each git command (clone, fetch) may take before it is stopped (default: 600)")
      ->check(CLI::Range(0.001, 86400.0));
}

void add_trust_option(CLI::App& command, RepoOptions& options) {
  command.add_flag("--trust-hooks", options.trust_hooks, "Run hooks of git sources not marked `trusted: true`");
}

fs::path default_repository_here() {
  const fs::path directory = program_directory();
  return repo::default_repository(directory.empty() ? fs::path(".") : directory);
}

Result<repo::Workspace> open_repo_workspace(const RepoOptions& options) {
  return repo::open_workspace(options.project,
                              repo::SourceOptions{.default_repository = default_repository_here(),
                                                  .cache_directory = repo::default_git_cache(),
                                                  .update = options.update,
                                                  .git_timeout_seconds = options.git_timeout_seconds});
}

Result<repo::Catalog> authoring_catalog(const RepoOptions& options, const std::string& repository) {
  if (!repository.empty()) return repo::repository_catalog(repository);
  SINDRI_TRY(workspace, open_repo_workspace(options));
  return std::move(workspace.catalog);
}

Status refuse_cached_clones(const std::vector<repo::TemplateLocation>& locations, std::string_view what) {
  repo::Problems problems;
  for (const repo::TemplateLocation& location : locations) {
    if (location.source->spec.type != repo::SourceSpec::Type::Git) continue;
    problems.push_back("template `" + location.name + "` comes from " + location.source->spec.describe() +
                       ", a cached clone: write its " + std::string(what) +
                       " in a working copy of that repository (--repository DIR)");
  }
  if (!problems.empty()) return repo::problems_error(problems);
  return Ok{};
}

repo::PlanOptions plan_options(const RepoOptions& options) {
  // Unknown, $SINDRI is left unset rather than made a path a hook would
  // resolve in the project's directory.
  const fs::path directory = program_directory();
  return repo::PlanOptions{.trust_hooks = options.trust_hooks,
                           .apply_unlisted_always = true,
                           .sindri_program = directory.empty() ? fs::path() : directory / "sindri"};
}

int print_repo_problems(const Error& error) {
  for (const std::string& problem : repo::problems_of(error)) print_error(problem);
  return 1;
}

int finish_repo_verb(Result<int> outcome, int error_code) {
  if (outcome) return *outcome;
  print_repo_problems(outcome.error());
  return error_code;
}

std::string text_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 3, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string joined(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : std::string(separator)) + part;
  return out;
}

}  // namespace sindri::cli
