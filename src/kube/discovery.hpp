#pragma once
// The API server's kinds, from its discovery documents (/api, /api/v1,
// /apis, /apis/GROUP/VERSION).

#include <string>
#include <string_view>
#include <vector>

#include "value/value.hpp"

namespace sindri::kube {

struct ResourceType {
  std::string group, version, kind, plural;  // group "" for core
  bool namespaced = true;
  std::vector<std::string> verbs;
  // The group's preferred version: listing every kind once takes only these
  // (the other versions serve the same objects again).
  bool preferred = true;
  std::string api_version() const;  // "v1" or "apps/v1"
  bool supports(std::string_view verb) const;
};

// What discovery found: the kinds, and the group versions ("metrics.k8s.io/v1beta1")
// left out because they kept answering 503, as an aggregated API whose
// service is down does. Partial discovery serves applies, not a full listing.
struct Discovery {
  std::vector<ResourceType> types;
  std::vector<std::string> unavailable;
  bool partial() const { return !unavailable.empty(); }
};

// The kinds of one APIResourceList (/api/v1 or /apis/G/V); subresources
// ("pods/log") are left out. Malformed entries are skipped.
std::vector<ResourceType> parse_resource_list(const Value& list, std::string_view group, std::string_view version,
                                              bool preferred);

struct GroupVersion {
  std::string group, version;
  bool preferred = false;
};
// The group versions of an APIGroupList (/apis).
std::vector<GroupVersion> parse_group_list(const Value& list);
// The versions of the core group's APIVersions (/api); the first is preferred.
std::vector<GroupVersion> parse_core_versions(const Value& versions);

}  // namespace sindri::kube
