#include "cli/command_tree.hpp"

#include <algorithm>
#include <string>

namespace sindri::cli {
namespace {

// CLI11 gives a set validator's values only in the type name it shows,
// "TEXT:{table,wide,yaml,json}".
Value choices_of(const CLI::Option& option) {
  Array choices;
  const std::string type = option.get_type_name();
  const size_t open = type.find(":{");
  const size_t close = type.find('}', open);
  if (open == std::string::npos || close == std::string::npos) return Value(std::move(choices));
  const std::string list = type.substr(open + 2, close - open - 2);
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    if (comma > start) choices.push_back(Value(list.substr(start, comma - start)));
    start = comma + 1;
  }
  return Value(std::move(choices));
}

Value option_tree(const CLI::Option& option) {
  Array names;
  for (const std::string& name : option.get_snames()) names.push_back(Value("-" + name));
  for (const std::string& name : option.get_lnames()) names.push_back(Value("--" + name));
  Value tree(Object{{Value("names"), Value(std::move(names))},
                    {Value("description"), Value(option.get_description())},
                    {Value("takes_value"), Value(option.get_items_expected_max() != 0)}});
  Value choices = choices_of(option);
  if (choices.size() > 0) tree.set("choices", std::move(choices));
  return tree;
}

}  // namespace

Value command_tree(const CLI::App& command) {
  Array options;
  bool positionals = false;
  for (const CLI::Option* option : command.get_options()) {
    if (option->nonpositional()) {
      options.push_back(option_tree(*option));
    } else {
      positionals = true;
    }
  }
  Array subcommands;
  // A subcommand without a group is hidden from help, and so from completion.
  for (const CLI::App* subcommand :
       command.get_subcommands([](const CLI::App* each) { return !each->get_group().empty(); })) {
    subcommands.push_back(command_tree(*subcommand));
  }
  return Value(Object{{Value("name"), Value(command.get_name())},
                      {Value("description"), Value(command.get_description())},
                      {Value("options"), Value(std::move(options))},
                      {Value("positionals"), Value(positionals)},
                      {Value("subcommands"), Value(std::move(subcommands))}});
}

}  // namespace sindri::cli
