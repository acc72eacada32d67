#pragma once
// Converts a ServiceBundle into a Crossplane Composition in pipeline mode:
//
//   apiVersion: apiextensions.crossplane.io/v1
//   kind: Composition
//   metadata: {name: META.NAME}
//   spec:
//     compositeTypeRef: ...        # when the bundle's meta has one
//     mode: Pipeline
//     pipeline:
//       - step: KIND
//         functionRef: ...         # from the stdlib entry
//         input: ...               # the stdlib file, placeholders resolved
//
// Everything is checked and built in memory before the caller writes
// anything: the renderer stanza is mandatory, the stdlib must ship every
// step kind and a provisioning template for the renderer's type, and every
// placeholder must resolve.
//
// Without a stdlib (--no-stdlib, a debug escape hatch) every step gets an
// in-tree dummy KCL input that ignores the renderer stanza; a bundle that has
// one gets a warning saying it is skipped.

#include <string>
#include <vector>

#include "bundle/bundle.hpp"
#include "bundle/stdlib.hpp"
#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::bundle {

struct Conversion {
  Value composition;
  std::vector<std::string> warnings;
};

// `stdlib` is null for --no-stdlib.
Result<Conversion> convert(const ServiceBundle& bundle, const Stdlib* stdlib);

}  // namespace sindri::bundle
