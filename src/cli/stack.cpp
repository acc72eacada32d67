// sindri stack create NAME [--description D] [--generator-id ID] [--label L]... [--annotation K=V]...
// sindri stack list
// sindri stack get STACK
// sindri stack delete STACK
// sindri stack label STACK LABEL... [--remove]
// sindri stack annotate STACK KEY=VALUE... | --remove KEY...
//
// Stacks on a broker (--broker, --pak: see broker_client.hpp). STACK is an
// id or a name. A generator's PAK creates stacks for that generator; an
// admin names the generator with --generator-id. create, list and get print
// a table, or with -o yaml|json the API's objects.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/broker_client.hpp"
#include "cli/errors.hpp"
#include "cli/io.hpp"
#include "cli/programs.hpp"
#include "cli/tags.hpp"
#include "cli/verbs.hpp"
#include "value/uuid.hpp"

namespace sindri::cli {

namespace {

struct StackArgs {
  BrokerFlags flags;
  std::string stack;  // NAME for create, STACK (id or name) otherwise
  std::optional<std::string> description;
  std::optional<std::string> generator_id;
  Tags tags;  // create's --label and --annotation
  TagChange tag_change;
};

const std::vector<Column>& stack_columns() {
  static const std::vector<Column> columns = {
      {"NAME", [](const Value& stack) { return cell(stack, "name"); }},
      {"ID", [](const Value& stack) { return cell(stack, "id"); }},
      {"GENERATOR", [](const Value& stack) { return cell(stack, "generator_id"); }},
      {"CREATED", [](const Value& stack) { return cell(stack, "created_at"); }},
  };
  return columns;
}

// The API lets one owner have two stacks of a name, but every verb here
// finds stacks by name, and the second would make it ambiguous to the
// owner. Other owners may use the name (an admin then tells them apart by
// id). A PAK sees its generator's stacks, an admin all of them.
Status check_name_unused(BrokerClient& client, const StackArgs& args) {
  SINDRI_TRY(stacks, client.get("/stacks"));
  for (const Value& stack : stacks.get_array()) {
    if (cell(stack, "name") != args.stack) continue;
    if (args.generator_id && cell(stack, "generator_id") != stored_uuid(*args.generator_id)) continue;
    return make_error("stack \"" + args.stack + "\" already exists (id " + cell(stack, "id") + ")");
  }
  return Ok{};
}

int run_create(const StackArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  if (auto unused = check_name_unused(*client, args); !unused) return fail(unused.error().message);
  Value body{Object{}};
  body.set("name", args.stack);
  if (args.description) body.set("description", *args.description);
  if (args.generator_id) body.set("generator_id", *args.generator_id);
  auto stack = client->post("/stacks", body);
  if (!stack) return fail(stack.error().message);
  const std::string path = "/stacks/" + cell(*stack, "id");
  if (auto tagged = add_tags_to_new(*client, path, "stack", *stack, args.tags); !tagged) {
    return fail(tagged.error().message);
  }
  return print_result(*stack, args.flags.output, [](const Value& created) {
    return "stack " + cell(created, "name") + " created (id " + cell(created, "id") + ")\n";
  });
}

int run_list(const StackArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  auto stacks = client->get("/stacks");
  if (!stacks) return fail(stacks.error().message);
  return print_list(*stacks, args.flags.output, stack_columns(), "stacks");
}

int run_get(const StackArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  auto stack = client->find_stack(args.stack);
  if (!stack) return fail(stack.error().message);
  return print_with_tags(*client, *stack, "/stacks/" + cell(*stack, "id"), stack_columns(), args.flags.output);
}

int run_delete(const StackArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  auto stack = client->find_stack(args.stack);
  if (!stack) return fail(stack.error().message);
  if (auto removed = client->remove("/stacks/" + cell(*stack, "id")); !removed) return fail(removed.error().message);
  const std::string done = "stack " + cell(*stack, "name") + " deleted (id " + cell(*stack, "id") + ")\n";
  return write_stdout(done) ? 0 : fail("cannot write the output");
}

int run_tagging(const StackArgs& args) {
  if (int usage = check_tag_items(args.tag_change); usage != 0) return usage;
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  auto stack = client->find_stack(args.stack);
  if (!stack) return fail(stack.error().message);
  return change_tags(*client, "/stacks/" + cell(*stack, "id"), "stack " + cell(*stack, "name"), args.tag_change);
}

}  // namespace

Verb add_stack(CLI::App& app) {
  auto args = std::make_shared<StackArgs>();
  CLI::App* cmd = app.add_subcommand(std::string(kStackVerb.name), std::string(kStackVerb.description));
  cmd->require_subcommand(1);

  CLI::App* create = cmd->add_subcommand("create", "Create a stack");
  create->add_option("NAME", args->stack, "Name of the stack")->required();
  create->add_option_function<std::string>(
      "--description", [args](const std::string& text) { args->description = text; }, "Description of the stack");
  create->add_option_function<std::string>(
      "--generator-id", [args](const std::string& id) { args->generator_id = id; },
      "Generator that owns the stack (an admin must give it; a generator's PAK implies itself)");
  create->add_option("--label", args->tags.labels, "Label of the stack (repeatable)")->allow_extra_args(false);
  create->add_option("--annotation", args->tags.annotations, "Annotation KEY=VALUE of the stack (repeatable)")
      ->allow_extra_args(false)
      ->check(key_value_validator());
  add_broker_flags(*create, args->flags);

  CLI::App* list = cmd->add_subcommand("list", "List the stacks the PAK may see");
  add_broker_flags(*list, args->flags);

  CLI::App* get = cmd->add_subcommand("get", "Show one stack");
  get->add_option("STACK", args->stack, "Id or name of the stack")->required();
  add_broker_flags(*get, args->flags);

  CLI::App* remove = cmd->add_subcommand("delete", "Delete a stack (agents then remove what they applied from it)");
  remove->add_option("STACK", args->stack, "Id or name of the stack")->required();
  add_broker_flags(*remove, args->flags, false);

  add_tag_verbs(*cmd, "stack", args->stack, args->tag_change, args->flags);

  return Verb{cmd, [args, create, list, get, remove] {
                if (create->parsed()) return run_create(*args);
                if (list->parsed()) return run_list(*args);
                if (get->parsed()) return run_get(*args);
                if (remove->parsed()) return run_delete(*args);
                return run_tagging(*args);
              }};
}

}  // namespace sindri::cli
