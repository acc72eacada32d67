#include "bundle/convert.hpp"

#include <utility>

#include "bundle/helm.hpp"
#include "placeholder/resolver.hpp"
#include "value/file_text.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::bundle {

namespace fs = std::filesystem;

namespace {

Value make_step(std::string_view kind, Value function_ref, Value input) {
  Value step{Object{}};
  step.set("step", Value(kind));
  step.set("functionRef", std::move(function_ref));
  step.set("input", std::move(input));
  return step;
}

// The in-tree input of --no-stdlib: a KCL program that renders nothing.
Value dummy_step(std::string_view kind) {
  Value spec{Object{}};
  spec.set("source", Value("# " + std::string(kind) + ": dummy input (--no-stdlib), renders nothing\nitems = []\n"));
  Value input{Object{}};
  input.set("apiVersion", Value("krm.kcl.dev/v1alpha1"));
  input.set("kind", Value("KCLInput"));
  input.set("spec", std::move(spec));
  Value function_ref{Object{}};
  function_ref.set("name", Value("function-kcl"));
  return make_step(kind, std::move(function_ref), std::move(input));
}

// Reads one stdlib input file and resolves its placeholders.
Result<Value> resolve_input(const fs::path& path, const placeholder::Resolver& resolver) {
  SINDRI_TRY(text, read_file_text(path, "stdlib input"));
  YamlOptions options;
  options.record_positions = true;
  auto documents = parse_yaml_stream(text, path.string(), options);
  if (!documents) return make_error(documents.error().describe());
  if (documents->size() != 1 || documents->front().value.is_null()) {
    return make_error("stdlib input " + path.string() + " must hold exactly one YAML document");
  }
  return resolver.resolve(documents->front(), path.string());
}

Value composition(const ServiceBundle& bundle, Value pipeline) {
  Value metadata{Object{}};
  metadata.set("name", Value(bundle.name));
  Value spec{Object{}};
  if (!bundle.composite_type_ref.is_null()) spec.set("compositeTypeRef", bundle.composite_type_ref);
  spec.set("mode", Value("Pipeline"));
  spec.set("pipeline", std::move(pipeline));
  Value out{Object{}};
  out.set("apiVersion", Value("apiextensions.crossplane.io/v1"));
  out.set("kind", Value("Composition"));
  out.set("metadata", std::move(metadata));
  out.set("spec", std::move(spec));
  return out;
}

}  // namespace

Result<Conversion> convert(const ServiceBundle& bundle, const Stdlib* stdlib) {
  Conversion result;
  Value pipeline{Array{}};
  if (stdlib == nullptr) {
    if (bundle.renderer) {
      result.warnings.push_back("--no-stdlib: the bundle's renderer stanza (type " + bundle.renderer->type +
                                ") is skipped; the provisioning step gets the dummy input");
    }
    for (const PipelineStep& step : bundle.pipeline) pipeline.push_back(dummy_step(step.kind));
    result.composition = composition(bundle, std::move(pipeline));
    return result;
  }

  if (!bundle.renderer) return make_error("the bundle has no renderer stanza; it is mandatory (e.g. type: helm)");
  const Renderer& renderer = *bundle.renderer;
  // Every step's stdlib entry and template is checked before any input is read.
  std::vector<fs::path> inputs;
  for (const PipelineStep& step : bundle.pipeline) {
    const StepEntry* entry = stdlib->find(step.kind);
    if (entry == nullptr) {
      return make_error("the stdlib in " + stdlib->dir.string() + " has no step of kind \"" + step.kind + "\"");
    }
    if (step.kind != kProvisioning) {
      inputs.push_back(stdlib->dir / entry->input_file);
      continue;
    }
    const auto chosen = entry->input_templates.find(renderer.type);
    if (chosen == entry->input_templates.end()) {
      return make_error("the stdlib in " + stdlib->dir.string() + " has no provisioning template for renderer type \"" +
                        renderer.type + "\"");
    }
    inputs.push_back(stdlib->dir / chosen->second);
  }

  SINDRI_TRY(root, helm_root(renderer));
  placeholder::Resolver resolver;
  resolver.add_root("renderer", std::move(root));
  for (size_t i = 0; i < bundle.pipeline.size(); ++i) {
    SINDRI_TRY(input, resolve_input(inputs[i], resolver));
    pipeline.push_back(
        make_step(bundle.pipeline[i].kind, stdlib->find(bundle.pipeline[i].kind)->function_ref, std::move(input)));
  }
  result.composition = composition(bundle, std::move(pipeline));
  return result;
}

}  // namespace sindri::bundle
