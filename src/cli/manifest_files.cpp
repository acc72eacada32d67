#include "cli/manifest_files.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include "cli/io.hpp"
#include "cli/manifest_output.hpp"
#include "value/pointer.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::cli {

namespace {

namespace fs = std::filesystem;

struct Source {
  std::string name;  // the path as given or found, "<stdin>" for `-`
  std::string text;
};

bool is_manifest_file(const fs::path& path) {
  const fs::path extension = path.extension();
  return extension == ".yaml" || extension == ".yml" || extension == ".json";
}

// Paths compare element by element, so a subdirectory's files sort where
// the subdirectory does: the order of kubectl's (Go's filepath.Walk) walk.
Result<std::vector<fs::path>> manifest_files_in(const fs::path& dir, bool recursive) {
  std::vector<fs::path> files;
  std::error_code ec;
  auto take = [&](const fs::directory_entry& entry) {
    std::error_code type_ec;
    if (entry.is_regular_file(type_ec) && is_manifest_file(entry.path())) files.push_back(entry.path());
  };
  if (recursive) {
    fs::recursive_directory_iterator it(dir, ec);
    for (const fs::recursive_directory_iterator end; !ec && it != end; it.increment(ec)) take(*it);
  } else {
    fs::directory_iterator it(dir, ec);
    for (const fs::directory_iterator end; !ec && it != end; it.increment(ec)) take(*it);
  }
  if (ec) return make_error("cannot read directory " + dir.string() + ": " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

Result<std::vector<Source>> read_sources(const ManifestSources& given) {
  std::vector<Source> sources;
  auto add_file = [&](const fs::path& path) -> Status {
    SINDRI_TRY(text, read_file(path, "manifest file"));
    sources.push_back(Source{path.string(), std::move(text)});
    return Ok{};
  };
  for (const std::string& path : given.paths) {
    std::error_code ec;
    if (path == "-") {
      SINDRI_TRY(text, read_file(path, "manifest file"));
      sources.push_back(Source{"<stdin>", std::move(text)});
    } else if (fs::is_directory(path, ec)) {
      SINDRI_TRY(files, manifest_files_in(path, given.recursive));
      for (const fs::path& file : files) {
        if (auto added = add_file(file); !added) return std::move(added).error();
      }
    } else if (auto added = add_file(path); !added) {
      return std::move(added).error();
    }
  }
  return sources;
}

// kubectl applies the items of a List (v1 List, PodList, ...) one by one;
// `sindri render -o json` writes several manifests as one.
bool is_list(const Value& document) {
  const Value* kind = document.find("kind");
  const Value* items = document.find("items");
  return kind && kind->is_string() && kind->get_string().ends_with("List") && items && items->is_array();
}

std::string text_at(const Value& object, std::string_view pointer) {
  const Value* at = follow_pointer(object, pointer);
  return at != nullptr && at->is_string() ? std::string(at->get_string()) : "";
}

// Kubernetes' built-in kinds that live outside namespaces, by API group.
bool is_cluster_scoped(std::string_view group, std::string_view kind) {
  static const std::set<std::pair<std::string_view, std::string_view>> kinds = {
      {"", "ComponentStatus"},
      {"", "Namespace"},
      {"", "Node"},
      {"", "PersistentVolume"},
      {"admissionregistration.k8s.io", "MutatingAdmissionPolicy"},
      {"admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding"},
      {"admissionregistration.k8s.io", "MutatingWebhookConfiguration"},
      {"admissionregistration.k8s.io", "ValidatingAdmissionPolicy"},
      {"admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"},
      {"admissionregistration.k8s.io", "ValidatingWebhookConfiguration"},
      {"apiextensions.k8s.io", "CustomResourceDefinition"},
      {"apiregistration.k8s.io", "APIService"},
      {"certificates.k8s.io", "CertificateSigningRequest"},
      {"certificates.k8s.io", "ClusterTrustBundle"},
      {"flowcontrol.apiserver.k8s.io", "FlowSchema"},
      {"flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"},
      {"networking.k8s.io", "IPAddress"},
      {"networking.k8s.io", "IngressClass"},
      {"networking.k8s.io", "ServiceCIDR"},
      {"node.k8s.io", "RuntimeClass"},
      {"policy", "PodSecurityPolicy"},
      {"rbac.authorization.k8s.io", "ClusterRole"},
      {"rbac.authorization.k8s.io", "ClusterRoleBinding"},
      {"resource.k8s.io", "DeviceClass"},
      {"resource.k8s.io", "ResourceSlice"},
      {"scheduling.k8s.io", "PriorityClass"},
      {"storage.k8s.io", "CSIDriver"},
      {"storage.k8s.io", "CSINode"},
      {"storage.k8s.io", "StorageClass"},
      {"storage.k8s.io", "VolumeAttachment"},
      {"storage.k8s.io", "VolumeAttributesClass"},
      {"storagemigration.k8s.io", "StorageVersionMigration"},
  };
  return kinds.contains({group, kind});
}

// The namespace an object lands in as kubectl applies it: none for a
// cluster-scoped kind (the API server ignores one given), `default` when a
// namespaced object names none.
std::string effective_namespace(std::string_view group, std::string_view kind, std::string given) {
  if (is_cluster_scoped(group, kind)) return "";
  return given.empty() ? "default" : given;
}

// `manifest`, checked, with who it is.
Result<Manifest> identify(const Value& manifest, const std::string& where) {
  if (std::string problem = manifest_problem(manifest); !problem.empty()) return make_error(where + " " + problem);
  const std::string api_version = text_at(manifest, "/apiVersion");
  const size_t slash = api_version.find('/');
  const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  const std::string kind = text_at(manifest, "/kind");
  const std::string name_space = effective_namespace(group, kind, text_at(manifest, "/metadata/namespace"));
  const std::string name = text_at(manifest, "/metadata/name");
  return Manifest{manifest, group + "\n" + kind + "\n" + name_space + "\n" + name,
                  api_version + "/" + kind + "/" + (name_space.empty() ? "" : name_space + "/") + name};
}

// The manifests so far, and, when each object may be given once, where each
// was first given.
struct Collected {
  bool each_once = true;
  std::vector<Manifest> manifests;
  std::map<std::string, std::string> first_given;
};

Status add_manifest(Collected& collected, const Value& value, const std::string& where) {
  SINDRI_TRY(manifest, identify(value, where));
  if (collected.each_once) {
    if (auto [first, added] = collected.first_given.emplace(manifest.identity, where); !added) {
      const std::string kind = text_at(value, "/kind");
      // The label without its "apiVersion/kind/": "NAMESPACE/NAME", or "NAME".
      const std::string named = manifest.label.substr(text_at(value, "/apiVersion").size() + kind.size() + 2);
      return make_error(where + ": " + kind + " " + named + " is given already, at " + first->second +
                        "; a deployment object holds each object once");
    }
  }
  collected.manifests.push_back(std::move(manifest));
  return Ok{};
}

Status collect_manifests(std::string_view text, const std::string& source, Collected& collected) {
  auto stream = parse_yaml_stream(text, source);
  if (!stream) return make_error(stream.error().describe());
  for (size_t i = 0; i < stream->size(); ++i) {
    const YamlDocument& document = (*stream)[i];
    if (document.value.is_null()) continue;
    const std::string where = source + ":" + std::to_string(document.line) + ": document " + std::to_string(i + 1);
    if (!is_list(document.value)) {
      if (auto added = add_manifest(collected, document.value, where); !added) return added;
      continue;
    }
    const Value& items = *document.value.find("items");
    for (size_t j = 0; j < items.size(); ++j) {
      const std::string item_where = where + ", item " + std::to_string(j + 1) + " of the list";
      if (auto added = add_manifest(collected, *items.at(j), item_where); !added) return added;
    }
  }
  return Ok{};
}

}  // namespace

void add_manifest_options(CLI::App& command, ManifestSources& sources) {
  command
      .add_option("-f,--filename", sources.paths,
                  "Manifest file, directory of *.yaml/*.yml/*.json files, or - for stdin (repeatable)")
      ->required()
      ->allow_extra_args(false);
  command.add_flag("-R,--recursive", sources.recursive, "Also read the files in the directories' subdirectories");
}

Result<std::vector<Manifest>> read_manifests(const ManifestSources& given) {
  SINDRI_TRY(sources, read_sources(given));
  Collected collected;
  for (const Source& source : sources) {
    if (auto done = collect_manifests(source.text, source.name, collected); !done) return std::move(done).error();
  }
  if (collected.manifests.empty()) {
    std::string paths;
    for (const std::string& path : given.paths) paths += (paths.empty() ? "" : ", ") + path;
    return make_error("no manifests found in " + paths);
  }
  return std::move(collected.manifests);
}

Result<std::vector<Manifest>> manifests_in(std::string_view yaml, const std::string& source) {
  Collected collected;
  collected.each_once = false;
  if (auto done = collect_manifests(yaml, source, collected); !done) return std::move(done).error();
  return std::move(collected.manifests);
}

std::string joined_yaml(const std::vector<Manifest>& manifests) {
  std::vector<Value> values;
  values.reserve(manifests.size());
  for (const Manifest& manifest : manifests) values.push_back(manifest.value);
  return to_yaml_stream(values);
}

}  // namespace sindri::cli
