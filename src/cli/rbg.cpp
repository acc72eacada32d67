// sindri rbg preview FILE     each role's resolved pod template (`kubectl rbg preview`)
// sindri rbg diff OLD NEW     unified diff of each role's settings (replicas, workload, restart
//                             policy, ...) and resolved templates, role by role;
//                             exit 0 when equal, 1 when they differ, 2 on error (as `kubectl diff`)
// sindri rbg workloads FILE   the StatefulSet or LeaderWorkerSet of every role
//
// FILE holds one RoleBasedGroup (other documents in the stream are ignored).

#include <memory>
#include <string>
#include <vector>

#include "cli/errors.hpp"
#include "cli/io.hpp"
#include "cli/verbs.hpp"
#include "roles/roles.hpp"
#include "roles/unified_diff.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::cli {

namespace {

struct RbgArgs {
  std::string file;
  std::string old_file;
  std::string new_file;
};

Result<roles::RoleBasedGroup> read_group(const std::string& path) {
  SINDRI_TRY(text, read_file(path, "RoleBasedGroup file"));
  auto stream = parse_yaml_stream(text, path);
  if (!stream) return make_error(stream.error().describe());
  const Value* found = nullptr;
  for (const YamlDocument& document : *stream) {
    const Value* kind = document.value.find("kind");
    if (!kind || !kind->is_string() || kind->get_string() != "RoleBasedGroup") continue;
    if (found) return make_error(path + ": holds more than one RoleBasedGroup");
    found = &document.value;
  }
  if (!found) return make_error(path + ": holds no RoleBasedGroup");
  auto group = roles::parse_group(*found);
  if (!group) return make_error(path + ": " + group.error().describe());
  return std::move(group).value();
}

int run_preview(const RbgArgs& args) {
  auto group = read_group(args.file);
  if (!group) {
    print_error(group.error().message);
    return 1;
  }
  std::string out;
  for (const roles::ResolvedRole& role : group->roles) {
    if (!out.empty()) out += "\n";
    out += roles::preview(role);
  }
  return write_stdout(out) ? 0 : 1;
}

const roles::ResolvedRole* find_role(const roles::RoleBasedGroup& group, const std::string& name) {
  for (const roles::ResolvedRole& role : group.roles) {
    if (role.name == name) return &role;
  }
  return nullptr;
}

// What `rbg diff` compares of a role: its settings, then its templates as
// `rbg preview` shows them.
std::string compared_text(const roles::ResolvedRole& role) {
  return "# Role: " + role.name + " (settings)\n---\n" + to_yaml(roles::settings(role)) + roles::preview(role);
}

// Roles of NEW in order, then the roles only OLD has; a missing role diffs
// against nothing.
int run_diff(const RbgArgs& args) {
  constexpr int kError = 2;
  auto old_group = read_group(args.old_file);
  if (!old_group) {
    print_error(old_group.error().message);
    return kError;
  }
  auto new_group = read_group(args.new_file);
  if (!new_group) {
    print_error(new_group.error().message);
    return kError;
  }
  std::vector<std::string> names;
  for (const roles::ResolvedRole& role : new_group->roles) names.push_back(role.name);
  for (const roles::ResolvedRole& role : old_group->roles) {
    if (!find_role(*new_group, role.name)) names.push_back(role.name);
  }
  std::string out;
  for (const std::string& name : names) {
    const roles::ResolvedRole* old_role = find_role(*old_group, name);
    const roles::ResolvedRole* new_role = find_role(*new_group, name);
    const std::string diff = roles::unified_diff(old_role ? compared_text(*old_role) : "",
                                                 new_role ? compared_text(*new_role) : "",
                                                 args.old_file + " (role " + name + ")",
                                                 args.new_file + " (role " + name + ")");
    if (!diff.empty()) out += "Role: " + name + "\n" + diff;
  }
  if (!write_stdout(out)) return kError;
  return out.empty() ? 0 : 1;
}

int run_workloads(const RbgArgs& args) {
  auto group = read_group(args.file);
  if (!group) {
    print_error(group.error().message);
    return 1;
  }
  std::vector<Value> workloads;
  for (const roles::ResolvedRole& role : group->roles) workloads.push_back(roles::workload(*group, role));
  return write_stdout(to_yaml_stream(workloads)) ? 0 : 1;
}

}  // namespace

Verb add_rbg(CLI::App& app) {
  auto args = std::make_shared<RbgArgs>();
  CLI::App* cmd = app.add_subcommand("rbg", "RoleBasedGroup role templates (KEP-8): preview, diff, workloads");
  cmd->require_subcommand(1);
  CLI::App* preview = cmd->add_subcommand("preview", "Print each role's resolved pod template");
  preview->add_option("file", args->file, "The RoleBasedGroup (YAML or JSON)")->required();
  CLI::App* diff = cmd->add_subcommand(
      "diff", "Unified diff of each role's settings and resolved templates; exit 1 when they differ");
  diff->add_option("old", args->old_file, "The old RoleBasedGroup")->required();
  diff->add_option("new", args->new_file, "The new RoleBasedGroup")->required();
  CLI::App* workloads =
      cmd->add_subcommand("workloads", "Print the StatefulSet or LeaderWorkerSet of every role");
  workloads->add_option("file", args->file, "The RoleBasedGroup (YAML or JSON)")->required();
  return Verb{cmd, [args, preview, diff] {
                if (preview->parsed()) return run_preview(*args);
                if (diff->parsed()) return run_diff(*args);
                return run_workloads(*args);
              }};
}

}  // namespace sindri::cli
