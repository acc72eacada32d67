// sindri bundle convert BUNDLE.yaml (--stdlib DIR | --no-stdlib) [-o DIR]
//
// Converts a ServiceBundle into a Crossplane Composition (pipeline mode) whose
// steps carry the stdlib's function inputs with every placeholder resolved,
// and prints it as YAML; with -o it writes DIR/composition.yaml instead and
// prints that path. Every check runs before anything is written. With
// --no-stdlib every step gets a dummy input, and a renderer stanza is
// skipped with a warning on stderr. Errors exit 1.

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "bundle/bundle.hpp"
#include "bundle/convert.hpp"
#include "bundle/stdlib.hpp"
#include "cli/errors.hpp"
#include "cli/io.hpp"
#include "cli/verbs.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::cli {

namespace {

namespace fs = std::filesystem;

struct ConvertArgs {
  std::string bundle;
  std::string stdlib;
  bool no_stdlib = false;
  std::string output_dir;
};

Result<std::string> convert_bundle(const ConvertArgs& args, std::vector<std::string>& warnings) {
  SINDRI_TRY(text, read_file(args.bundle, "bundle file"));
  YamlOptions options;
  options.record_positions = true;
  auto documents = parse_yaml_stream(text, args.bundle, options);
  if (!documents) return make_error(documents.error().describe());
  if (documents->size() != 1) return make_error("bundle file " + args.bundle + " must hold exactly one YAML document");
  SINDRI_TRY(parsed, bundle::parse_bundle(documents->front(), args.bundle));

  std::optional<bundle::Stdlib> stdlib;
  if (!args.no_stdlib) {
    SINDRI_TRY(loaded, bundle::load_stdlib(args.stdlib));
    stdlib = std::move(loaded);
  }
  SINDRI_TRY(converted, bundle::convert(parsed, stdlib ? &*stdlib : nullptr));
  warnings = converted.warnings;
  return to_yaml(converted.composition);
}

int run_convert(const ConvertArgs& args) {
  std::vector<std::string> warnings;
  auto yaml = convert_bundle(args, warnings);
  for (const std::string& warning : warnings) print_warning(warning);
  if (!yaml) {
    print_error(yaml.error().message);
    return 1;
  }
  if (args.output_dir.empty()) return write_stdout(*yaml) ? 0 : 1;

  std::error_code ec;
  fs::create_directories(args.output_dir, ec);
  const fs::path path = fs::path(args.output_dir) / "composition.yaml";
  std::ofstream out(path, std::ios::binary);
  if (ec || !(out << *yaml) || !out.flush()) {
    print_error("cannot write " + path.string());
    return 1;
  }
  return write_stdout(path.string() + "\n") ? 0 : 1;
}

}  // namespace

Verb add_bundle(CLI::App& app) {
  auto args = std::make_shared<ConvertArgs>();
  CLI::App* cmd = app.add_subcommand("bundle", "Work with ServiceBundles");
  cmd->require_subcommand(1);
  CLI::App* convert = cmd->add_subcommand("convert", "Convert a ServiceBundle into a Crossplane composition pipeline");
  convert->add_option("BUNDLE", args->bundle, "ServiceBundle YAML file")->required();
  auto* stdlib = convert->add_option("--stdlib", args->stdlib, "Stdlib directory (holding stdlib.yaml)");
  auto* no_stdlib =
      convert->add_flag("--no-stdlib", args->no_stdlib, "Debug only: dummy step inputs, renderer stanza skipped");
  stdlib->excludes(no_stdlib);
  convert->add_option("-o,--output-dir", args->output_dir, "Write DIR/composition.yaml instead of printing");
  convert->callback([stdlib, no_stdlib] {
    if (stdlib->count() == 0 && no_stdlib->count() == 0) {
      throw CLI::RequiredError("--stdlib DIR or --no-stdlib");
    }
  });
  return Verb{cmd, [args] { return run_convert(*args); }};
}

}  // namespace sindri::cli
