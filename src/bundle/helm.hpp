#pragma once
// The helm renderer: its values merger and its placeholder root. The only
// part of Sindri that knows the bundle's helm shape.

#include "bundle/bundle.hpp"
#include "placeholder/resolver.hpp"
#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::bundle {

// The chart's values deep-cloned, then for each valueMapping a KCL reference
// (`oxr` followed by the claimPath) written at its target; intermediate maps
// are created. A target passing through a value that is not a map is an
// error, and so is a target mapped twice.
Result<Value> merge_helm_values(const HelmRenderer& helm);

// The KCL reference to a claim field: `oxr.spec.parameters.size.replicas`;
// segments that are not plain identifiers become subscripts (`oxr.metadata.labels["app.kubernetes.io/name"]`).
std::string claim_reference(const std::vector<std::string>& claim_path);

// The root "renderer": renderer.type, renderer.spec.repository, .chart,
// .version, .values, each with a `.kcl` view, and renderer.values.kcl (the
// merged values as a KCL expression).
Result<placeholder::RootLookup> helm_root(const Renderer& renderer);

}  // namespace sindri::bundle
