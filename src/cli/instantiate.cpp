// sindri instantiate STACK TEMPLATE [-f VALUES]... [--set P=V]... [--set-string P=V]... [-o table|yaml|json]
//
// Creates a deployment object in STACK (an id or a name) by rendering
// TEMPLATE (an id or the name of a live template) on the broker with the
// values, gathered as `sindri render` gathers them: each -f file
// deep-merged over the ones before, then every --set, then every
// --set-string. The broker applies the schema's defaults, validates, renders
// and records the provenance (see `sindri reconstruct`). Prints what was
// created, or with -o yaml|json the deployment object. A template whose
// labels or annotations the stack lacks is refused, naming both by name.

#include <memory>
#include <string>
#include <vector>

#include "cli/broker_client.hpp"
#include "cli/errors.hpp"
#include "cli/parameters.hpp"
#include "cli/programs.hpp"
#include "cli/template_mismatch.hpp"
#include "cli/verbs.hpp"

namespace sindri::cli {

namespace {

struct InstantiateArgs {
  BrokerFlags flags;
  std::string stack;
  std::string tpl;
  ValuesSources values;
};

int run_instantiate(const InstantiateArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  std::vector<ValuesFile> files;
  auto values = gather_values(args.values, files);
  if (!values) return fail(values.error().message);
  auto stack = client->find_stack(args.stack);
  if (!stack) return fail(stack.error().message);
  auto tpl = client->find_template(args.tpl);
  if (!tpl) return fail(tpl.error().message);
  Value body{Object{}};
  body.set("template_id", cell(*tpl, "id"));
  body.set("parameters", *values);
  auto object = client->post("/stacks/" + cell(*stack, "id") + "/deployment-objects/from-template", body);
  if (!object) {
    const std::string message = name_mismatch(object.error().message, client->last_error(), *tpl, *stack);
    return fail(locate_broker_violations(message, client->last_error(), *values, files));
  }
  return print_result(*object, args.flags.output, [&](const Value& created) {
    return "deployment object " + cell(created, "id") + " created in stack " + cell(*stack, "name") +
           " from template " + cell(*tpl, "name") + " v" + cell(*tpl, "version") + " (sequence " +
           cell(created, "sequence_id") + ")\n";
  });
}

}  // namespace

Verb add_instantiate(CLI::App& app) {
  auto args = std::make_shared<InstantiateArgs>();
  CLI::App* cmd = app.add_subcommand(std::string(kInstantiateVerb.name), std::string(kInstantiateVerb.description));
  cmd->add_option("STACK", args->stack, "Id or name of the stack")->required();
  cmd->add_option("TEMPLATE", args->tpl, "Id or name of the template")->required();
  add_values_options(*cmd, args->values);
  add_broker_flags(*cmd, args->flags);
  return Verb{cmd, [args] { return run_instantiate(*args); }};
}

}  // namespace sindri::cli
