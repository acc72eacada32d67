#include "kube/paths.hpp"

namespace sindri::kube {

std::string percent_encode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
        c == '_' || c == '~') {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 15]);
    }
  }
  return out;
}

std::string collection_path(const ResourceType& type, std::string_view ns) {
  std::string path = type.group.empty() ? "/api/" + type.version : "/apis/" + type.group + "/" + type.version;
  if (type.namespaced && !ns.empty()) path += "/namespaces/" + percent_encode(ns);
  return path + "/" + type.plural;
}

std::string object_path(const ResourceType& type, std::string_view ns, std::string_view name) {
  return collection_path(type, ns) + "/" + percent_encode(name);
}

std::string describe_object(const ResourceType& type, std::string_view ns, std::string_view name) {
  std::string out = type.api_version() + " " + type.kind + " ";
  if (type.namespaced && !ns.empty()) out += std::string(ns) + "/";
  return out + std::string(name);
}

}  // namespace sindri::kube
