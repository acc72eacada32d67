#include "repo/setting_docs.hpp"

#include <algorithm>
#include <map>

namespace sindri::repo {

namespace {

std::string type_text(const Value& type) {
  if (type.is_string()) return std::string(type.get_string());
  std::string out;
  for (const Value& one : type.is_array() ? type.get_array() : Array{}) {
    if (one.is_string()) out += (out.empty() ? "" : "|") + std::string(one.get_string());
  }
  return out;
}

}  // namespace

std::vector<SettingDoc> setting_docs(const Template& tpl) {
  std::map<std::string, SettingDoc> docs;
  auto doc = [&](std::string_view name) -> SettingDoc& {
    SettingDoc& found = docs[std::string(name)];
    found.name = name;
    return found;
  };
  const Value* properties = tpl.schema_document.find("properties");
  for (const Member& m : properties && properties->is_object() ? properties->get_object() : Object{}) {
    SettingDoc& setting = doc(m.key.get_string());
    const Value& property = m.value;
    for (const char* key : {"description", "title"}) {
      const Value* text = property.find(key);
      if (setting.description.empty() && text && text->is_string()) setting.description = text->get_string();
    }
    if (const Value* type = property.find("type")) setting.type = type_text(*type);
    if (const Value* allowed = property.find("enum"); allowed && allowed->is_array()) setting.allowed = allowed->get_array();
    if (const Value* constant = property.find("const")) setting.allowed = {*constant};
    if (const Value* fallback = property.find("default")) setting.default_value = *fallback;
  }
  const TemplateMetadata& metadata = tpl.metadata;
  for (const Member& m : metadata.shared_settings.get_object()) {
    SettingDoc& setting = doc(m.key.get_string());
    setting.published = true;
    setting.default_value = m.value;
  }
  for (const Member& m : metadata.default_settings.get_object()) doc(m.key.get_string()).default_value = m.value;
  for (const std::string& name : metadata.setting_subscriptions) doc(name).subscribed = true;
  std::vector<SettingDoc> out;
  for (auto& [name, setting] : docs) out.push_back(std::move(setting));
  return out;
}

}  // namespace sindri::repo
