// sindri repo docs [NAME...] [--write | --check] [--repository DIR] [--project DIR]
//
// Each template's README.md from its template.json and schema: printed (each
// after a `# File: PATH` line), written beside its template.json (--write,
// only when it changed), or checked (--check: exit 1 naming every README
// missing or stale). The templates named, else every template of the
// catalog: the repository DIR alone, else the project's sources.

#include <memory>
#include <string>
#include <vector>

#include "cli/errors.hpp"
#include "cli/io.hpp"
#include "cli/repo_common.hpp"
#include "repo/readme.hpp"
#include "repo/template_tests.hpp"

namespace sindri::cli {

namespace {

struct DocsArgs : RepoOptions {
  std::vector<std::string> names;
  std::string repository;
  bool write = false;
  bool check = false;
};

std::string rerun_hint(const DocsArgs& args, const std::string& name) {
  return "run `sindri repo docs --write " + name + (args.repository.empty() ? "" : " --repository " + args.repository) +
         "`";
}

Result<int> run_docs(const DocsArgs& args) {
  SINDRI_TRY(catalog, authoring_catalog(args, args.repository));
  SINDRI_TRY(locations, repo::chosen_templates(catalog, args.names));
  if (args.write) SINDRI_CHECK(refuse_cached_clones(locations, "README"));
  int exit_code = 0;
  size_t current = 0;
  std::string out;
  for (const repo::TemplateLocation& location : locations) {
    auto tpl = repo::load_template(location);
    if (!tpl) {
      exit_code = print_repo_problems(tpl.error());
      continue;
    }
    const std::string content = repo::template_readme(*tpl);
    const std::string path = repo::readme_path(location).string();
    if (args.check) {
      const repo::FileChange change = repo::readme_change(location, content);
      if (change == repo::FileChange::Unchanged) {
        ++current;
        continue;
      }
      print_error(path + (change == repo::FileChange::Created ? " is missing: " : " is stale: ") +
                  rerun_hint(args, location.name));
      exit_code = 1;
    } else if (args.write) {
      auto change = repo::write_readme(location, content);
      if (!change) {
        exit_code = print_repo_problems(change.error());
      } else if (*change == repo::FileChange::Created || *change == repo::FileChange::Updated) {
        out += std::string(repo::change_name(*change)) + " " + path + "\n";
      }
    } else {
      out += "# File: " + path + "\n" + content;
    }
  }
  if (args.check && exit_code == 0) {
    out = std::to_string(current) + (current == 1 ? " README is" : " READMEs are") + " current\n";
  }
  return write_stdout(out) ? exit_code : 1;
}

}  // namespace

Verb add_repo_docs(CLI::App& repo) {
  auto args = std::make_shared<DocsArgs>();
  CLI::App* cmd = repo.add_subcommand("docs", "Generate each template's README.md from template.json and its schema");
  cmd->add_option("NAME", args->names, "The templates (their directory names); default: every template");
  CLI::Option* write = cmd->add_flag("--write", args->write, "Write README.md beside each template.json (when it changed)");
  CLI::Option* check = cmd->add_flag("--check", args->check, "Write nothing; exit 1 naming every README missing or stale");
  write->excludes(check);
  cmd->add_option("--repository", args->repository,
                  "A template repository directory, taken alone as the source (no project file needed)");
  add_project_options(*cmd, *args);
  return Verb{cmd, [args] { return finish_repo_verb(run_docs(*args)); }};
}

}  // namespace sindri::cli
