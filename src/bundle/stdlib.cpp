#include "bundle/stdlib.hpp"

#include <set>

#include "bundle/bundle.hpp"
#include "value/file_text.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::bundle {

namespace fs = std::filesystem;

const StepEntry* Stdlib::find(std::string_view kind) const {
  for (const StepEntry& entry : steps) {
    if (entry.kind == kind) return &entry;
  }
  return nullptr;
}

namespace {

Result<StepEntry> parse_entry(const Value& v, const std::string& label) {
  if (!v.is_object()) return make_error(label + " must be a map");
  StepEntry entry;
  const Value* kind = v.find("kind");
  if (kind == nullptr || !kind->is_string() || kind->get_string().empty()) {
    return make_error(label + ".kind is required (a string)");
  }
  entry.kind = kind->get_string();
  const std::string named = label + " (kind " + entry.kind + ")";
  const Value* function_ref = v.find("functionRef");
  if (function_ref == nullptr || !function_ref->is_object() || function_ref->find("name") == nullptr ||
      !function_ref->find("name")->is_string()) {
    return make_error(named + ": functionRef.name is required");
  }
  entry.function_ref = *function_ref;
  const Value* file = v.find("inputFile");
  const Value* templates = v.find("inputTemplates");
  if (entry.kind == kProvisioning) {
    if (file != nullptr) return make_error(named + ": the provisioning step uses inputTemplates, not inputFile");
    if (templates == nullptr || !templates->is_object()) {
      return make_error(named + ": inputTemplates (a map from renderer type to file) is required");
    }
    for (const Member& m : templates->get_object()) {
      if (!m.value.is_string()) return make_error(named + ": inputTemplates." + std::string(m.key.get_string()) + " must be a file path");
      entry.input_templates.emplace(std::string(m.key.get_string()), std::string(m.value.get_string()));
    }
  } else {
    if (templates != nullptr) return make_error(named + ": only the provisioning step uses inputTemplates");
    if (file == nullptr || !file->is_string()) return make_error(named + ": inputFile (a file path) is required");
    entry.input_file = file->get_string();
  }
  return entry;
}

}  // namespace

Result<Stdlib> load_stdlib(const fs::path& dir) {
  const fs::path index = dir / "stdlib.yaml";
  SINDRI_TRY(text, read_file_text(index, "stdlib index"));
  auto parsed = parse_yaml(text, index.string());
  if (!parsed) return make_error(parsed.error().describe());
  const std::string label = "stdlib " + index.string();
  if (!parsed->is_object()) return make_error(label + " must be a map");
  const Value* kind = parsed->find("kind");
  if (kind == nullptr || !kind->is_string() || kind->get_string() != "Stdlib") {
    return make_error(label + ": kind must be Stdlib");
  }
  const Value* steps = parsed->find("steps");
  if (steps == nullptr || !steps->is_array()) return make_error(label + ": steps must be a list");
  Stdlib stdlib;
  stdlib.dir = dir;
  std::set<std::string, std::less<>> seen;
  for (size_t i = 0; i < steps->size(); ++i) {
    SINDRI_TRY(entry, parse_entry(*steps->at(i), label + ": steps[" + std::to_string(i) + "]"));
    if (!seen.insert(entry.kind).second) return make_error(label + ": step kind " + entry.kind + " is listed twice");
    stdlib.steps.push_back(std::move(entry));
  }
  return stdlib;
}

}  // namespace sindri::bundle
