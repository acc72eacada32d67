#pragma once
// ServiceBundles (Slapper ADR 0004): a service described once — a renderer
// stanza saying what the provisioning step deploys, and a pipeline of steps
// whose function inputs come from a stdlib — converted into a Crossplane
// composition pipeline.
//
//   meta:
//     name: postgresql                 # required; the Composition's name
//     compositeTypeRef: {apiVersion: ..., kind: ...}   # optional, copied
//   renderer:                          # mandatory when converting with a stdlib
//     type: helm                       # helm; plain_manifests is reserved
//     repository: https://charts.cnpg.io/
//     chart: cluster
//     version: 0.4.0                   # strings, all three required
//     values: {...}                    # optional map: the chart's defaults
//     valueMapping:                    # optional
//       - claimPath: .spec.parameters.size.replicas   # must start with "."
//         target: cluster.instances                   # leading "." optional
//   pipeline:                          # exactly one `kind: provisioning`
//     - kind: provisioning
//     - kind: ...                      # other fields are the step's own
//
// parse_bundle checks everything that can be checked without a stdlib, so
// that a misconfigured bundle fails before anything is built.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "value/result.hpp"
#include "value/value.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::bundle {

inline constexpr std::string_view kProvisioning = "provisioning";
inline constexpr std::string_view kHelm = "helm";
inline constexpr std::string_view kPlainManifests = "plain_manifests";

struct ValueMapping {
  std::vector<std::string> claim_path;  // segments of claimPath, without the leading dot
  std::vector<std::string> target;      // segments of target
  std::string claim_path_text;          // as written, for messages
  std::string target_text;
};

struct HelmRenderer {
  std::string repository;
  std::string chart;
  std::string version;
  Value values;  // an object; {} when absent
  std::vector<ValueMapping> value_mapping;
};

struct Renderer {
  std::string type;  // always kHelm in v1
  HelmRenderer helm;
};

struct PipelineStep {
  std::string kind;
  Value entry;  // the step as written
};

struct ServiceBundle {
  std::string name;
  Value composite_type_ref;  // null when absent
  std::optional<Renderer> renderer;
  std::vector<PipelineStep> pipeline;
};

// Errors read "FILE:LINE:COLUMN: MESSAGE" with the position of the offending
// node when it is known.
Result<ServiceBundle> parse_bundle(const YamlDocument& document, std::string_view file);

}  // namespace sindri::bundle
