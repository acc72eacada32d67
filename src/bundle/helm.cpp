#include "bundle/helm.hpp"

#include <memory>
#include <set>
#include <utility>

#include "placeholder/kcl.hpp"
#include "placeholder/tree_root.hpp"

namespace sindri::bundle {

namespace {

std::string joined(const std::vector<std::string>& segments, size_t count) {
  std::string out;
  for (size_t i = 0; i < count; ++i) out += (i > 0 ? "." : "") + segments[i];
  return out;
}

// Writes `leaf` at target[depth..] inside `node`, creating maps on the way.
Status write_at(Value& node, const ValueMapping& mapping, size_t depth, Value leaf) {
  const std::string& key = mapping.target[depth];
  if (depth + 1 == mapping.target.size()) {
    node.set(key, std::move(leaf));
    return Ok{};
  }
  const Value* existing = node.find(key);
  Value child = existing != nullptr && !existing->is_null() ? *existing : Value(Object{});
  if (!child.is_object()) {
    return make_error("renderer.valueMapping target \"" + mapping.target_text + "\": values." +
                      joined(mapping.target, depth + 1) + " is " + child.kind_name() + ", not a map");
  }
  if (auto s = write_at(child, mapping, depth + 1, std::move(leaf)); !s) return s;
  node.set(key, std::move(child));
  return Ok{};
}

// The emitter writes a marker map as raw KCL: data must not smuggle one in.
Status reject_markers(const Value& v, const std::string& path) {
  if (kcl::is_expression(v)) return make_error("renderer." + path + " holds a reserved $kclExpression map");
  if (v.is_object()) {
    for (const Member& m : v.get_object()) {
      if (auto s = reject_markers(m.value, path + "." + std::string(m.key.get_string())); !s) return s;
    }
  } else if (v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i) {
      if (auto s = reject_markers(*v.at(i), path + "[" + std::to_string(i) + "]"); !s) return s;
    }
  }
  return Ok{};
}

}  // namespace

std::string claim_reference(const std::vector<std::string>& claim_path) {
  std::string out = "oxr";
  for (const std::string& segment : claim_path) {
    if (kcl::is_identifier(segment) && !kcl::is_keyword(segment)) {
      out += "." + segment;
    } else {
      // Claim paths come from YAML text, hence valid UTF-8; a subscript reads any key.
      auto literal = kcl::string_literal(segment);
      out += "[" + (literal ? *literal : std::string("\"\"")) + "]";
    }
  }
  return out;
}

Result<Value> merge_helm_values(const HelmRenderer& helm) {
  if (auto s = reject_markers(helm.values, "values"); !s) return std::move(s).error();
  Value merged = helm.values;  // copy on write: the bundle's values stay as written
  std::set<std::string> targets;
  for (const ValueMapping& mapping : helm.value_mapping) {
    const std::string target = joined(mapping.target, mapping.target.size());
    if (!targets.insert(target).second) {
      return make_error("renderer.valueMapping maps target \"" + target + "\" more than once");
    }
    if (auto s = write_at(merged, mapping, 0, kcl::expression(claim_reference(mapping.claim_path))); !s) {
      return std::move(s).error();
    }
  }
  return merged;
}

Result<placeholder::RootLookup> helm_root(const Renderer& renderer) {
  SINDRI_TRY(merged, merge_helm_values(renderer.helm));
  // A missing required string stays absent from the tree, so that the root reports it.
  Value spec{Object{}};
  const std::pair<const char*, const std::string*> strings[] = {{"repository", &renderer.helm.repository},
                                                                {"chart", &renderer.helm.chart},
                                                                {"version", &renderer.helm.version}};
  for (const auto& [key, text] : strings) {
    if (!text->empty()) spec.set(key, Value(*text));
  }
  if (!renderer.helm.values.is_null()) spec.set("values", renderer.helm.values);
  Value tree{Object{}};
  tree.set("type", Value(renderer.type));
  tree.set("spec", std::move(spec));
  tree.set("values", std::move(merged));
  using placeholder::Field;
  auto root = std::make_shared<placeholder::TreeRoot>(
      std::move(tree), std::vector<Field>{
                           {"type", true, Value::Kind::String, false},
                           {"spec.repository", true, Value::Kind::String, false},
                           {"spec.chart", true, Value::Kind::String, false},
                           {"spec.version", true, Value::Kind::String, false},
                           {"spec.values", false, Value::Kind::Object, false},
                           // Holds reference markers: only its KCL text is meaningful.
                           {"values", false, Value::Kind::Object, true},
                       });
  return placeholder::RootLookup([root](std::string_view rest) { return root->lookup(rest); });
}

}  // namespace sindri::bundle
