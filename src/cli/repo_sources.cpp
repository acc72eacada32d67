// sindri repo sources [-o table|json]        the project's template sources, in order, with their state
// sindri repo source add TYPE [KEY=VALUE...] [--first]
//                                            list a source (filesystem location=DIR, git location=URL
//                                            [ref=REF] [trusted=true|false], default)
// sindri repo source remove LOCATION|NUMBER|default
//
// Each works on sindri-templates.yaml (or .sync.yml) in --project DIR. The
// file is edited as text (repo/project_edit.hpp): only the entry added or
// removed changes. Nothing here fetches a git source.

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/errors.hpp"
#include "cli/io.hpp"
#include "cli/repo_common.hpp"
#include "repo/git.hpp"
#include "repo/project_edit.hpp"
#include "value/json.hpp"
#include "value/object_literal.hpp"

namespace sindri::cli {

namespace {

namespace fs = std::filesystem;

struct SourcesArgs {
  std::string project = ".";
  std::string output = "table";
  std::string type;
  std::vector<std::string> arguments;
  bool first = false;
  std::string which;
};

bool directory_exists(const fs::path& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

struct SourceRow {
  std::string position;  // "-" for the implicit default
  repo::ListedSource listed;
  std::string directory;  // filesystem: resolved; default: what it means; git: empty
  std::string state;
};

SourceRow row_of(std::string position, const repo::ListedSource& listed) {
  SourceRow row{std::move(position), listed, "", ""};
  switch (listed.spec.type) {
    case repo::SourceSpec::Type::Filesystem:
      row.directory = listed.spec.location;
      row.state = directory_exists(row.directory) ? "ok" : "missing";
      break;
    case repo::SourceSpec::Type::Default:
      row.directory = default_repository_here().string();
      row.state = directory_exists(row.directory) ? "ok" : "missing";
      break;
    case repo::SourceSpec::Type::Git:
      row.state = repo::git_cached(listed.spec.location, repo::default_git_cache()) ? "cached" : "not cached";
      break;
  }
  return row;
}

std::string or_dash(const std::string& text) { return text.empty() ? "-" : text; }

std::string table(const std::vector<SourceRow>& rows) {
  std::vector<std::vector<std::string>> cells = {{"#", "TYPE", "LOCATION", "REF", "TRUSTED", "STATE"}};
  for (const SourceRow& row : rows) {
    const repo::SourceSpec& spec = row.listed.spec;
    const bool git = spec.type == repo::SourceSpec::Type::Git;
    const bool implicit = row.position == "-";
    std::string state = row.state;
    // What `default` means is the one thing worth showing about it.
    if (spec.type == repo::SourceSpec::Type::Default) state = row.directory + (row.state == "ok" ? "" : " (missing)");
    cells.push_back({row.position, repo::source_type_name(spec.type), implicit ? "(implicit)" : or_dash(row.listed.location),
                     or_dash(spec.ref), git ? (spec.trusted ? "true" : "false") : "-", state});
  }
  return text_table(cells);
}

std::string json(const std::vector<SourceRow>& rows) {
  Array items;
  for (const SourceRow& row : rows) {
    const repo::SourceSpec& spec = row.listed.spec;
    const bool implicit = row.position == "-";
    items.push_back(make_object({{"position", implicit ? Value() : Value(std::stol(row.position))},
                                 {"implicit", Value(implicit)},
                                 {"type", Value(repo::source_type_name(spec.type))},
                                 {"location", row.listed.location.empty() ? Value() : Value(row.listed.location)},
                                 {"directory", row.directory.empty() ? Value() : Value(row.directory)},
                                 {"ref", spec.ref.empty() ? Value() : Value(spec.ref)},
                                 {"trusted", spec.type == repo::SourceSpec::Type::Git ? Value(spec.trusted) : Value()},
                                 {"state", Value(row.state)}}));
  }
  return to_json_pretty(Value(std::move(items))) + "\n";
}

Result<int> run_sources(const SourcesArgs& args) {
  SINDRI_TRY(file, repo::read_project_file(args.project));
  const std::vector<repo::ListedSource> listed = repo::listed_sources(file.project);
  std::vector<SourceRow> rows;
  for (size_t i = 0; i < listed.size(); ++i) rows.push_back(row_of(std::to_string(i + 1), listed[i]));
  if (rows.empty()) rows.push_back(row_of("-", repo::ListedSource{file.project.sources.front(), ""}));
  return write_stdout(args.output == "json" ? json(rows) : table(rows)) ? 0 : 1;
}

Result<int> run_add(const SourcesArgs& args) {
  SINDRI_TRY(source, repo::new_source(args.type, args.arguments));
  SINDRI_TRY(file, repo::read_project_file(args.project));
  SINDRI_TRY(edited, repo::add_source(file.project, file.text, source, args.first));
  SINDRI_CHECK(repo::write_project_file(file.path, edited.text));
  if (source.type == repo::SourceSpec::Type::Filesystem) {
    const fs::path directory = (file.project.directory / source.location).lexically_normal();
    if (!directory_exists(directory)) {
      print_warning("the directory " + directory.string() + " does not exist (yet): `sindri repo` commands fail "
                    "until it does");
    }
  }
  return write_stdout("added " + source.describe() + " (position " + std::to_string(edited.position) + ")\n") ? 0 : 1;
}

Result<int> run_remove(const SourcesArgs& args) {
  SINDRI_TRY(file, repo::read_project_file(args.project));
  SINDRI_TRY(index, repo::find_listed_source(file.project, args.which));
  const std::vector<repo::ListedSource> listed = repo::listed_sources(file.project);
  SINDRI_TRY(edited, repo::remove_source(file.project, file.text, index));
  SINDRI_CHECK(repo::write_project_file(file.path, edited.text));
  if (listed.size() == 1) {
    print_note(file.path.string() + " lists no template sources now: the project uses `default` implicitly");
  }
  return write_stdout("removed " + listed[index].describe() + " (position " + std::to_string(edited.position) + ")\n")
             ? 0
             : 1;
}

void add_project_option(CLI::App& command, SourcesArgs& args) {
  command.add_option("--project", args.project, "The project's directory, holding sindri-templates.yaml (default: .)");
}

}  // namespace

std::vector<Verb> add_repo_sources(CLI::App& repo) {
  auto args = std::make_shared<SourcesArgs>();
  CLI::App* sources = repo.add_subcommand(
      "sources", "List the project's template sources in order (the first holding a template wins) and their state");
  sources->add_option("-o,--output", args->output, "table, or json")->check(CLI::IsMember({"table", "json"}));
  CLI::App* source = repo.add_subcommand("source", "Add or remove a template source in the project file");
  source->require_subcommand(1);
  CLI::App* add = source->add_subcommand(
      "add", "List a template source: filesystem location=DIR, git location=URL [ref=REF] [trusted=true|false], or default");
  add->add_option("TYPE", args->type, "filesystem, git or default")->required();
  add->add_option("KEY=VALUE", args->arguments, "location=DIR|URL, ref=BRANCH|TAG|COMMIT, trusted=true|false");
  add->add_flag("--first", args->first, "Put it first instead of last: the first source holding a template wins");
  CLI::App* remove = source->add_subcommand("remove", "Remove a template source from the project file");
  remove->add_option("SOURCE", args->which, "Its location as written, its position (1, 2, ...) or `default`")->required();
  for (CLI::App* command : {sources, add, remove}) add_project_option(*command, *args);
  return {Verb{sources, [args] { return finish_repo_verb(run_sources(*args)); }},
          Verb{source, [args, add] {
                 return finish_repo_verb(add->parsed() ? run_add(*args) : run_remove(*args));
               }}};
}

}  // namespace sindri::cli
