#include "repo/metadata.hpp"

#include <algorithm>
#include <array>

#include "repo/problems.hpp"
#include "value/pointer.hpp"

namespace sindri::repo {

namespace {

constexpr std::array<std::string_view, 8> kKeys = {"name",         "description", "type",
                                                   "default_settings", "always_apply", "tags",
                                                   "shared_settings",  "setting_subscriptions"};

struct Reader {
  const LocatedDocument& source;
  Problems problems;

  void complain(std::string_view key, std::string message) {
    problems.push_back(source.where(pointer_child("", key)) + ": " + std::move(message));
  }
  const Value* member(std::string_view key, Value::Kind kind, std::string_view expected) {
    const Value* found = source.value().find(key);
    if (found == nullptr) return nullptr;
    if (found->kind() != kind) {
      complain(key, "`" + std::string(key) + "` must be " + std::string(expected) + ", not " + found->kind_name());
      return nullptr;
    }
    return found;
  }
  std::vector<std::string> strings(std::string_view key) {
    std::vector<std::string> out;
    const Value* list = member(key, Value::Kind::Array, "a list of strings");
    if (list == nullptr) return out;
    for (size_t i = 0; i < list->size(); ++i) {
      const Value& item = *list->at(i);
      if (!item.is_string()) {
        problems.push_back(source.where(pointer_child(pointer_child("", key), std::to_string(i))) + ": `" +
                           std::string(key) + "` must hold strings, not " + item.kind_name());
        continue;
      }
      out.emplace_back(item.get_string());
    }
    return out;
  }
};

}  // namespace

const char* type_name(TemplateType type) { return type == TemplateType::Kubernetes ? "kubernetes" : "project"; }

Result<TemplateMetadata> parse_template_json(std::string_view text, std::string file, std::string_view directory_name) {
  SINDRI_TRY(source, parse_located_json(text, std::move(file)));
  if (!source.value().is_object()) {
    return make_error(source.where("") + ": template.json must hold an object, not " + source.value().kind_name());
  }
  Reader reader{source, {}};
  for (const Member& m : source.value().get_object()) {
    const std::string_view key = m.key.get_string();
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end()) {
      reader.complain(key, "unknown key `" + std::string(key) +
                               "` (known: name, description, type, default_settings, always_apply, tags, "
                               "shared_settings, setting_subscriptions)");
    }
  }
  TemplateMetadata meta;
  if (const Value* name = reader.member("name", Value::Kind::String, "a string")) {
    meta.name = name->get_string();
  } else if (source.value().find("name") == nullptr) {
    reader.problems.push_back(source.where("") + ": `name` is required");
  }
  const Value* description = reader.member("description", Value::Kind::String, "a string");
  meta.description = description ? std::string(description->get_string()) : meta.name;
  if (const Value* type = reader.member("type", Value::Kind::String, "a string")) {
    if (type->get_string() == "kubernetes") {
      meta.type = TemplateType::Kubernetes;
    } else if (type->get_string() != "project") {
      reader.complain("type", "`type` must be `project` or `kubernetes`, not `" + std::string(type->get_string()) + "`");
    }
  }
  if (const Value* defaults = reader.member("default_settings", Value::Kind::Object, "an object")) {
    meta.default_settings = *defaults;
  }
  if (const Value* always = reader.member("always_apply", Value::Kind::Bool, "true or false")) {
    meta.always_apply = always->get_bool();
  }
  meta.tags = reader.strings("tags");
  if (std::find(meta.tags.begin(), meta.tags.end(), directory_name) == meta.tags.end()) {
    meta.tags.emplace_back(directory_name);
  }
  if (const Value* shared = reader.member("shared_settings", Value::Kind::Object, "an object")) {
    meta.shared_settings = *shared;
  }
  meta.setting_subscriptions = reader.strings("setting_subscriptions");
  if (!reader.problems.empty()) return problems_error(reader.problems);
  meta.source = std::move(source);
  return meta;
}

}  // namespace sindri::repo
