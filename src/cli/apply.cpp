// sindri apply STACK -f PATH [-f PATH]... [-R] [--dry-run] [--force] [-o table|yaml|json]
//
// Creates one deployment object in STACK (an id or a name) from manifests,
// read and checked as manifest_files.hpp says. The manifests are re-emitted
// as kubectl prints YAML and joined into one stream, the object's
// yaml_content.
//
// Content the same as the stack's newest deployment object creates nothing
// (its agents would apply the same again): "stack web: unchanged
// (deployment object ID)", as kubectl apply says "unchanged"; --force
// creates it anyway. The same means what `sindri diff` finds no difference
// in (newest_object.hpp's one rule): the same objects, each equal as data,
// whatever the comments, layout or order of the stored text, which may be
// the broker's rendering (`sindri instantiate`) rather than apply's own. A
// deletion marker as the newest object is never unchanged: the stack is to
// be emptied. With -o json|yaml an unchanged apply prints the existing
// object, as kubectl does, and the "unchanged" line as a note on stderr.
//
// --dry-run makes every check and request but the creation, prints the YAML
// that would be sent (-o json|yaml: the request's body) on stdout and what
// would happen on stderr.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cli/broker_client.hpp"
#include "cli/errors.hpp"
#include "cli/manifest_files.hpp"
#include "cli/newest_object.hpp"
#include "cli/programs.hpp"
#include "cli/verbs.hpp"

namespace sindri::cli {

namespace {

struct ApplyArgs {
  BrokerFlags flags;
  std::string stack;
  ManifestSources sources;
  bool dry_run = false;
  bool force = false;
};

std::string resources(size_t count) { return std::to_string(count) + (count == 1 ? " resource" : " resources"); }

std::string unchanged_line(const Value& stack, const Value& newest) {
  return "stack " + cell(stack, "name") + ": unchanged (deployment object " + cell(newest, "id") + ")";
}

// What would be sent, and on stderr what would become of it.
int print_dry_run(const ApplyArgs& args, const Value& stack, const Value& body, size_t count, const Value* unchanged) {
  const int printed =
      print_result(body, args.flags.output, [](const Value& sent) { return cell(sent, "yaml_content"); });
  if (printed != 0) return printed;
  print_note(unchanged != nullptr ? unchanged_line(stack, *unchanged) + ": nothing would be created"
                                  : "would create a deployment object in stack " + cell(stack, "name") + " (" +
                                        resources(count) + "); --dry-run sent nothing");
  return 0;
}

int run_apply(const ApplyArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  auto manifests = read_manifests(args.sources);
  if (!manifests) return fail(manifests.error().message);
  auto stack = client->find_stack(args.stack);
  if (!stack) return fail(stack.error().message);
  const std::string yaml = joined_yaml(*manifests);
  Value newest;  // null: nothing to compare with
  if (!args.force) {
    auto found = newest_deployment_object(*client, *stack);
    if (!found) return fail(found.error().message);
    newest = std::move(found).value();
  }
  const bool unchanged = holds_same_content(newest, *manifests);
  Value body{Object{}};
  body.set("yaml_content", yaml);
  const size_t count = manifests->size();
  if (args.dry_run) return print_dry_run(args, *stack, body, count, unchanged ? &newest : nullptr);
  if (unchanged) {
    const std::string said = unchanged_line(*stack, newest);
    if (!is_table_output(args.flags.output)) print_note(said);
    return print_result(newest, args.flags.output, [&](const Value&) { return said + "\n"; });
  }
  auto object = client->post("/stacks/" + cell(*stack, "id") + "/deployment-objects", body);
  if (!object) return fail(object.error().message);
  return print_result(*object, args.flags.output, [&](const Value& created) {
    return "deployment object " + cell(created, "id") + " created in stack " + cell(*stack, "name") + " (sequence " +
           cell(created, "sequence_id") + ", " + resources(count) + ")\n";
  });
}

}  // namespace

Verb add_apply(CLI::App& app) {
  auto args = std::make_shared<ApplyArgs>();
  CLI::App* cmd = app.add_subcommand(std::string(kApplyVerb.name), std::string(kApplyVerb.description));
  cmd->add_option("STACK", args->stack, "Id or name of the stack")->required();
  add_manifest_options(*cmd, args->sources);
  cmd->add_flag("--dry-run", args->dry_run, "Check everything and print what would be sent; create nothing");
  cmd->add_flag("--force", args->force,
                "Create a deployment object even when the stack's newest one holds the same content");
  add_broker_flags(*cmd, args->flags);
  return Verb{cmd, [args] { return run_apply(*args); }};
}

}  // namespace sindri::cli
