#include "cli/targets.hpp"

#include <map>
#include <vector>

#include "cli/errors.hpp"

namespace sindri::cli {

int print_stack_targets(BrokerClient& client, const std::string& path, const std::string& output,
                        std::string_view what) {
  auto targets = client.get(path);
  if (!targets) return fail(targets.error().message);
  if (!is_table_output(output)) return print_list(*targets, output, {}, what);
  // An agent's PAK may read its targets but list no stacks.
  auto stacks = client.get("/stacks");
  if (!stacks && !client.last_refused()) return fail(stacks.error().message);
  std::map<std::string, const Value*> visible;
  if (stacks && stacks->is_array()) {
    for (const Value& stack : stacks->get_array()) visible[cell(stack, "id")] = &stack;
  }
  // A stack the PAK may not list is shown by id alone.
  auto stack_cell = [&visible](std::string_view key) {
    return [&visible, key](const Value& target) {
      auto found = visible.find(cell(target, "stack_id"));
      return found == visible.end() ? std::string("<unknown>") : cell(*found->second, key);
    };
  };
  const std::vector<Column> columns = {
      {"NAME", stack_cell("name")},
      {"STACK ID", [](const Value& target) { return cell(target, "stack_id"); }},
      {"GENERATOR", stack_cell("generator_id")},
  };
  return print_list(*targets, output, columns, what);
}

}  // namespace sindri::cli
