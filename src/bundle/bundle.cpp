#include "bundle/bundle.hpp"

#include <algorithm>
#include <initializer_list>
#include <set>
#include <utility>

#include "value/pointer.hpp"

namespace sindri::bundle {

namespace {

// Builds "FILE:LINE:COLUMN: MESSAGE" errors for one document.
struct Locator {
  const YamlDocument& document;
  std::string_view file;

  Error at(const std::string& pointer, const std::string& message) const {
    std::string out(file.empty() ? "<input>" : file);
    // A missing member is reported where its parent stands.
    const YamlPosition* where = document.nearest_position_of(pointer);
    if (where != nullptr) out += ":" + std::to_string(where->line) + ":" + std::to_string(where->column);
    return make_error(out + ": " + message);
  }
};

std::string kind_phrase(const Value& v) {
  const std::string name = v.kind_name();
  return (name[0] == 'a' || name[0] == 'i' || name[0] == 'o' ? "an " : "a ") + name;
}

// A required non-empty string member; `label` names it in messages.
Result<std::string> required_string(const Value& map, std::string_view key, const std::string& pointer,
                                    const std::string& label, const Locator& loc) {
  const Value* v = map.find(key);
  const std::string member = pointer + "/" + std::string(key);
  if (v == nullptr || v->is_null()) return loc.at(member, label + " is required");
  if (!v->is_string()) {
    return loc.at(member, label + " must be a string, not " + kind_phrase(*v) + " (quote it)");
  }
  if (v->get_string().empty()) return loc.at(member, label + " must not be empty");
  return std::string(v->get_string());
}

// A key the bundle format does not have is a typo that would otherwise
// drop what it holds without a word (`valueMappings` and no mapping).
Status check_known_keys(const Value& map, const std::string& pointer, const std::string& label,
                        std::initializer_list<std::string_view> known, const Locator& loc) {
  for (const Member& member : map.get_object()) {
    const std::string_view key = member.key.get_string();
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string names;
    for (std::string_view name : known) names += (names.empty() ? "" : ", ") + std::string(name);
    return loc.at(pointer + "/" + escape_pointer_token(key),
                  label + " has no key `" + std::string(key) + "` (its keys: " + names + ")");
  }
  return Ok{};
}

// Dotted segments; empty segments are errors.
Result<std::vector<std::string>> split_dotted(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t dot = text.find('.', start);
    const std::string_view segment = text.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (segment.empty()) return make_error("empty segment");
    out.emplace_back(segment);
    if (dot == std::string_view::npos) return out;
    start = dot + 1;
  }
}

Result<ValueMapping> parse_mapping(const Value& entry, const std::string& pointer, size_t index,
                                   const Locator& loc) {
  const std::string label = "renderer.valueMapping[" + std::to_string(index) + "]";
  if (!entry.is_object()) return loc.at(pointer, label + " must be a map, not " + kind_phrase(entry));
  if (auto known = check_known_keys(entry, pointer, label, {"claimPath", "target"}, loc); !known) return known.error();
  SINDRI_TRY(claim, required_string(entry, "claimPath", pointer, label + ".claimPath", loc));
  SINDRI_TRY(target, required_string(entry, "target", pointer, label + ".target", loc));
  ValueMapping mapping;
  mapping.claim_path_text = claim;
  mapping.target_text = target;
  // The leading dot is what marks a claim path as one.
  if (claim.front() != '.') {
    return loc.at(pointer + "/claimPath",
                  label + ".claimPath \"" + claim + "\" must start with a dot (e.g. .spec.parameters.size)");
  }
  auto claim_segments = split_dotted(std::string_view(claim).substr(1));
  if (!claim_segments) {
    return loc.at(pointer + "/claimPath", label + ".claimPath \"" + claim + "\" has an empty segment");
  }
  mapping.claim_path = std::move(claim_segments).value();
  std::string_view target_text = target;
  if (target_text.front() == '.') target_text.remove_prefix(1);
  auto target_segments = split_dotted(target_text);
  if (!target_segments) {
    return loc.at(pointer + "/target", label + ".target \"" + target + "\" has an empty segment");
  }
  mapping.target = std::move(target_segments).value();
  return mapping;
}

Result<Renderer> parse_renderer(const Value& stanza, const Locator& loc) {
  const std::string pointer = "/renderer";
  if (!stanza.is_object()) return loc.at(pointer, "renderer must be a map, not " + kind_phrase(stanza));
  if (auto known = check_known_keys(stanza, pointer, "renderer",
                                    {"type", "repository", "chart", "version", "values", "valueMapping"}, loc);
      !known) {
    return known.error();
  }
  SINDRI_TRY(type, required_string(stanza, "type", pointer, "renderer.type", loc));
  if (type == kPlainManifests) {
    return loc.at(pointer + "/type", "renderer type \"plain_manifests\" is not implemented yet (only helm is)");
  }
  if (type != kHelm) {
    return loc.at(pointer + "/type",
                  "unknown renderer type \"" + type + "\" (known: helm; plain_manifests is reserved)");
  }
  Renderer renderer;
  renderer.type = type;
  HelmRenderer& helm = renderer.helm;
  for (auto [key, field] : {std::pair{"repository", &helm.repository}, std::pair{"chart", &helm.chart},
                            std::pair{"version", &helm.version}}) {
    SINDRI_TRY(value, required_string(stanza, key, pointer, std::string("renderer.") + key + " (type helm)", loc));
    *field = std::move(value);
  }
  helm.values = Value(Object{});
  if (const Value* values = stanza.find("values"); values != nullptr && !values->is_null()) {
    if (!values->is_object()) {
      return loc.at(pointer + "/values", "renderer.values must be a map, not " + kind_phrase(*values));
    }
    helm.values = *values;
  }
  if (const Value* mappings = stanza.find("valueMapping"); mappings != nullptr && !mappings->is_null()) {
    if (!mappings->is_array()) {
      return loc.at(pointer + "/valueMapping",
                    "renderer.valueMapping must be a list, not " + kind_phrase(*mappings));
    }
    for (size_t i = 0; i < mappings->size(); ++i) {
      auto mapping =
          parse_mapping(*mappings->at(i), pointer + "/valueMapping/" + std::to_string(i), i, loc);
      if (!mapping) return std::move(mapping).error();
      helm.value_mapping.push_back(std::move(mapping).value());
    }
  }
  return renderer;
}

Result<std::vector<PipelineStep>> parse_pipeline(const Value* pipeline, const Locator& loc) {
  const std::string pointer = "/pipeline";
  if (pipeline == nullptr || pipeline->is_null()) return loc.at(pointer, "pipeline is required");
  if (!pipeline->is_array()) return loc.at(pointer, "pipeline must be a list, not " + kind_phrase(*pipeline));
  std::vector<PipelineStep> steps;
  std::vector<size_t> provisioning;
  std::set<std::string, std::less<>> seen;
  for (size_t i = 0; i < pipeline->size(); ++i) {
    const Value& entry = *pipeline->at(i);
    const std::string entry_pointer = pointer + "/" + std::to_string(i);
    const std::string label = "pipeline[" + std::to_string(i) + "]";
    if (!entry.is_object()) return loc.at(entry_pointer, label + " must be a map, not " + kind_phrase(entry));
    SINDRI_TRY(kind, required_string(entry, "kind", entry_pointer, label + ".kind", loc));
    if (kind == kProvisioning) {
      provisioning.push_back(i);
    } else if (!seen.insert(kind).second) {
      // Crossplane names pipeline steps by kind, and step names must be unique.
      return loc.at(entry_pointer + "/kind", "step kind \"" + kind + "\" appears more than once in the pipeline");
    }
    steps.push_back(PipelineStep{std::move(kind), entry});
  }
  if (provisioning.size() != 1) {
    std::string message = "the pipeline must have exactly one provisioning step, it has " +
                          std::to_string(provisioning.size());
    if (!provisioning.empty()) {
      message += " (entries";
      for (size_t i : provisioning) message += " " + std::to_string(i);
      message += ")";
    }
    return loc.at(provisioning.size() > 1 ? pointer + "/" + std::to_string(provisioning[1]) : pointer, message);
  }
  return steps;
}

}  // namespace

Result<ServiceBundle> parse_bundle(const YamlDocument& document, std::string_view file) {
  const Locator loc{document, file};
  const Value& root = document.value;
  if (!root.is_object()) return loc.at("", "a ServiceBundle must be a map, not " + kind_phrase(root));
  if (auto known = check_known_keys(root, "", "a ServiceBundle", {"meta", "renderer", "pipeline"}, loc); !known) {
    return known.error();
  }
  ServiceBundle bundle;
  const Value* meta = root.find("meta");
  if (meta == nullptr || !meta->is_object()) return loc.at("/meta", "meta must be a map holding name");
  if (auto known = check_known_keys(*meta, "/meta", "meta", {"name", "compositeTypeRef"}, loc); !known) {
    return known.error();
  }
  SINDRI_TRY(name, required_string(*meta, "name", "/meta", "meta.name", loc));
  bundle.name = std::move(name);
  if (const Value* ref = meta->find("compositeTypeRef"); ref != nullptr && !ref->is_null()) {
    if (!ref->is_object()) return loc.at("/meta/compositeTypeRef", "meta.compositeTypeRef must be a map");
    bundle.composite_type_ref = *ref;
  }
  if (const Value* stanza = root.find("renderer"); stanza != nullptr && !stanza->is_null()) {
    SINDRI_TRY(renderer, parse_renderer(*stanza, loc));
    bundle.renderer = std::move(renderer);
  }
  SINDRI_TRY(pipeline, parse_pipeline(root.find("pipeline"), loc));
  bundle.pipeline = std::move(pipeline);
  return bundle;
}

}  // namespace sindri::bundle
