#include "kube/paths.hpp"

#include "http/server.hpp"

namespace sindri::kube {

std::string collection_path(const ResourceType& type, std::string_view ns) {
  std::string path = type.group.empty() ? "/api/" + type.version : "/apis/" + type.group + "/" + type.version;
  if (type.namespaced && !ns.empty()) path += "/namespaces/" + http::percent_encode(ns);
  return path + "/" + type.plural;
}

std::string object_path(const ResourceType& type, std::string_view ns, std::string_view name) {
  return collection_path(type, ns) + "/" + http::percent_encode(name);
}

std::string describe_object(const ResourceType& type, std::string_view ns, std::string_view name) {
  std::string out = type.api_version() + " " + type.kind + " ";
  if (type.namespaced && !ns.empty()) out += std::string(ns) + "/";
  return out + std::string(name);
}

}  // namespace sindri::kube
