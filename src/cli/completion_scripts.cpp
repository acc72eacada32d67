#include "cli/completion_scripts.hpp"

#include <string>
#include <vector>

namespace sindri::cli {
namespace {

// One command of the tree and the words that lead to it, "sindri stack create".
struct Command {
  std::string path;
  const Value* node;
};

void flatten(const Value& node, const std::string& path, std::vector<Command>& out) {
  out.push_back(Command{path, &node});
  for (const Value& subcommand : node.find("subcommands")->get_array()) {
    flatten(subcommand, path + " " + std::string(subcommand.find("name")->get_string()), out);
  }
}

std::vector<Command> commands_of(const Value& tree) {
  std::vector<Command> commands;
  flatten(tree, std::string(tree.find("name")->get_string()), commands);
  return commands;
}

const Array& subcommands(const Command& command) { return command.node->find("subcommands")->get_array(); }
const Array& options(const Command& command) { return command.node->find("options")->get_array(); }
std::string name(const Value& node) { return std::string(node.find("name")->get_string()); }
// On one line: an entry of the scripts' menus is a line.
std::string description(const Value& node) {
  std::string text(node.find("description")->get_string());
  for (char& c : text) {
    if (c == '\n') c = ' ';
  }
  return text;
}
bool takes_value(const Value& option) { return option.find("takes_value")->get_bool(); }
bool has_positionals(const Command& command) { return command.node->find("positionals")->get_bool(); }

std::vector<std::string> names_of(const Value& option) {
  std::vector<std::string> names;
  for (const Value& each : option.find("names")->get_array()) names.emplace_back(each.get_string());
  return names;
}

std::vector<std::string> choices_of(const Value& option) {
  std::vector<std::string> choices;
  if (const Value* listed = option.find("choices")) {
    for (const Value& each : listed->get_array()) choices.emplace_back(each.get_string());
  }
  return choices;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) out += (out.empty() ? "" : " ") + word;
  return out;
}

// Text inside '...' for bash and zsh: a quote ends it, is escaped, and
// starts it again.
std::string sh_quoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Text inside '...' for fish, where \' and \\ are the escapes.
std::string fish_quoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// The words of every command's subcommands, options, options that take a
// value (space-padded, to match " WORD "), and choices per option, as the
// entries of associative arrays keyed by command: bash's [KEY]=WORDS, zsh's
// KEY WORDS.
struct Tables {
  std::string subcommands, options, value_options, choices;
};

enum class Shell { Bash, Zsh };

std::string table_entry(Shell shell, const std::string& key, const std::string& words) {
  return shell == Shell::Bash ? "    [" + sh_quoted(key) + "]=" + sh_quoted(words) + "\n"
                              : "    " + sh_quoted(key) + " " + sh_quoted(words) + "\n";
}

Tables word_tables(const std::vector<Command>& commands, Shell shell) {
  Tables tables;
  for (const Command& command : commands) {
    std::vector<std::string> names, flags, valued;
    for (const Value& subcommand : subcommands(command)) names.push_back(name(subcommand));
    for (const Value& option : options(command)) {
      for (const std::string& flag : names_of(option)) {
        flags.push_back(flag);
        if (!takes_value(option)) continue;
        valued.push_back(flag);
        const std::vector<std::string> choices = choices_of(option);
        if (!choices.empty()) {
          tables.choices += table_entry(shell, command.path + " " + flag, joined(choices));
        }
      }
    }
    if (!names.empty()) tables.subcommands += table_entry(shell, command.path, " " + joined(names) + " ");
    tables.options += table_entry(shell, command.path, joined(flags));
    if (!valued.empty()) tables.value_options += table_entry(shell, command.path, " " + joined(valued) + " ");
  }
  return tables;
}

}  // namespace

std::string bash_completion(const Value& tree) {
  const Tables tables = word_tables(commands_of(tree), Shell::Bash);
  return R"(# bash completion for sindri: `source <(sindri completion bash)` in ~/.bashrc,
# or `sindri completion bash > ~/.local/share/bash-completion/completions/sindri`.
_sindri() {
  local -A subcommands=(
)" + tables.subcommands +
         R"(  )
  local -A options=(
)" + tables.options +
         R"(  )
  local -A value_options=(
)" + tables.value_options +
         R"(  )
  local -A choices=(
)" + tables.choices +
         R"(  )
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=sindri word i choice_key
  # The command the words before the cursor name; an option's value is skipped.
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    if [[ ${subcommands[$cmd]} == *" $word "* ]]; then
      cmd="$cmd $word"
    elif [[ ${value_options[$cmd]} == *" $word "* ]]; then
      ((i++))
    fi
  done
  COMPREPLY=()
  choice_key="$cmd $prev"
  if [[ ${value_options[$cmd]} == *" $prev "* ]]; then
    if [[ -n ${choices[$choice_key]} ]]; then
      COMPREPLY=($(compgen -W "${choices[$choice_key]}" -- "$cur"))
    else
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -f -- "$cur"))
    fi
  elif [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "${options[$cmd]}" -- "$cur"))
  elif [[ -n ${subcommands[$cmd]} ]]; then
    COMPREPLY=($(compgen -W "${subcommands[$cmd]}" -- "$cur"))
  else
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -F _sindri sindri
)";
}

std::string zsh_completion(const Value& tree) {
  const std::vector<Command> commands = commands_of(tree);
  const Tables tables = word_tables(commands, Shell::Zsh);
  // "NAME:DESCRIPTION" lines, which _describe shows as a menu.
  std::string described_subcommands, described_options;
  const auto entry = [](const std::string& word, const std::string& text) {
    std::string escaped;
    for (char c : word) escaped += c == ':' ? std::string("\\:") : std::string(1, c);
    return escaped + ":" + text + "\n";
  };
  for (const Command& command : commands) {
    std::string lines;
    for (const Value& subcommand : subcommands(command)) lines += entry(name(subcommand), description(subcommand));
    if (!lines.empty()) described_subcommands += table_entry(Shell::Zsh, command.path, lines);
    lines.clear();
    for (const Value& option : options(command)) {
      for (const std::string& flag : names_of(option)) lines += entry(flag, description(option));
    }
    if (!lines.empty()) described_options += table_entry(Shell::Zsh, command.path, lines);
  }
  return R"(#compdef sindri
# zsh completion for sindri: save as _sindri in a directory of $fpath, or
# `source <(sindri completion zsh)` in ~/.zshrc after compinit.
_sindri() {
  local -A subcommands described_subcommands described_options value_options choices
  subcommands=(
)" + tables.subcommands +
         R"(  )
  described_subcommands=(
)" + described_subcommands +
         R"(  )
  described_options=(
)" + described_options +
         R"(  )
  value_options=(
)" + tables.value_options +
         R"(  )
  choices=(
)" + tables.choices +
         R"(  )
  local cmd=sindri word i
  local -a entries
  # The command the words before the cursor name; an option's value is skipped.
  for ((i = 2; i < CURRENT; i++)); do
    word=${words[i]}
    if [[ ${subcommands[$cmd]} == *" $word "* ]]; then
      cmd="$cmd $word"
    elif [[ ${value_options[$cmd]} == *" $word "* ]]; then
      ((i++))
    fi
  done
  local prev=${words[CURRENT-1]}
  local choice_key="$cmd $prev"
  if [[ ${value_options[$cmd]} == *" $prev "* ]]; then
    if [[ -n ${choices[$choice_key]} ]]; then
      compadd -- ${=choices[$choice_key]}
    else
      _files
    fi
  elif [[ ${words[CURRENT]} == -* ]]; then
    entries=(${(f)described_options[$cmd]})
    _describe -t options option entries
  elif [[ -n ${subcommands[$cmd]} ]]; then
    entries=(${(f)described_subcommands[$cmd]})
    _describe -t commands command entries
  else
    _files
  fi
}
if [[ ${funcstack[1]} == _sindri ]]; then
  _sindri "$@"
else
  compdef _sindri sindri
fi
)";
}

std::string fish_completion(const Value& tree) {
  const std::vector<Command> commands = commands_of(tree);
  std::string subcommand_cases, value_option_cases, completions;
  for (const Command& command : commands) {
    const std::string at = " -n " + fish_quoted("__sindri_at " + sh_quoted(command.path));
    std::vector<std::string> names, valued;
    for (const Value& subcommand : subcommands(command)) {
      names.push_back(name(subcommand));
      completions += "complete -c sindri" + at + " -a " + fish_quoted(name(subcommand)) + " -d " +
                     fish_quoted(description(subcommand)) + "\n";
    }
    for (const Value& option : options(command)) {
      std::string spec;
      for (const std::string& flag : names_of(option)) {
        spec += flag.starts_with("--") ? " -l " + flag.substr(2) : " -s " + flag.substr(1);
        if (takes_value(option)) valued.push_back(flag);
      }
      const std::vector<std::string> choices = choices_of(option);
      if (!choices.empty()) {
        spec += " -x -a " + fish_quoted(joined(choices));
      } else if (takes_value(option)) {
        spec += " -r -F";
      }
      completions += "complete -c sindri" + at + spec + " -d " + fish_quoted(description(option)) + "\n";
    }
    if (names.empty() && has_positionals(command)) completions += "complete -c sindri" + at + " -F\n";
    if (!names.empty()) {
      subcommand_cases += "        case " + fish_quoted(command.path) + "\n            printf '%s\\n' " +
                          joined(names) + "\n";
    }
    if (!valued.empty()) {
      value_option_cases += "        case " + fish_quoted(command.path) + "\n            printf '%s\\n' " +
                            joined(valued) + "\n";
    }
  }
  return R"(# fish completion for sindri: `sindri completion fish | source`, or
# `sindri completion fish > ~/.config/fish/completions/sindri.fish`.
function __sindri_subcommands
    switch $argv[1]
)" + subcommand_cases +
         R"(    end
end

function __sindri_value_options
    switch $argv[1]
)" + value_option_cases +
         R"(    end
end

# The command the words before the cursor name; an option's value is skipped.
function __sindri_command
    set -l cmd sindri
    set -l skip 0
    for word in (commandline -opc)[2..-1]
        if test $skip -eq 1
            set skip 0
        else if contains -- $word (__sindri_subcommands $cmd)
            set cmd "$cmd $word"
        else if contains -- $word (__sindri_value_options $cmd)
            set skip 1
        end
    end
    echo $cmd
end

function __sindri_at
    set -l cmd (__sindri_command)
    test "$cmd" = "$argv[1]"
end

complete -c sindri -f
)" + completions;
}

}  // namespace sindri::cli
