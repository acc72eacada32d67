// sindri generator create NAME [--description D]
// sindri generator list
// sindri generator get GENERATOR
// sindri generator delete GENERATOR
// sindri generator rotate-pak GENERATOR
//
// The generators of a broker (--broker, --pak: see broker_client.hpp): the
// identities that own stacks and templates and deploy through them, each
// with its PAK. An admin creates, lists and deletes them; a generator's PAK
// may get, rotate the PAK of, and delete only its own generator. GENERATOR
// is an id or a name. create and rotate-pak print the PAK, which the broker
// shows only then (with -o yaml|json, the API's answer holding it).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/broker_client.hpp"
#include "cli/errors.hpp"
#include "cli/io.hpp"
#include "cli/programs.hpp"
#include "cli/verbs.hpp"

namespace sindri::cli {

namespace {

struct GeneratorArgs {
  BrokerFlags flags;
  std::string generator;  // NAME for create, GENERATOR (id or name) otherwise
  std::optional<std::string> description;
};

const std::vector<Column>& generator_columns() {
  static const std::vector<Column> columns = {
      {"NAME", [](const Value& generator) { return cell(generator, "name"); }},
      {"ID", [](const Value& generator) { return cell(generator, "id"); }},
      {"CREATED", [](const Value& generator) { return cell(generator, "created_at"); }},
      {"DESCRIPTION", [](const Value& generator) { return cell(generator, "description"); }, true},
      {"ACTIVE", [](const Value& generator) { return cell(generator, "is_active"); }, true},
      {"SYSTEM", [](const Value& generator) { return cell(generator, "is_system"); }, true},
      {"LAST ACTIVE", [](const Value& generator) { return cell(generator, "last_active_at"); }, true},
  };
  return columns;
}

int run_create(const GeneratorArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  Value body{Object{}};
  body.set("name", args.generator);
  if (args.description) body.set("description", *args.description);
  auto created = client->post("/generators", body);
  if (!created) return fail(created.error().message);
  const Value* generator = created->find("generator");
  if (!generator || !generator->is_object()) {
    return fail("the broker's answer to POST /generators has no generator object");
  }
  return print_result(*created, args.flags.output, [generator](const Value& answer) {
    return with_pak("generator " + cell(*generator, "name") + " created (id " + cell(*generator, "id") + ")\n", answer,
                    "pak", "generator");
  });
}

int run_list(const GeneratorArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  auto generators = client->get("/generators");
  if (!generators) {
    if (!client->last_refused()) return fail(generators.error().message);
    return fail(generators.error().message + "; a generator's PAK shows its own generator: sindri generator get NAME");
  }
  return print_list(*generators, args.flags.output, generator_columns(), "generators");
}

int run_get(const GeneratorArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  auto generator = client->find_generator(args.generator);
  if (!generator) return fail(generator.error().message);
  return print_result(*generator, args.flags.output,
                      [&](const Value& found) { return format_table(generator_columns(), found, args.flags.output); });
}

int run_delete(const GeneratorArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  auto generator = client->find_generator(args.generator);
  if (!generator) return fail(generator.error().message);
  if (auto removed = client->remove("/generators/" + cell(*generator, "id")); !removed) {
    return fail(removed.error().message);
  }
  const std::string done = "generator " + cell(*generator, "name") + " deleted (id " + cell(*generator, "id") +
                           "), with its stacks and templates\n";
  return write_stdout(done) ? 0 : fail("cannot write the output");
}

int run_rotate_pak(const GeneratorArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  auto generator = client->find_generator(args.generator);
  if (!generator) return fail(generator.error().message);
  auto rotated = client->post("/generators/" + cell(*generator, "id") + "/rotate-pak", Value(Object{}));
  if (!rotated) return fail(rotated.error().message);
  return print_result(*rotated, args.flags.output, [&](const Value& answer) {
    return with_pak("generator " + cell(*generator, "name") + ": PAK rotated; the old one no longer works\n", answer,
                    "pak", "generator");
  });
}

void add_generator_option(CLI::App& command, GeneratorArgs& args) {
  command.add_option("GENERATOR", args.generator, "Id or name of the generator")->required();
}

}  // namespace

Verb add_generator(CLI::App& app) {
  auto args = std::make_shared<GeneratorArgs>();
  CLI::App* cmd = app.add_subcommand(std::string(kGeneratorVerb.name), std::string(kGeneratorVerb.description));
  cmd->require_subcommand(1);

  CLI::App* create = cmd->add_subcommand("create", "Create a generator (admin) and print its PAK");
  create->add_option("NAME", args->generator, "Name of the generator")->required();
  create->add_option_function<std::string>(
      "--description", [args](const std::string& text) { args->description = text; }, "Description of the generator");
  add_broker_flags(*create, args->flags);

  CLI::App* list = cmd->add_subcommand("list", "List the generators (admin)");
  add_broker_flags(*list, args->flags);

  CLI::App* get = cmd->add_subcommand("get", "Show a generator (an admin any, a generator's PAK its own)");
  add_generator_option(*get, *args);
  add_broker_flags(*get, args->flags);

  CLI::App* remove =
      cmd->add_subcommand("delete", "Delete a generator, its stacks and templates (agents remove what they applied)");
  add_generator_option(*remove, *args);
  add_broker_flags(*remove, args->flags, false);

  CLI::App* rotate =
      cmd->add_subcommand("rotate-pak", "Give a generator a new PAK and print it (the old one stops working)");
  add_generator_option(*rotate, *args);
  add_broker_flags(*rotate, args->flags);

  return Verb{cmd, [args, create, list, get, remove] {
                if (create->parsed()) return run_create(*args);
                if (list->parsed()) return run_list(*args);
                if (get->parsed()) return run_get(*args);
                if (remove->parsed()) return run_delete(*args);
                return run_rotate_pak(*args);
              }};
}

}  // namespace sindri::cli
