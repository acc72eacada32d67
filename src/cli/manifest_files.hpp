#pragma once
// The manifests `apply` and `diff` read: from -f files, directories (their
// *.yaml, *.yml and *.json files in name order; with -R their
// subdirectories' too, as kubectl walks them) and `-` for stdin. Every
// document is checked here, so that a mistake names its file, document and
// line before anything is sent; a List's items stand in its place.

#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::cli {

struct ManifestSources {
  std::vector<std::string> paths;
  bool recursive = false;
};

// -f,--filename (required, repeatable) and -R,--recursive.
void add_manifest_options(CLI::App& command, ManifestSources& sources);

struct Manifest {
  Value value;
  // The object as the cluster knows it: API group, kind, namespace (none for
  // a cluster-scoped kind, `default` when a namespaced one names none) and
  // name. Two API versions of a group name the same object.
  std::string identity;
  // "apps/v1/Deployment/demo/web" (the namespace left out when there is none).
  std::string label;
};

// The manifests of every source, in order. An object given twice (a file
// named twice, a symlink beside its target) is an error naming both places:
// an agent would apply it twice, the second silently winning. No manifest at
// all is an error too.
Result<std::vector<Manifest>> read_manifests(const ManifestSources& sources);

// The manifests of a stored deployment object's YAML, `source` naming it in
// errors; an object given twice is kept twice.
Result<std::vector<Manifest>> manifests_in(std::string_view yaml, const std::string& source);

// The YAML stream apply sends: each manifest as kubectl prints YAML, joined
// by "---". The broker stores it as given (its checksum is of these bytes).
std::string joined_yaml(const std::vector<Manifest>& manifests);

}  // namespace sindri::cli
