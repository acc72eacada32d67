#include "cli/targets.hpp"

#include <vector>

#include "cli/errors.hpp"
#include "cli/names.hpp"

namespace sindri::cli {

int print_stack_targets(BrokerClient& client, const std::string& path, const std::string& output,
                        std::string_view what) {
  auto targets = client.get(path);
  if (!targets) return fail(targets.error().message);
  if (!is_table_output(output)) return print_list(*targets, output, {}, what);
  Names names(client);
  auto stack_field = [&names](std::string_view key) {
    return [&names, key](const Value& target) {
      const Value* stack = names.live_stack(cell(target, "stack_id"));
      return stack == nullptr ? std::string("<none>") : cell(*stack, key);
    };
  };
  // Read before anything is printed: a failed read fails the verb.
  if (targets->is_array()) {
    for (const Value& target : targets->get_array()) names.stack_generator(cell(target, "stack_id"));
  }
  if (names.failure()) return fail(*names.failure());
  const std::vector<Column> columns = {
      {"NAME", [&names](const Value& target) { return names.stack(cell(target, "stack_id")); }},
      {"STACK ID", [](const Value& target) { return cell(target, "stack_id"); }},
      {"GENERATOR", [&names](const Value& target) { return names.stack_generator(cell(target, "stack_id")); }},
      {"DESCRIPTION", stack_field("description"), true},
      {"CREATED", stack_field("created_at"), true},
  };
  return print_list(*targets, output, columns, what);
}

}  // namespace sindri::cli
