#pragma once
// The URL paths of Kubernetes resources.

#include <string>
#include <string_view>

#include "kube/discovery.hpp"

namespace sindri::kube {

// /api/v1[/namespaces/NS]/PLURAL or /apis/G/V[/namespaces/NS]/PLURAL; the
// namespace part only for a namespaced kind and a non-empty ns.
std::string collection_path(const ResourceType& type, std::string_view ns);
std::string object_path(const ResourceType& type, std::string_view ns, std::string_view name);
// "apps/v1 Deployment default/web", "v1 Namespace web": for messages.
std::string describe_object(const ResourceType& type, std::string_view ns, std::string_view name);

}  // namespace sindri::kube
