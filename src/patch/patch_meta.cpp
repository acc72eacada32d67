// The patch metadata table. Rows follow the `patchStrategy` and
// `patchMergeKey` struct tags of k8s.io/api (1.32); a list field without a
// row is atomic (replaced by the patch), as in Kubernetes. Rows with an empty
// strategy only say which type a field holds, so that lookups can descend.
//
// LeaderWorkerSet and RoleBasedGroup are custom resources, for which the API
// server has no SMP at all; Sindri gives their pod templates the built-in
// PodTemplateSpec metadata, and RoleBasedGroup's roles and roleTemplates
// merge by name (Sindri's choice: both are keyed by name in the seed).

#include "patch/patch_meta.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace sindri::patch {

namespace {

constexpr FieldRow kFields[] = {
    // metadata
    {"ObjectMeta", "finalizers", "", "merge", ""},
    {"ObjectMeta", "ownerReferences", "", "merge", "uid"},

    // Pod, PodTemplate, PodTemplateSpec and everything inside
    {"Pod", "metadata", "ObjectMeta", "", ""},
    {"Pod", "spec", "PodSpec", "", ""},
    {"Pod", "status", "PodStatus", "", ""},
    {"PodTemplate", "metadata", "ObjectMeta", "", ""},
    {"PodTemplate", "template", "PodTemplateSpec", "", ""},
    {"PodTemplateSpec", "metadata", "ObjectMeta", "", ""},
    {"PodTemplateSpec", "spec", "PodSpec", "", ""},
    {"PodSpec", "volumes", "", "merge,retainKeys", "name"},
    {"PodSpec", "initContainers", "Container", "merge", "name"},
    {"PodSpec", "containers", "Container", "merge", "name"},
    {"PodSpec", "ephemeralContainers", "Container", "merge", "name"},
    {"PodSpec", "imagePullSecrets", "", "merge", "name"},
    {"PodSpec", "hostAliases", "", "merge", "ip"},
    {"PodSpec", "topologySpreadConstraints", "", "merge", "topologyKey"},
    {"PodSpec", "schedulingGates", "", "merge", "name"},
    {"PodSpec", "resourceClaims", "", "merge,retainKeys", "name"},
    {"Container", "ports", "", "merge", "containerPort"},
    {"Container", "env", "", "merge", "name"},
    {"Container", "volumeMounts", "", "merge", "mountPath"},
    {"Container", "volumeDevices", "", "merge", "devicePath"},
    {"PodStatus", "conditions", "", "merge", "type"},
    {"PodStatus", "podIPs", "", "merge", "ip"},
    {"PodStatus", "hostIPs", "", "merge", "ip"},
    {"PodStatus", "resourceClaimStatuses", "", "merge,retainKeys", "name"},

    // apps/v1
    {"Deployment", "metadata", "ObjectMeta", "", ""},
    {"Deployment", "spec", "DeploymentSpec", "", ""},
    {"Deployment", "status", "WorkloadStatus", "", ""},
    {"DeploymentSpec", "template", "PodTemplateSpec", "", ""},
    {"DeploymentSpec", "strategy", "", "retainKeys", ""},
    {"StatefulSet", "metadata", "ObjectMeta", "", ""},
    {"StatefulSet", "spec", "StatefulSetSpec", "", ""},
    {"StatefulSet", "status", "WorkloadStatus", "", ""},
    {"StatefulSetSpec", "template", "PodTemplateSpec", "", ""},
    {"StatefulSetSpec", "volumeClaimTemplates", "PersistentVolumeClaim", "", ""},  // atomic
    {"DaemonSet", "metadata", "ObjectMeta", "", ""},
    {"DaemonSet", "spec", "DaemonSetSpec", "", ""},
    {"DaemonSet", "status", "WorkloadStatus", "", ""},
    {"DaemonSetSpec", "template", "PodTemplateSpec", "", ""},
    {"ReplicaSet", "metadata", "ObjectMeta", "", ""},
    {"ReplicaSet", "spec", "ReplicaSetSpec", "", ""},
    {"ReplicaSet", "status", "WorkloadStatus", "", ""},
    {"ReplicaSetSpec", "template", "PodTemplateSpec", "", ""},
    // The status of every workload, Job, PVC, Service, HPA and PDB: conditions by type.
    {"WorkloadStatus", "conditions", "", "merge", "type"},

    // batch/v1
    {"Job", "metadata", "ObjectMeta", "", ""},
    {"Job", "spec", "JobSpec", "", ""},
    {"Job", "status", "WorkloadStatus", "", ""},
    {"JobSpec", "template", "PodTemplateSpec", "", ""},
    {"CronJob", "metadata", "ObjectMeta", "", ""},
    {"CronJob", "spec", "CronJobSpec", "", ""},
    {"CronJobSpec", "jobTemplate", "JobTemplateSpec", "", ""},
    {"JobTemplateSpec", "metadata", "ObjectMeta", "", ""},
    {"JobTemplateSpec", "spec", "JobSpec", "", ""},

    // core/v1 objects other than pods
    {"Service", "metadata", "ObjectMeta", "", ""},
    {"Service", "spec", "ServiceSpec", "", ""},
    {"Service", "status", "WorkloadStatus", "", ""},
    {"ServiceSpec", "ports", "", "merge", "port"},
    {"ConfigMap", "metadata", "ObjectMeta", "", ""},
    {"Secret", "metadata", "ObjectMeta", "", ""},
    {"PersistentVolumeClaim", "metadata", "ObjectMeta", "", ""},
    {"PersistentVolumeClaim", "status", "WorkloadStatus", "", ""},
    {"ServiceAccount", "metadata", "ObjectMeta", "", ""},
    {"ServiceAccount", "secrets", "", "merge", "name"},

    // networking.k8s.io/v1, rbac.authorization.k8s.io/v1: every list is atomic
    {"Ingress", "metadata", "ObjectMeta", "", ""},
    {"NetworkPolicy", "metadata", "ObjectMeta", "", ""},
    {"Role", "metadata", "ObjectMeta", "", ""},
    {"ClusterRole", "metadata", "ObjectMeta", "", ""},
    {"RoleBinding", "metadata", "ObjectMeta", "", ""},
    {"ClusterRoleBinding", "metadata", "ObjectMeta", "", ""},

    // autoscaling/v2, policy/v1
    {"HorizontalPodAutoscaler", "metadata", "ObjectMeta", "", ""},
    {"HorizontalPodAutoscaler", "status", "WorkloadStatus", "", ""},
    {"PodDisruptionBudget", "metadata", "ObjectMeta", "", ""},
    {"PodDisruptionBudget", "spec", "PodDisruptionBudgetSpec", "", ""},
    {"PodDisruptionBudget", "status", "WorkloadStatus", "", ""},
    {"PodDisruptionBudgetSpec", "selector", "", "replace", ""},

    // leaderworkerset.x-k8s.io/v1
    {"LeaderWorkerSet", "metadata", "ObjectMeta", "", ""},
    {"LeaderWorkerSet", "spec", "LeaderWorkerSetSpec", "", ""},
    {"LeaderWorkerSetSpec", "leaderWorkerTemplate", "LeaderWorkerTemplate", "", ""},
    {"LeaderWorkerTemplate", "leaderTemplate", "PodTemplateSpec", "", ""},
    {"LeaderWorkerTemplate", "workerTemplate", "PodTemplateSpec", "", ""},

    // workloads.x-k8s.io/v1alpha1
    {"RoleBasedGroup", "metadata", "ObjectMeta", "", ""},
    {"RoleBasedGroup", "spec", "RoleBasedGroupSpec", "", ""},
    {"RoleBasedGroupSpec", "roles", "RoleSpec", "merge", "name"},
    {"RoleBasedGroupSpec", "roleTemplates", "RoleTemplate", "merge", "name"},
    {"RoleTemplate", "template", "PodTemplateSpec", "", ""},
    {"RoleSpec", "template", "PodTemplateSpec", "", ""},
    {"RoleSpec", "templatePatch", "PodTemplateSpec", "", ""},
    {"RoleSpec", "leaderWorkerSet", "RoleLeaderWorkerSet", "", ""},
    {"RoleLeaderWorkerSet", "patchLeaderTemplate", "PodTemplateSpec", "", ""},
    {"RoleLeaderWorkerSet", "patchWorkerTemplate", "PodTemplateSpec", "", ""},
};

constexpr KindRow kKinds[] = {
    {"", "Pod", "Pod"},
    {"", "PodTemplate", "PodTemplate"},
    {"", "Service", "Service"},
    {"", "ConfigMap", "ConfigMap"},
    {"", "Secret", "Secret"},
    {"", "PersistentVolumeClaim", "PersistentVolumeClaim"},
    {"", "ServiceAccount", "ServiceAccount"},
    {"apps", "Deployment", "Deployment"},
    {"apps", "StatefulSet", "StatefulSet"},
    {"apps", "DaemonSet", "DaemonSet"},
    {"apps", "ReplicaSet", "ReplicaSet"},
    {"batch", "Job", "Job"},
    {"batch", "CronJob", "CronJob"},
    {"networking.k8s.io", "Ingress", "Ingress"},
    {"networking.k8s.io", "NetworkPolicy", "NetworkPolicy"},
    {"rbac.authorization.k8s.io", "Role", "Role"},
    {"rbac.authorization.k8s.io", "ClusterRole", "ClusterRole"},
    {"rbac.authorization.k8s.io", "RoleBinding", "RoleBinding"},
    {"rbac.authorization.k8s.io", "ClusterRoleBinding", "ClusterRoleBinding"},
    {"autoscaling", "HorizontalPodAutoscaler", "HorizontalPodAutoscaler"},
    {"policy", "PodDisruptionBudget", "PodDisruptionBudget"},
    {"leaderworkerset.x-k8s.io", "LeaderWorkerSet", "LeaderWorkerSet"},
    {"workloads.x-k8s.io", "RoleBasedGroup", "RoleBasedGroup"},
};

FieldMeta to_meta(const FieldRow& row) {
  FieldMeta meta;
  meta.type = row.type;
  meta.merge_key = row.merge_key;
  std::string_view rest = row.strategy;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string_view part = rest.substr(0, comma);
    if (part == "merge") meta.strategy = Strategy::Merge;
    if (part == "replace") meta.strategy = Strategy::Replace;
    if (part == "retainKeys") meta.retain_keys = true;
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
  return meta;
}

struct IndexedField {
  std::string_view owner;
  std::string_view field;
  FieldMeta meta;
};

// Sorted by (owner, field) once, for binary search.
const std::vector<IndexedField>& index() {
  static const std::vector<IndexedField> sorted = [] {
    std::vector<IndexedField> rows;
    for (const FieldRow& row : kFields) rows.push_back({row.owner, row.field, to_meta(row)});
    std::sort(rows.begin(), rows.end(), [](const IndexedField& a, const IndexedField& b) {
      return a.owner != b.owner ? a.owner < b.owner : a.field < b.field;
    });
    return rows;
  }();
  return sorted;
}

}  // namespace

FieldMeta field_meta(std::string_view owner, std::string_view field) {
  if (owner.empty()) return {};
  const auto& rows = index();
  auto it = std::lower_bound(rows.begin(), rows.end(), std::pair{owner, field},
                             [](const IndexedField& row, const auto& key) {
                               return row.owner != key.first ? row.owner < key.first
                                                             : row.field < key.second;
                             });
  if (it == rows.end() || it->owner != owner || it->field != field) return {};
  return it->meta;
}

std::string_view type_for_kind(std::string_view api_version, std::string_view kind) {
  const size_t slash = api_version.find('/');
  const std::string_view group =
      slash == std::string_view::npos ? std::string_view{} : api_version.substr(0, slash);
  for (const KindRow& row : kKinds) {
    if (row.kind == kind && row.group == group) return row.type;
  }
  return {};
}

std::span<const FieldRow> field_rows() { return kFields; }
std::span<const KindRow> kind_rows() { return kKinds; }

}  // namespace sindri::patch
