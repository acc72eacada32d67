#pragma once
// The stdlib: a directory owning the function input of every pipeline step.
// DIR/stdlib.yaml lists the steps it ships:
//
//   kind: Stdlib
//   steps:
//     - kind: provisioning
//       functionRef: {name: function-kcl}
//       inputTemplates:            # keyed by renderer type; provisioning only
//         helm: templates/provisioning-helm.yaml
//     - kind: auto-ready
//       functionRef: {name: function-auto-ready}
//       inputFile: inputs/auto-ready.yaml   # every other step
//
// Paths are relative to DIR; each names a YAML file holding one function
// input, in which placeholders are resolved at convert time.

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::bundle {

struct StepEntry {
  std::string kind;
  Value function_ref;  // an object with at least `name`
  std::string input_file;
  std::map<std::string, std::string, std::less<>> input_templates;
};

struct Stdlib {
  std::filesystem::path dir;
  std::vector<StepEntry> steps;

  const StepEntry* find(std::string_view kind) const;
};

// Reads and checks DIR/stdlib.yaml (referenced files are read at convert time).
Result<Stdlib> load_stdlib(const std::filesystem::path& dir);

}  // namespace sindri::bundle
