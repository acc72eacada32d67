#include "kube/discovery.hpp"
#include "value/members.hpp"

#include <algorithm>

namespace sindri::kube {
namespace {

}  // namespace

std::string ResourceType::api_version() const { return group.empty() ? version : group + "/" + version; }

bool ResourceType::supports(std::string_view verb) const {
  return std::find(verbs.begin(), verbs.end(), verb) != verbs.end();
}

std::vector<ResourceType> parse_resource_list(const Value& list, std::string_view group, std::string_view version,
                                              bool preferred) {
  std::vector<ResourceType> out;
  const Value* resources = list.find("resources");
  if (resources == nullptr || !resources->is_array()) return out;
  for (const Value& resource : resources->get_array()) {
    const std::string_view name = string_member(resource, "name");
    const std::string_view kind = string_member(resource, "kind");
    if (name.empty() || kind.empty() || name.find('/') != std::string_view::npos) continue;
    ResourceType type;
    type.group = group;
    type.version = version;
    type.kind = kind;
    type.plural = name;
    type.preferred = preferred;
    const Value* namespaced = resource.find("namespaced");
    type.namespaced = namespaced != nullptr && namespaced->is_bool() && namespaced->get_bool();
    if (const Value* verbs = resource.find("verbs"); verbs != nullptr && verbs->is_array()) {
      for (const Value& verb : verbs->get_array()) {
        if (verb.is_string()) type.verbs.emplace_back(verb.get_string());
      }
    }
    out.push_back(std::move(type));
  }
  return out;
}

std::vector<GroupVersion> parse_group_list(const Value& list) {
  std::vector<GroupVersion> out;
  const Value* groups = list.find("groups");
  if (groups == nullptr || !groups->is_array()) return out;
  for (const Value& group : groups->get_array()) {
    const std::string_view name = string_member(group, "name");
    const Value* versions = group.find("versions");
    if (name.empty() || versions == nullptr || !versions->is_array()) continue;
    std::string_view preferred;
    if (const Value* preferred_version = group.find("preferredVersion"); preferred_version != nullptr) {
      preferred = string_member(*preferred_version, "version");
    }
    for (size_t i = 0; i < versions->size(); ++i) {
      const std::string_view version = string_member(*versions->at(i), "version");
      if (version.empty()) continue;
      // Without a preferredVersion the first listed is the preferred one.
      const bool is_preferred = preferred.empty() ? i == 0 : version == preferred;
      out.push_back({std::string(name), std::string(version), is_preferred});
    }
  }
  return out;
}

std::vector<GroupVersion> parse_core_versions(const Value& versions) {
  std::vector<GroupVersion> out;
  const Value* list = versions.find("versions");
  if (list == nullptr || !list->is_array()) return out;
  for (const Value& version : list->get_array()) {
    if (version.is_string() && !version.get_string().empty()) {
      out.push_back({"", std::string(version.get_string()), out.empty()});
    }
  }
  return out;
}

}  // namespace sindri::kube
