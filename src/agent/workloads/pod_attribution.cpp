#include "agent/workloads/pod_attribution.hpp"

#include "agent/documents.hpp"
#include "value/pointer.hpp"
#include "value/uuid.hpp"
#include "value/members.hpp"

namespace sindri::agent {

namespace {

// Pod -> ReplicaSet -> Deployment is two hops; a CronJob's Job adds one.
constexpr int kMaxOwnerHops = 4;

// The id `text` names, lower-case, or "" when it is no UUID.
std::string id_of(std::string_view text) { return is_uuid(text) ? stored_uuid(text) : std::string(); }

std::string label_id(const Value& object) {
  const Value* labels = follow_pointer(object, "/metadata/labels");
  const Value* id = labels && labels->is_object() ? labels->find(kDeploymentObjectIdAnnotation) : nullptr;
  return id && id->is_string() ? id_of(id->get_string()) : std::string();
}

std::string annotation_id(const Value& object) {
  const Value* annotations = follow_pointer(object, "/metadata/annotations");
  const Value* id = annotations && annotations->is_object() ? annotations->find(kDeploymentObjectIdAnnotation) : nullptr;
  return id && id->is_string() ? id_of(id->get_string()) : std::string();
}

// The owner to follow: the controller reference, else the first one.
const Value* controller_owner(const Value& object) {
  const Value* owners = follow_pointer(object, "/metadata/ownerReferences");
  if (!owners || !owners->is_array() || owners->size() == 0) return nullptr;
  for (const Value& owner : owners->get_array()) {
    const Value* controller = owner.find("controller");
    if (controller && controller->is_bool() && controller->get_bool()) return &owner;
  }
  return owners->at(0);
}

}  // namespace

kube::ResourceType core_v1_type(std::string_view kind, std::string_view plural) {
  kube::ResourceType type;
  type.version = "v1";
  type.kind = kind;
  type.plural = plural;
  type.namespaced = true;
  return type;
}

Result<std::vector<Value>, kube::KubeError> list_pods(kube::Client& client, std::string_view namespace_) {
  return client.list(core_v1_type("Pod", "pods"), namespace_);
}

std::string PodAttributor::deployment_object_of(const Value& pod) {
  if (std::string id = label_id(pod); !id.empty()) return id;
  if (std::string id = annotation_id(pod); !id.empty()) return id;
  return owner_chain_id(pod);
}

std::vector<Value> PodAttributor::pods_of(std::span<const Value> pods, std::string_view deployment_object_id) {
  std::vector<Value> matched;
  // Pods attributed to nothing have the id "": no id is no pods.
  if (!is_uuid(deployment_object_id)) return matched;
  const std::string wanted = stored_uuid(deployment_object_id);
  for (const Value& pod : pods) {
    if (pod.is_object() && deployment_object_of(pod) == wanted) matched.push_back(pod);
  }
  return matched;
}

std::string PodAttributor::owner_chain_id(const Value& pod) {
  const std::string namespace_(string_at(pod, "/metadata/namespace"));
  const Value* owner = controller_owner(pod);
  if (namespace_.empty() || !owner) return {};
  std::vector<std::string> walked;
  std::string found;
  Value current;  // keeps the owner object `owner` points into alive
  for (int hop = 0; hop < kMaxOwnerHops && owner; ++hop) {
    const std::string_view api_version = string_at(*owner, "/apiVersion"), kind = string_at(*owner, "/kind"),
                           name = string_at(*owner, "/name");
    std::string key = namespace_ + "/" + std::string(api_version) + "/" + std::string(kind) + "/" + std::string(name);
    if (auto known = owner_ids_.find(key); known != owner_ids_.end()) {
      found = known->second;
      break;
    }
    walked.push_back(std::move(key));
    auto type = client_.find_type(api_version, kind);
    if (!type.ok()) break;
    auto object = client_.get(*type, type->namespaced ? std::string_view(namespace_) : std::string_view(), name);
    if (!object.ok()) break;
    current = std::move(object).value();
    if (found = annotation_id(current); !found.empty()) break;
    owner = controller_owner(current);
  }
  for (std::string& key : walked) owner_ids_[std::move(key)] = found;
  return found;
}

}  // namespace sindri::agent
