// sindri completion bash|zsh|fish
//
// Prints a completion script covering the verbs of all three programs of
// `sindri`, their subcommands and options. This program does not link the
// verbs of the others, so it asks each for its command tree
// (`PROGRAM __commands`, run.cpp) and puts them in place of its own entries
// for those verbs, and for the subcommands of its groups that another
// program runs (`repo publish`).

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "cli/command_tree.hpp"
#include "cli/command_verbs.hpp"
#include "cli/completion_scripts.hpp"
#include "cli/errors.hpp"
#include "cli/io.hpp"
#include "cli/programs.hpp"
#include "value/json.hpp"

extern char** environ;

namespace sindri::cli {
namespace {

// What `program __commands` prints, the program beside this one.
Result<std::string> commands_output(const std::string& program) {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return make_error("cannot find the sindri program itself: " + error.message());
  std::string path = (self.parent_path() / program).string();
  std::string argument = kCommandsArgument;
  char* argv[] = {path.data(), argument.data(), nullptr};
  int pipe_ends[2];
  if (::pipe(pipe_ends) != 0) return make_error(std::string("cannot make a pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], 1);
  posix_spawn_file_actions_addclose(&actions, pipe_ends[0]);
  posix_spawn_file_actions_addclose(&actions, pipe_ends[1]);
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, path.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_ends[1]);
  std::string out;
  if (spawned == 0) {
    char buffer[8192];
    for (ssize_t n; (n = ::read(pipe_ends[0], buffer, sizeof buffer)) > 0;) out.append(buffer, static_cast<size_t>(n));
  }
  ::close(pipe_ends[0]);
  if (spawned != 0) return make_error("cannot run " + path + ": " + std::strerror(spawned));
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return make_error(path + " " + argument + " failed");
  return out;
}

Result<Value> program_tree(const std::string& program) {
  SINDRI_TRY(output, commands_output(program));
  auto tree = parse_json(output);
  const Value* verbs = tree ? tree->find("subcommands") : nullptr;
  if (verbs == nullptr || !verbs->is_array()) {
    return make_error(program + " " + kCommandsArgument + " printed no command tree");
  }
  return std::move(tree).value();
}

bool has(const Value& entry, std::string_view key, bool (Value::*is_kind)() const) {
  const Value* field = entry.find(key);
  return field != nullptr && (field->*is_kind)();
}

bool all_strings(const Value& list) {
  return std::all_of(list.get_array().begin(), list.get_array().end(), [](const Value& each) { return each.is_string(); });
}

bool well_formed_option(const Value& option) {
  const Value* choices = option.find("choices");
  return has(option, "names", &Value::is_array) && all_strings(*option.find("names")) &&
         has(option, "description", &Value::is_string) && has(option, "takes_value", &Value::is_bool) &&
         (choices == nullptr || (choices->is_array() && all_strings(*choices)));
}

// Whether an entry of another program's tree has every field, of its type,
// that the completion scripts read (command_tree.hpp), its subcommands too:
// a malformed one would crash them.
bool well_formed_command(const Value& entry) {
  if (!has(entry, "name", &Value::is_string) || !has(entry, "description", &Value::is_string) ||
      !has(entry, "positionals", &Value::is_bool) || !has(entry, "options", &Value::is_array) ||
      !has(entry, "subcommands", &Value::is_array)) {
    return false;
  }
  const Array& options = entry.find("options")->get_array();
  const Array& subcommands = entry.find("subcommands")->get_array();
  return std::all_of(options.begin(), options.end(), well_formed_option) &&
         std::all_of(subcommands.begin(), subcommands.end(), well_formed_command);
}

std::string_view name_of(const Value& entry) { return entry.find("name")->get_string(); }

// The entry of `entries` (the verbs or the subcommands of a tree) named
// `name`, or nullptr.
const Value* entry_named(const Array& entries, std::string_view name) {
  for (const Value& entry : entries) {
    if (name_of(entry) == name) return &entry;
  }
  return nullptr;
}

bool is_other_program_verb(std::string_view name) {
  return std::any_of(std::begin(kOtherProgramVerbs), std::end(kOtherProgramVerbs),
                     [name](const ProgramVerb& verb) { return verb.name == name; });
}

bool is_other_program_subcommand(std::string_view group, std::string_view name) {
  return std::any_of(std::begin(kOtherProgramSubcommands), std::end(kOtherProgramSubcommands),
                     [&](const ProgramSubcommand& sub) { return sub.group == group && sub.subcommand.name == name; });
}

// One of this program's groups, each subcommand another program runs taken
// from that program's entry for the group (which holds those alone).
Value with_other_subcommands(Value group, const Array& others) {
  const Value* theirs = entry_named(others, name_of(group));
  if (theirs == nullptr) return group;
  Array subcommands;
  for (const Value& subcommand : group.find("subcommands")->get_array()) {
    const Value* replacement = nullptr;
    if (is_other_program_subcommand(name_of(group), name_of(subcommand))) {
      replacement = entry_named(theirs->find("subcommands")->get_array(), name_of(subcommand));
    }
    subcommands.push_back(replacement != nullptr ? *replacement : subcommand);
  }
  group.set("subcommands", Value(std::move(subcommands)));
  return group;
}

// This program's tree, each verb (and subcommand of a group) of another
// program replaced by that program's own entry for it. A program that
// cannot say, or an entry of its tree that is malformed, leaves those verbs
// as this program knows them (without subcommands or options), with a
// warning.
Value whole_tree(const CLI::App& app) {
  std::set<std::string_view> programs;
  for (const ProgramVerb& verb : kOtherProgramVerbs) programs.insert(verb.program);
  for (const ProgramSubcommand& sub : kOtherProgramSubcommands) programs.insert(sub.subcommand.program);
  Array others;
  for (std::string_view program : programs) {
    auto tree = program_tree(std::string(program));
    if (!tree) {
      print_warning(tree.error().message + ": its verbs complete without their subcommands and options");
      continue;
    }
    for (const Value& verb : tree->find("subcommands")->get_array()) {
      if (well_formed_command(verb)) {
        others.push_back(verb);
      } else {
        print_warning(std::string(program) + " " + kCommandsArgument + " printed a malformed entry, " +
                      to_json(verb) + ": left out of the completion");
      }
    }
  }
  Value tree = command_tree(app);
  Array verbs;
  for (const Value& verb : tree.find("subcommands")->get_array()) {
    if (!is_other_program_verb(name_of(verb))) {
      verbs.push_back(with_other_subcommands(verb, others));
      continue;
    }
    const Value* replacement = entry_named(others, name_of(verb));
    verbs.push_back(replacement != nullptr ? *replacement : verb);
  }
  tree.set("subcommands", Value(std::move(verbs)));
  return tree;
}

int run_completion(const CLI::App& app, const std::string& shell) {
  const Value tree = whole_tree(app);
  const std::string script =
      shell == "bash" ? bash_completion(tree) : shell == "zsh" ? zsh_completion(tree) : fish_completion(tree);
  return write_stdout(script) ? 0 : 1;
}

}  // namespace

Verb add_completion(CLI::App& app) {
  auto shell = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("completion", "Print a completion script for bash, zsh or fish");
  cmd->add_option("SHELL", *shell, "bash, zsh or fish")->required()->check(CLI::IsMember({"bash", "zsh", "fish"}));
  return Verb{cmd, [&app, shell] { return run_completion(app, *shell); }};
}

}  // namespace sindri::cli
