// sindri stack create NAME [--description D] [--generator GENERATOR] [--label L]... [--annotation K=V]...
// sindri stack list
// sindri stack get STACK
// sindri stack delete STACK
// sindri stack label STACK LABEL... [--remove]
// sindri stack annotate STACK KEY=VALUE... | --remove KEY...
// sindri stack objects STACK
// sindri stack object OBJECT_ID
//
// Stacks on a broker (--broker, --pak: see broker_client.hpp). STACK is an
// id or a name. A generator's PAK creates stacks for that generator; an
// admin names the generator with --generator (an id or a name; --generator-id
// is the same). create, list and get print a table, or with -o yaml|json the
// API's objects. objects lists a stack's deployment objects, object prints
// one's YAML as stored.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/broker_client.hpp"
#include "cli/errors.hpp"
#include "cli/io.hpp"
#include "cli/names.hpp"
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
  std::optional<std::string> generator;  // create's --generator: an id or a name
  std::string object_id;                 // object's OBJECT_ID
  Tags tags;  // create's --label and --annotation
  TagChange tag_change;
};

// The generator by name, as names.hpp reads it (an admin reads every
// generator's, a generator its own).
std::vector<Column> stack_columns(Names& names) {
  return {
      {"NAME", [](const Value& stack) { return cell(stack, "name"); }},
      {"ID", [](const Value& stack) { return cell(stack, "id"); }},
      {"GENERATOR", [&names](const Value& stack) { return names.generator(cell(stack, "generator_id")); }},
      {"CREATED", [](const Value& stack) { return cell(stack, "created_at"); }},
      {"DESCRIPTION", [](const Value& stack) { return cell(stack, "description"); }, true},
      {"GENERATOR ID", [](const Value& stack) { return cell(stack, "generator_id"); }, true},
  };
}

// The API lets one owner have two stacks of a name, but every verb here
// finds stacks by name, and the second would make it ambiguous to the
// owner. Other owners may use the name (an admin then tells them apart by
// id). A PAK sees its generator's stacks, an admin all of them.
Status check_name_unused(BrokerClient& client, const std::string& name,
                         const std::optional<std::string>& generator_id) {
  SINDRI_TRY(stacks, client.get("/stacks"));
  for (const Value& stack : stacks.get_array()) {
    if (cell(stack, "name") != name) continue;
    if (generator_id && cell(stack, "generator_id") != *generator_id) continue;
    return make_error("stack \"" + name + "\" already exists (id " + cell(stack, "id") + ")");
  }
  return Ok{};
}

// --generator as the id the API takes: an id as it is, a name looked up.
Result<std::optional<std::string>> generator_id_of(BrokerClient& client, const std::optional<std::string>& generator) {
  if (!generator) return std::optional<std::string>();
  if (is_uuid(*generator)) return std::optional<std::string>(stored_uuid(*generator));
  SINDRI_TRY(found, client.find_generator(*generator));
  return std::optional<std::string>(cell(found, "id"));
}

int run_create(const StackArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  auto generator_id = generator_id_of(*client, args.generator);
  if (!generator_id) return fail(generator_id.error().message);
  if (auto unused = check_name_unused(*client, args.stack, *generator_id); !unused) {
    return fail(unused.error().message);
  }
  Value body{Object{}};
  body.set("name", args.stack);
  if (args.description) body.set("description", *args.description);
  if (*generator_id) body.set("generator_id", **generator_id);
  auto stack = client->post("/stacks", body);
  if (!stack && !*generator_id && has_error_code(client->last_error(), "missing_field")) {
    return fail(stack.error().message +
                "; an admin names the generator that owns the stack: --generator NAME or --generator-id ID "
                "(sindri generator list shows them)");
  }
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
  Names names(*client);
  if (is_table_output(args.flags.output)) {
    if (auto named = names.read_generators_of(*stacks); !named) return fail(named.error().message);
  }
  return print_list(*stacks, args.flags.output, stack_columns(names), "stacks");
}

int run_get(const StackArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  auto stack = client->find_stack(args.stack);
  if (!stack) return fail(stack.error().message);
  Names names(*client);
  if (is_table_output(args.flags.output)) {
    if (auto named = names.read_generators_of(*stack); !named) return fail(named.error().message);
  }
  return print_with_tags(*client, *stack, "/stacks/" + cell(*stack, "id"), stack_columns(names), args.flags.output);
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

std::string short_checksum(const Value& object) {
  constexpr size_t kShown = 12;  // as git's short hashes: enough to tell objects apart
  return cell(object, "yaml_checksum").substr(0, kShown);
}

// What the stack's objects were rendered from, by object id, in one request
// whatever the stack's size (GET /stacks/{id}/provenance); an object made
// from manifests, or a deletion marker, has none.
Result<std::map<std::string, Value>> provenances(BrokerClient& client, const std::string& stack_id) {
  const std::string path = "/stacks/" + stack_id + "/provenance";
  auto records = client.get(path);
  if (!records) return make_error("cannot read the stack's provenance (GET " + path + "): " + records.error().message);
  std::map<std::string, Value> by_id;
  if (records->is_array()) {
    for (const Value& record : records->get_array()) by_id.emplace(cell(record, "deployment_object_id"), record);
  }
  return by_id;
}

int run_objects(const StackArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  auto stack = client->find_stack(args.stack);
  if (!stack) return fail(stack.error().message);
  auto objects = client->get("/stacks/" + cell(*stack, "id") + "/deployment-objects");
  if (!objects) return fail(objects.error().message);
  const std::string what = "deployment objects in stack " + cell(*stack, "name");
  if (!is_table_output(args.flags.output)) return print_list(*objects, args.flags.output, {}, what);
  auto made_from = provenances(*client, cell(*stack, "id"));
  if (!made_from) return fail(made_from.error().message);
  auto provenance_field = [&made_from](const std::string& key, const std::string& otherwise) {
    return [&made_from, key, otherwise](const Value& object) {
      if (is_deletion_marker(object)) return otherwise;
      auto found = made_from->find(cell(object, "id"));
      return found == made_from->end() ? std::string("<none>") : cell(found->second, key);
    };
  };
  const std::vector<Column> columns = {
      {"SEQUENCE", [](const Value& object) { return cell(object, "sequence_id"); }},
      {"ID", [](const Value& object) { return cell(object, "id"); }},
      {"CHECKSUM", short_checksum},
      {"TEMPLATE", provenance_field("template_name", "<deletion marker>")},
      {"VERSION", provenance_field("template_version", "<none>")},
      {"CREATED", [](const Value& object) { return cell(object, "created_at"); }},
      {"SIZE", [](const Value& object) { return std::to_string(cell(object, "yaml_content").size()); }, true},
      {"SUBMITTED", [](const Value& object) { return cell(object, "submitted_at"); }, true},
      {"PARAMETERS", provenance_field("parameters", "<none>"), true},
  };
  return print_list(*objects, args.flags.output, columns, what);
}

int run_object(const StackArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  if (!is_uuid(args.object_id)) {
    return fail("\"" + args.object_id + "\" is not a deployment object's id (sindri stack objects STACK lists them)",
                2);
  }
  auto object = client->get("/deployment-objects/" + args.object_id);
  if (!object) return fail(object.error().message);
  return print_result(*object, args.flags.output, [](const Value& found) { return cell(found, "yaml_content"); });
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
  create
      ->add_option_function<std::string>(
          "--generator,--generator-id", [args](const std::string& generator) { args->generator = generator; },
          "Id or name of the generator that owns the stack (an admin must give it; a generator's PAK implies itself)")
      ->type_name("GENERATOR");
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

  CLI::App* objects = cmd->add_subcommand(
      "objects", "List a stack's deployment objects, oldest first, with the template each was made from");
  objects->add_option("STACK", args->stack, "Id or name of the stack")->required();
  add_broker_flags(*objects, args->flags);

  CLI::App* object = cmd->add_subcommand(
      "object", "Print a deployment object's YAML as stored (-o yaml|json: the whole object)");
  object->add_option("OBJECT_ID", args->object_id, "Id of the deployment object")->required();
  add_broker_flags(*object, args->flags);

  return Verb{cmd, [args, create, list, get, remove, objects, object] {
                if (create->parsed()) return run_create(*args);
                if (objects->parsed()) return run_objects(*args);
                if (object->parsed()) return run_object(*args);
                if (list->parsed()) return run_list(*args);
                if (get->parsed()) return run_get(*args);
                if (remove->parsed()) return run_delete(*args);
                return run_tagging(*args);
              }};
}

}  // namespace sindri::cli
