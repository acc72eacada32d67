#include "agent/dir_sink.hpp"

#include <algorithm>
#include <array>
#include <fstream>
#include <system_error>

#include "agent/documents.hpp"
#include "value/file_text.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::agent {
namespace {

namespace fs = std::filesystem;

// The cluster-scoped kinds of Kubernetes itself; every other kind is taken
// as namespaced (a directory has no discovery to ask).
constexpr std::array kClusterScopedKinds = {
    std::string_view("APIService"),
    std::string_view("CSIDriver"),
    std::string_view("CSINode"),
    std::string_view("CertificateSigningRequest"),
    std::string_view("ClusterRole"),
    std::string_view("ClusterRoleBinding"),
    std::string_view("CustomResourceDefinition"),
    std::string_view("IngressClass"),
    std::string_view("MutatingWebhookConfiguration"),
    std::string_view("Namespace"),
    std::string_view("Node"),
    std::string_view("PersistentVolume"),
    std::string_view("PriorityClass"),
    std::string_view("RuntimeClass"),
    std::string_view("StorageClass"),
    std::string_view("ValidatingAdmissionPolicy"),
    std::string_view("ValidatingAdmissionPolicyBinding"),
    std::string_view("ValidatingWebhookConfiguration"),
    std::string_view("VolumeAttachment"),
};

bool is_cluster_scoped(std::string_view kind) {
  return std::find(kClusterScopedKinds.begin(), kClusterScopedKinds.end(), kind) != kClusterScopedKinds.end();
}

// A file name part: what Kubernetes allows in names and kinds (':' in RBAC
// names such as system:auth-delegator), nothing that could leave the
// directory or split the name at its '_'.
bool is_safe_part(std::string_view text) {
  if (text.empty() || text.front() == '.') return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == ':';
  });
}

bool is_safe_stack_id(std::string_view id) {
  return !id.empty() && id.front() != '.' && std::all_of(id.begin(), id.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-';
  });
}

std::string group_of(std::string_view api_version) {
  const size_t slash = api_version.find('/');
  return slash == std::string_view::npos ? "core" : std::string(api_version.substr(0, slash));
}

Status write_atomically(const fs::path& path, const std::string& text) {
  const fs::path temporary = path.parent_path() / ("." + path.filename().string() + ".tmp");
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) return make_error("cannot write " + temporary.string());
  }
  std::error_code error;
  fs::rename(temporary, path, error);
  if (error) return make_error("cannot rename " + temporary.string() + " to " + path.string() + ": " + error.message());
  return Ok{};
}

struct StoredObject {
  fs::path path;
  Value object;
};

// The .yaml files of a stack's directory that parse as one object; others
// (a person's notes, a half-written file) are left alone.
Result<std::vector<StoredObject>> read_stack(const fs::path& directory) {
  std::vector<StoredObject> stored;
  std::error_code error;
  if (!fs::is_directory(directory, error)) return stored;
  for (fs::directory_iterator it(directory, error), end; !error && it != end; it.increment(error)) {
    const fs::path& path = it->path();
    if (path.extension() != ".yaml" || path.filename().string().starts_with(".")) continue;
    auto text = read_file_text(path);
    if (!text.ok()) continue;
    auto parsed = parse_yaml(*text, path.string());
    if (!parsed.ok() || !parsed->is_object()) continue;
    stored.push_back({path, std::move(parsed).value()});
  }
  if (error) return make_error("cannot read " + directory.string() + ": " + error.message());
  return stored;
}

bool has_owner_references(const Value& object) {
  const Value* metadata = object.find("metadata");
  const Value* references = metadata && metadata->is_object() ? metadata->find("ownerReferences") : nullptr;
  return references && references->is_array() && references->size() > 0;
}

}  // namespace

DirSink::DirSink(fs::path root, std::string owner_id, std::string watch_namespace)
    : root_(std::move(root)),
      owner_id_(std::move(owner_id)),
      watch_namespace_(std::move(watch_namespace)),
      name_("dir:" + root_.string()) {}

ApplyOutcome DirSink::apply(const DeploymentObject& object) {
  if (!is_safe_stack_id(object.stack_id)) {
    return {false, "deployment object " + object.id + ": stack id \"" + object.stack_id + "\" is not a file name"};
  }
  auto documents = prepare_documents(object, owner_id_);
  if (!documents.ok()) return {false, documents.error().message};
  // Every document is checked before any is written, so a bad one leaves
  // the directory as it was.
  std::vector<std::pair<fs::path, std::string>> files;
  const fs::path directory = root_ / object.stack_id;
  for (PreparedDocument& document : *documents) {
    std::string namespace_ = "_";
    if (!is_cluster_scoped(document.kind)) {
      namespace_ = !document.namespace_.empty() ? document.namespace_
                   : !watch_namespace_.empty()  ? watch_namespace_
                                                : std::string("default");
      Value metadata = *document.object.find("metadata");
      metadata.set("namespace", namespace_);
      document.object.set("metadata", std::move(metadata));
    }
    const std::string group = group_of(document.api_version);
    for (std::string_view part : {std::string_view(group), std::string_view(document.kind),
                                  std::string_view(namespace_), std::string_view(document.name)}) {
      if (part != "_" && !is_safe_part(part)) {
        return {false, "deployment object " + object.id + ": " + document.describe() + ": \"" + std::string(part) +
                           "\" cannot be part of a file name (letters, digits, '-', '.' and ':' only)"};
      }
    }
    files.emplace_back(directory / (group + "_" + document.kind + "_" + namespace_ + "_" + document.name + ".yaml"),
                       to_yaml(document.object));
  }
  std::error_code error;
  fs::create_directories(directory, error);
  if (error) return {false, "cannot create " + directory.string() + ": " + error.message()};
  for (const auto& [path, text] : files) {
    if (auto written = write_atomically(path, text); !written.ok()) {
      return {false, "deployment object " + object.id + ": " + written.error().message};
    }
  }
  return {true, "applied " + std::to_string(files.size()) + " object(s) to " + directory.string()};
}

Status DirSink::prune(std::string_view stack_id, std::string_view keep_checksum) {
  if (!is_safe_stack_id(stack_id)) return make_error("stack id \"" + std::string(stack_id) + "\" is not a file name");
  const fs::path directory = root_ / std::string(stack_id);
  SINDRI_TRY(stored, read_stack(directory));
  for (const StoredObject& file : stored) {
    if (annotation_of(file.object, kOwnerAnnotation) != owner_id_) continue;
    if (annotation_of(file.object, kStackAnnotation) != stack_id) continue;
    if (has_owner_references(file.object)) continue;
    if (!keep_checksum.empty() && annotation_of(file.object, kChecksumAnnotation) == keep_checksum) continue;
    std::error_code error;
    fs::remove(file.path, error);
    if (error) return make_error("cannot remove " + file.path.string() + ": " + error.message());
  }
  std::error_code error;
  if (fs::is_empty(directory, error) && !error) fs::remove(directory, error);
  return Ok{};
}

Result<std::vector<OwnedStack>> DirSink::owned() {
  std::vector<OwnedStack> stacks;
  std::error_code error;
  if (!fs::exists(root_, error)) return stacks;
  for (fs::directory_iterator it(root_, error), end; !error && it != end; it.increment(error)) {
    std::error_code kind_error;
    if (!it->is_directory(kind_error)) continue;
    SINDRI_TRY(stored, read_stack(it->path()));
    OwnedStack stack{it->path().filename().string(), {}};
    for (const StoredObject& file : stored) {
      if (annotation_of(file.object, kOwnerAnnotation) != owner_id_) continue;
      if (annotation_of(file.object, kStackAnnotation) != stack.stack_id) continue;
      const std::string checksum(annotation_of(file.object, kChecksumAnnotation));
      if (std::find(stack.checksums.begin(), stack.checksums.end(), checksum) == stack.checksums.end()) {
        stack.checksums.push_back(checksum);
      }
    }
    if (!stack.checksums.empty()) stacks.push_back(std::move(stack));
  }
  if (error) return make_error("cannot read " + root_.string() + ": " + error.message());
  return stacks;
}

}  // namespace sindri::agent
