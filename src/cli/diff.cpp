// sindri diff STACK -f PATH [-f PATH]... [-R] [--context N]
//
// Compares manifests, read exactly as `sindri apply` reads them, with STACK's
// newest deployment object, and prints a unified diff, as `kubectl diff`
// does. The comparison is per Kubernetes object (API group, kind, namespace,
// name), as newest_object.hpp says, the rule by which apply finds content
// unchanged: each object's YAML as apply would send it against the stored
// object's, both printed as kubectl prints YAML, under headers naming it:
//   --- web/apps/v1/Deployment/demo/hello (deployment object ID)
//   +++ web/apps/v1/Deployment/demo/hello (files)
// An object on one side only is all added or all removed; a stack without
// an object, or whose newest is a deletion marker, has everything added.
// The files' objects come first, in their order, then those only stored.
// Exit 0 when nothing differs, 1 when something does, 2 on any error, as
// kubectl diff's.

#include <memory>
#include <string>
#include <vector>

#include "cli/broker_client.hpp"
#include "cli/errors.hpp"
#include "cli/io.hpp"
#include "cli/manifest_files.hpp"
#include "cli/newest_object.hpp"
#include "cli/programs.hpp"
#include "cli/verbs.hpp"
#include "roles/unified_diff.hpp"

namespace sindri::cli {

namespace {

constexpr int kDifferent = 1;
constexpr int kError = 2;

struct DiffArgs {
  BrokerFlags flags;
  std::string stack;
  ManifestSources sources;
  int context = 3;
};

// What the stack holds now, and how the diff's headers name it.
struct Stored {
  std::vector<Manifest> manifests;
  std::string name;    // "deployment object ID"
  std::string absent;  // for an object it does not hold
};

Result<Stored> stored_manifests(BrokerClient& client, const Value& stack) {
  SINDRI_TRY(newest, newest_deployment_object(client, stack));
  if (newest.is_null()) return Stored{{}, "", "no deployment object yet"};
  const std::string name = "deployment object " + cell(newest, "id");
  if (is_deletion_marker(newest)) return Stored{{}, name, name + " is a deletion marker"};
  SINDRI_TRY(manifests, manifests_in(cell(newest, "yaml_content"), name));
  return Stored{std::move(manifests), name, "not in " + name};
}

std::string diff_of(const Stored& stored, const std::vector<Manifest>& files, const std::string& stack,
                    size_t context) {
  std::string out;
  for (const ObjectPair& pair : paired_objects(stored.manifests, files)) {
    const std::string old_label = stack + "/" + (pair.stored ? pair.stored->label : pair.file->label);
    const std::string new_label = stack + "/" + (pair.file ? pair.file->label : pair.stored->label);
    out += roles::unified_diff(compared_yaml(pair.stored), compared_yaml(pair.file),
                               old_label + " (" + (pair.stored ? stored.name : stored.absent) + ")",
                               new_label + (pair.file ? " (files)" : " (not in the files)"), context);
  }
  return out;
}

int run_diff(const DiffArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, kError);
  auto files = read_manifests(args.sources);
  if (!files) return fail(files.error().message, kError);
  auto stack = client->find_stack(args.stack);
  if (!stack) return fail(stack.error().message, kError);
  auto stored = stored_manifests(*client, *stack);
  if (!stored) return fail(stored.error().message, kError);
  const std::string diff = diff_of(*stored, *files, cell(*stack, "name"), static_cast<size_t>(args.context));
  if (!write_stdout(diff)) return fail("cannot write the output", kError);
  return diff.empty() ? 0 : kDifferent;
}

}  // namespace

Verb add_diff(CLI::App& app) {
  auto args = std::make_shared<DiffArgs>();
  CLI::App* cmd = app.add_subcommand(std::string(kDiffVerb.name), std::string(kDiffVerb.description));
  cmd->add_option("STACK", args->stack, "Id or name of the stack")->required();
  add_manifest_options(*cmd, args->sources);
  cmd->add_option("--context", args->context, "Lines of context around each change")
      ->check([](const std::string& lines) { return lines.starts_with('-') ? "must be 0 or more" : ""; })
      ->capture_default_str();
  add_broker_flags(*cmd, args->flags, false);
  return Verb{cmd, [args] { return run_diff(*args); }};
}

}  // namespace sindri::cli
