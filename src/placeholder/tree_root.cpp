#include "placeholder/tree_root.hpp"

#include "placeholder/kcl.hpp"

namespace sindri::placeholder {

namespace {

constexpr std::string_view kKclView = ".kcl";

std::string published(const std::vector<Field>& fields) {
  std::string out;
  for (const Field& f : fields) {
    if (!f.kcl_only) out += (out.empty() ? "" : ", ") + f.path;
    out += (out.empty() ? "" : ", ") + f.path + std::string(kKclView);
  }
  return out;
}

}  // namespace

Value empty_of_kind(Value::Kind kind) {
  switch (kind) {
    case Value::Kind::Null: return Value();
    case Value::Kind::Bool: return Value(false);
    case Value::Kind::Int: return Value(0);
    case Value::Kind::Float: return Value(0.0);
    case Value::Kind::String: return Value("");
    case Value::Kind::Array: return Value(Array{});
    case Value::Kind::Object: return Value(Object{});
  }
  return Value();
}

const Value* TreeRoot::find(std::string_view dotted) const {
  const Value* at = &tree_;
  while (at != nullptr) {
    const size_t dot = dotted.find('.');
    at = at->find(dotted.substr(0, dot));
    if (dot == std::string_view::npos) break;
    dotted.remove_prefix(dot + 1);
  }
  return at;
}

Result<Value> TreeRoot::lookup(std::string_view rest) const {
  const bool kcl_view = rest.ends_with(kKclView);
  const std::string_view field_path = kcl_view ? rest.substr(0, rest.size() - kKclView.size()) : rest;
  for (const Field& field : fields_) {
    if (field.path != field_path || (field.kcl_only && !kcl_view)) continue;
    const Value* found = find(field.path);
    if (found == nullptr || found->is_null()) {
      if (field.required) return make_error("required field \"" + field.path + "\" is missing");
    }
    const Value value = found != nullptr && !found->is_null() ? *found : empty_of_kind(field.kind);
    if (!kcl_view) return value;
    SINDRI_TRY(text, kcl::to_kcl(value));
    return kcl::expression(text);
  }
  return make_error("unknown field \"" + std::string(rest) + "\" (published: " + published(fields_) + ")");
}

}  // namespace sindri::placeholder
