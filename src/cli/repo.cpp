// sindri repo list                 the templates of the project's sources
// sindri repo show NAME            one template: description, settings, shared settings
// sindri repo validate             the project file, the applied templates, their settings
// sindri repo render [--output-dir DIR] [-o raw|yaml|json]
//                                  what a sync would write, without writing the project
// sindri repo diff                 what a sync would change, as a unified diff;
//                                  exit 0 when nothing, 1 when something, 2 on an error
// sindri repo sync                 write the files and say what changed
//
// Each works on sindri-templates.yaml (or .sync.yml) in --project DIR, by
// default the current directory. --update fetches git sources again;
// --trust-hooks runs the hooks of git sources not marked `trusted: true`.

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/errors.hpp"
#include "cli/io.hpp"
#include "cli/repo_common.hpp"
#include "cli/verbs.hpp"
#include "repo/setting_docs.hpp"
#include "repo/sync.hpp"
#include "repo/workspace.hpp"
#include "roles/unified_diff.hpp"
#include "value/file_text.hpp"
#include "value/json.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::cli {

namespace {

namespace fs = std::filesystem;

struct RepoArgs : RepoOptions {
  std::string name;
  std::string output = "raw";
  std::string output_dir;
};

// `repo diff`'s exit code for an error, as `kubectl diff`'s.
constexpr int kDiffError = 2;

// How a template takes part in the project: listed, always applied, or not.
std::string applied_as(const repo::Project& project, const repo::Template& tpl) {
  const bool listed = std::any_of(project.templates.begin(), project.templates.end(),
                                  [&](const repo::TemplateRequest& r) { return r.name == tpl.name(); });
  if (listed) return "listed";
  return tpl.metadata.always_apply ? "always" : "-";
}

Result<int> run_list(const RepoArgs& args) {
  SINDRI_TRY(workspace, open_repo_workspace(args));
  std::vector<std::vector<std::string>> rows = {{"NAME", "DESCRIPTION", "SOURCE", "TAGS", "APPLIED"}};
  int exit_code = 0;
  for (const repo::TemplateLocation& location : workspace.catalog.every_template()) {
    auto tpl = repo::load_template(location);
    if (!tpl) {
      exit_code = print_repo_problems(tpl.error());
      continue;
    }
    rows.push_back({tpl->name(), tpl->metadata.description, location.source->spec.describe(),
                    joined(tpl->metadata.tags, ","), applied_as(workspace.project, *tpl)});
  }
  return write_stdout(text_table(rows)) ? exit_code : 1;
}

std::string setting_text(const repo::SettingDoc& setting) {
  std::string out = "* " + setting.name + "\n";
  if (!setting.description.empty()) out += "  Description: " + setting.description + "\n";
  if (!setting.type.empty()) out += "  Type: " + setting.type + "\n";
  if (!setting.allowed.empty()) {
    std::vector<std::string> values;
    for (const Value& value : setting.allowed) values.push_back(to_json(value));
    out += "  Values: " + joined(values, ", ") + "\n";
  }
  if (setting.default_value) out += "  Default: " + to_json(*setting.default_value) + "\n";
  if (setting.published) out += "  Shared: published by this template\n";
  if (setting.subscribed) out += "  Shared: subscribed, from the template that publishes it\n";
  return out;
}

Result<int> run_show(const RepoArgs& args) {
  SINDRI_TRY(workspace, open_repo_workspace(args));
  const auto location = workspace.catalog.locate(args.name);
  if (!location) return make_error("no template `" + args.name + "` in the template sources");
  SINDRI_TRY(tpl, repo::load_template(*location));
  const repo::TemplateMetadata& metadata = tpl.metadata;
  const std::string title = tpl.name() + " template";
  std::string out = title + "\n" + std::string(title.size(), '-') + "\n\n";
  out += "Name: " + metadata.name + "\n";
  out += "Description: " + metadata.description + "\n";
  out += "Type: " + std::string(repo::type_name(metadata.type)) + "\n";
  out += "Source: " + location->source->spec.describe() + " (" + location->directory.string() + ")\n";
  for (const fs::path& override_directory : location->overrides) out += "Overridden by: " + override_directory.string() + "\n";
  out += "Tags: " + joined(metadata.tags, ", ") + "\n";
  out += "Applied: " + applied_as(workspace.project, tpl) + "\n";
  std::vector<std::string> published, subscribed;
  for (const Member& m : metadata.shared_settings.get_object()) published.emplace_back(m.key.get_string());
  out += "Publishes: " + (published.empty() ? "-" : joined(published, ", ")) + "\n";
  out += "Subscribes to: " +
         (metadata.setting_subscriptions.empty() ? "-" : joined(metadata.setting_subscriptions, ", ")) + "\n";
  const auto settings = repo::setting_docs(tpl);
  out += "\nSettings:" + std::string(settings.empty() ? " none\n" : "\n");
  for (const repo::SettingDoc& setting : settings) out += setting_text(setting);
  return write_stdout(out) ? 0 : 1;
}

Result<repo::Plan> plan(const RepoArgs& args, const repo::Workspace& workspace) {
  return repo::make_plan(workspace.project, workspace.catalog, plan_options(args));
}

Result<int> run_validate(const RepoArgs& args) {
  SINDRI_TRY(workspace, open_repo_workspace(args));
  SINDRI_TRY(planned, plan(args, workspace));
  if (!planned.problems.empty()) return repo::problems_error(planned.problems);
  std::vector<std::string> names;
  for (const repo::AppliedTemplate& applied : planned.templates) names.push_back(applied.tpl.name());
  const std::string summary = std::to_string(names.size()) + (names.size() == 1 ? " template" : " templates") +
                              " valid" + (names.empty() ? "" : ": " + joined(names, ", ")) + "\n";
  return write_stdout(summary) ? 0 : 1;
}

Result<std::vector<repo::RenderedFile>> rendered_files(const RepoArgs& args, const repo::Workspace& workspace) {
  SINDRI_TRY(planned, plan(args, workspace));
  return repo::render_plan(planned, workspace.project);
}

Value file_value(const repo::RenderedFile& file) {
  Value out = Object{};
  out.set("path", file.path);
  out.set("template", file.template_name);
  out.set("init_only", file.init_only);
  out.set("content", file.bytes);
  return out;
}

Result<int> run_render(const RepoArgs& args) {
  SINDRI_TRY(workspace, open_repo_workspace(args));
  SINDRI_TRY(files, rendered_files(args, workspace));
  std::string out;
  if (!args.output_dir.empty()) {
    SINDRI_TRY(written, repo::sync_files(args.output_dir, files));
    for (const repo::SyncedFile& file : written) out += (fs::path(args.output_dir) / file.path).string() + "\n";
  } else if (args.output == "raw") {
    for (const repo::RenderedFile& file : files) {
      out += "# File: " + file.path + " (template " + file.template_name + (file.init_only ? ", init only" : "") +
             ")\n" + file.bytes;
      if (!file.bytes.empty() && file.bytes.back() != '\n') out += "\n";
    }
  } else {
    std::vector<Value> values;
    for (const repo::RenderedFile& file : files) values.push_back(file_value(file));
    out = args.output == "json" ? to_json_pretty(Value(Array(values.begin(), values.end()))) + "\n"
                                : to_yaml_stream(values);
  }
  return write_stdout(out) ? 0 : 1;
}

Result<int> run_diff(const RepoArgs& args) {
  SINDRI_TRY(workspace, open_repo_workspace(args));
  SINDRI_TRY(files, rendered_files(args, workspace));
  std::string out;
  for (const repo::RenderedFile& file : files) {
    const repo::FileChange change = repo::planned_change(workspace.project.directory, file);
    if (change != repo::FileChange::Created && change != repo::FileChange::Updated) continue;
    std::string current;
    if (change == repo::FileChange::Updated) {
      SINDRI_TRY(text, read_file_text(workspace.project.directory / file.path, "project file"));
      current = std::move(text);
    }
    out += roles::unified_diff(current, file.bytes, change == repo::FileChange::Created ? "/dev/null" : "a/" + file.path,
                               "b/" + file.path);
  }
  if (!write_stdout(out)) return kDiffError;
  return out.empty() ? 0 : 1;
}

Result<int> run_sync(const RepoArgs& args) {
  SINDRI_TRY(workspace, open_repo_workspace(args));
  SINDRI_TRY(files, rendered_files(args, workspace));
  SINDRI_TRY(synced, repo::sync_files(workspace.project.directory, files));
  std::string out;
  for (const repo::SyncedFile& file : synced) {
    if (file.change == repo::FileChange::Created || file.change == repo::FileChange::Updated) {
      out += std::string(repo::change_name(file.change)) + " " + file.path + "\n";
    }
  }
  if (out.empty()) print_note("nothing to change: every file is up to date");
  return write_stdout(out) ? 0 : 1;
}

}  // namespace

Verb add_repo(CLI::App& app) {
  auto args = std::make_shared<RepoArgs>();
  CLI::App* cmd = app.add_subcommand("repo", "Template repositories: compose a project's files from templates");
  cmd->require_subcommand(1);
  CLI::App* list = cmd->add_subcommand("list", "List the templates of the project's template sources");
  CLI::App* show = cmd->add_subcommand("show", "Show a template: its description, settings and shared settings");
  show->add_option("NAME", args->name, "The template (its directory name)")->required();
  CLI::App* validate =
      cmd->add_subcommand("validate", "Check the project file, its templates and their settings; exit 1 on problems");
  CLI::App* render = cmd->add_subcommand("render", "Print the files a sync would write, without writing the project");
  render->add_option("-o,--output", args->output, "raw: each file after a `# File:` line; yaml, json: path, template, content")
      ->check(CLI::IsMember({"raw", "yaml", "json"}));
  render->add_option("--output-dir", args->output_dir, "Write the files under DIR instead of printing them");
  CLI::App* diff = cmd->add_subcommand(
      "diff", "Unified diff of what a sync would change; exit 0 when nothing, 1 when something, 2 on an error");
  CLI::App* sync = cmd->add_subcommand("sync", "Write the project's files (files_init only where absent)");
  for (CLI::App* command : {list, show, validate, render, diff, sync}) add_project_options(*command, *args);
  for (CLI::App* command : {validate, render, diff, sync}) add_trust_option(*command, *args);
  std::vector<Verb> groups = add_repo_sources(*cmd);
  for (Verb verb : {add_repo_docs(*cmd), add_repo_test(*cmd), add_repo_publish(*cmd)}) groups.push_back(std::move(verb));
  return Verb{cmd, [args, list, show, validate, render, diff, groups] {
                for (const Verb& group : groups) {
                  if (group.command->parsed()) return group.run();
                }
                if (list->parsed()) return finish_repo_verb(run_list(*args));
                if (show->parsed()) return finish_repo_verb(run_show(*args));
                if (validate->parsed()) return finish_repo_verb(run_validate(*args));
                if (render->parsed()) return finish_repo_verb(run_render(*args));
                if (diff->parsed()) return finish_repo_verb(run_diff(*args), kDiffError);
                return finish_repo_verb(run_sync(*args));
              }};
}

}  // namespace sindri::cli
