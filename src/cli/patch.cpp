// sindri patch -f ORIGINAL.yaml -p PATCH.yaml [--type strategic|merge|json]
//              [-o yaml|json] [--target KIND/NAME]
//
// `kubectl patch --local` for files: every original document a patch
// document names (or --target names) is patched; all documents are printed,
// in kubectl's YAML, or as JSON (a v1 List when there are several). Notices
// (such as a kind merged without SMP metadata) go to stderr.

#include <memory>
#include <string>
#include <vector>

#include "cli/errors.hpp"
#include "cli/io.hpp"
#include "cli/verbs.hpp"
#include "patch/patch.hpp"
#include "value/json.hpp"
#include "value/object_literal.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::cli {

namespace {

struct PatchArgs {
  std::string original;
  std::string patch;
  std::string type = "strategic";
  std::string output = "yaml";
  std::string target;
};

Result<std::vector<Value>> read_documents(const std::string& path, std::string_view what) {
  SINDRI_TRY(text, read_file(path, what));
  auto stream = parse_yaml_stream(text, path);
  if (!stream) return make_error(stream.error().describe());
  std::vector<Value> documents;
  documents.reserve(stream->size());
  for (YamlDocument& document : *stream) documents.push_back(std::move(document.value));
  return documents;
}

std::string render(const std::vector<Value>& documents, const std::string& format) {
  if (format == "yaml") return to_yaml_stream(documents);
  if (documents.size() == 1) return to_json_pretty(documents.front()) + "\n";
  return to_json_pretty(make_object({{"apiVersion", Value("v1")},
                                     {"items", Value(Array(documents.begin(), documents.end()))},
                                     {"kind", Value("List")},
                                     {"metadata", make_object({{"resourceVersion", Value("")}})}})) +
         "\n";
}

int run_patch(const PatchArgs& args) {
  const auto type = patch::parse_patch_type(args.type);
  auto originals = read_documents(args.original, "original file");
  if (!originals) {
    print_error(originals.error().message);
    return 1;
  }
  auto patches = read_documents(args.patch, "patch file");
  if (!patches) {
    print_error(patches.error().message);
    return 1;
  }
  auto patched = patch::patch_documents(*originals, *patches, *type, args.target);
  if (!patched) {
    print_error(args.original + ": " + patched.error().describe());
    return 1;
  }
  for (const std::string& notice : patched->notices) print_note(notice);
  return write_stdout(render(patched->documents, args.output)) ? 0 : 1;
}

}  // namespace

Verb add_patch(CLI::App& app) {
  auto args = std::make_shared<PatchArgs>();
  CLI::App* cmd = app.add_subcommand("patch", "Patch Kubernetes documents locally, as `kubectl patch --local`");
  cmd->add_option("-f,--filename", args->original, "The documents to patch (YAML or JSON, several allowed)")
      ->required();
  cmd->add_option("-p,--patch", args->patch, "The patch file (YAML or JSON, one patch per document)")
      ->required();
  cmd->add_option("--type", args->type, "strategic (default), merge (RFC 7386) or json (RFC 6902)")
      ->check(CLI::IsMember({"strategic", "merge", "json"}));
  cmd->add_option("-o,--output", args->output, "yaml (default) or json")->check(CLI::IsMember({"yaml", "json"}));
  cmd->add_option("--target", args->target, "KIND/NAME of the document every patch applies to");
  return Verb{cmd, [args] { return run_patch(*args); }};
}

}  // namespace sindri::cli
