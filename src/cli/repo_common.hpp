#pragma once
// What the `sindri repo` subcommands share: the project options, opening the
// workspace, printing a multi-problem error, and plain text tables. Each
// subcommand group lives in a file of its own and is added by repo.cpp.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "cli/verbs.hpp"
#include "repo/plan.hpp"
#include "repo/workspace.hpp"
#include "value/result.hpp"

namespace sindri::cli {

struct RepoOptions {
  std::string project = ".";
  bool update = false;
  bool trust_hooks = false;
  double git_timeout_seconds = 600;
};

// --project, --update and --git-timeout.
void add_project_options(CLI::App& command, RepoOptions& options);
// --trust-hooks.
void add_trust_option(CLI::App& command, RepoOptions& options);

// What `default` means for this program (repo/default_repository.hpp).
std::filesystem::path default_repository_here();

// The project in --project with its sources opened (git sources from the
// cache, fetched again with --update; `default` beside the program).
Result<repo::Workspace> open_repo_workspace(const RepoOptions& options);

// For the verbs of template authors (docs, test, publish): the templates of
// `repository` alone when one is given, else of the project's sources.
Result<repo::Catalog> authoring_catalog(const RepoOptions& options, const std::string& repository);

// An error naming each template of a git source: its clone is a cache, and
// what a verb writes there (`what`) would be lost on the next fetch.
Status refuse_cached_clones(const std::vector<repo::TemplateLocation>& locations, std::string_view what);

// --trust-hooks, and this program as the hooks' $SINDRI.
repo::PlanOptions plan_options(const RepoOptions& options);

// Prints each line of a (multi-problem) error; returns 1.
int print_repo_problems(const Error& error);
// The verb's exit code, or its error printed and `error_code`.
int finish_repo_verb(Result<int> outcome, int error_code = 1);

// Columns padded to the widest cell and three spaces, no trailing spaces.
std::string text_table(const std::vector<std::vector<std::string>>& rows);
std::string joined(const std::vector<std::string>& parts, std::string_view separator);

// The subcommand groups of `sindri repo` in files of their own.
Verb add_repo_docs(CLI::App& repo);                // repo_docs.cpp: docs
Verb add_repo_test(CLI::App& repo);                // repo_test.cpp: test
std::vector<Verb> add_repo_sources(CLI::App& repo);  // repo_sources.cpp: sources, source add|remove
Verb add_repo_publish(CLI::App& repo);             // repo_publish.cpp: publish, run by sindri-client

}  // namespace sindri::cli
