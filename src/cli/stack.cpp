// sindri stack create NAME [--description D] [--generator-id ID] [--label L]... [--annotation K=V]...
// sindri stack list
// sindri stack get STACK
// sindri stack delete STACK
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
#include "cli/io.hpp"
#include "cli/verbs.hpp"

namespace sindri::cli {

namespace {

struct StackArgs {
  BrokerFlags flags;
  std::string stack;  // NAME for create, STACK (id or name) otherwise
  std::optional<std::string> description;
  std::optional<std::string> generator_id;
  std::vector<std::string> labels;
  std::vector<std::string> annotations;  // KEY=VALUE
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

// Labels and annotations are calls of their own once the stack exists.
// Should one fail, the stack is deleted again, so that running the command
// once more does not leave two stacks of the same name.
Status add_tags(BrokerClient& client, const Value& stack, const StackArgs& args) {
  const std::string path = "/stacks/" + cell(stack, "id");
  auto undo = [&](const std::string& what, const Error& error) -> Status {
    std::string message = what + ": " + error.message;
    if (auto removed = client.remove(path); removed) {
      message += "; stack " + cell(stack, "name") + " was not kept";
    } else {
      message += "; stack " + cell(stack, "id") + " was created and could not be deleted again: " +
                 removed.error().message;
    }
    return make_error(message);
  };
  for (const std::string& label : args.labels) {
    if (auto added = client.post(path + "/labels", Value(label)); !added) {
      return undo("cannot add label \"" + label + "\"", added.error());
    }
  }
  for (const std::string& annotation : args.annotations) {
    const size_t equals = annotation.find('=');
    Value body{Object{}};
    body.set("key", annotation.substr(0, equals));
    body.set("value", annotation.substr(equals + 1));
    if (auto added = client.post(path + "/annotations", body); !added) {
      return undo("cannot add annotation \"" + annotation + "\"", added.error());
    }
  }
  return Ok{};
}

int run_create(const StackArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  Value body{Object{}};
  body.set("name", args.stack);
  if (args.description) body.set("description", *args.description);
  if (args.generator_id) body.set("generator_id", *args.generator_id);
  auto stack = client->post("/stacks", body);
  if (!stack) return fail(stack.error().message);
  if (auto tagged = add_tags(*client, *stack, args); !tagged) return fail(tagged.error().message);
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
  return print_result(*stack, args.flags.output, [](const Value& found) { return format_table(stack_columns(), found); });
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

// KEY=VALUE with a non-empty key; the broker checks the rest.
std::string check_annotation(std::string& text) {
  const size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0) return "expected KEY=VALUE, got \"" + text + "\"";
  return {};
}

}  // namespace

Verb add_stack(CLI::App& app) {
  auto args = std::make_shared<StackArgs>();
  CLI::App* cmd = app.add_subcommand("stack", "Create, list, show and delete stacks on a broker");
  cmd->require_subcommand(1);

  CLI::App* create = cmd->add_subcommand("create", "Create a stack");
  create->add_option("NAME", args->stack, "Name of the stack")->required();
  create->add_option_function<std::string>(
      "--description", [args](const std::string& text) { args->description = text; }, "Description of the stack");
  create->add_option_function<std::string>(
      "--generator-id", [args](const std::string& id) { args->generator_id = id; },
      "Generator that owns the stack (an admin must give it; a generator's PAK implies itself)");
  create->add_option("--label", args->labels, "Label of the stack (repeatable)")->allow_extra_args(false);
  create->add_option("--annotation", args->annotations, "Annotation KEY=VALUE of the stack (repeatable)")
      ->allow_extra_args(false)
      ->check(CLI::Validator(check_annotation, "KEY=VALUE"));
  add_broker_flags(*create, args->flags);

  CLI::App* list = cmd->add_subcommand("list", "List the stacks the PAK may see");
  add_broker_flags(*list, args->flags);

  CLI::App* get = cmd->add_subcommand("get", "Show one stack");
  get->add_option("STACK", args->stack, "Id or name of the stack")->required();
  add_broker_flags(*get, args->flags);

  CLI::App* remove = cmd->add_subcommand("delete", "Delete a stack (agents then remove what they applied from it)");
  remove->add_option("STACK", args->stack, "Id or name of the stack")->required();
  add_broker_flags(*remove, args->flags, false);

  return Verb{cmd, [args, create, list, get] {
                if (create->parsed()) return run_create(*args);
                if (list->parsed()) return run_list(*args);
                if (get->parsed()) return run_get(*args);
                return run_delete(*args);
              }};
}

}  // namespace sindri::cli
