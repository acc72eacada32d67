#pragma once
// RoleBasedGroup role templates (RBG KEP-8): a role either carries a full
// `template`, or names a shared `spec.roleTemplates[]` entry with
// `templateRef` and overlays it with `templatePatch`, merged by strategic
// merge patch with PodTemplateSpec metadata. For LeaderWorkerSet roles the
// `leaderWorkerSet.patchLeaderTemplate` and `patchWorkerTemplate` are each
// applied to that merged base, giving the leader and the worker template.

#include <string>
#include <string_view>
#include <vector>

#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::roles {

struct RoleError {
  std::string role;     // the role's name, "" when the error is not about one role
  std::string pointer;  // JSON pointer into the RoleBasedGroup document
  std::string message;
  // `role "NAME" at POINTER: MESSAGE` (or `POINTER: MESSAGE`).
  std::string describe() const;
};

template <class T>
using RoleResult = Result<T, RoleError>;

enum class WorkloadKind { StatefulSet, LeaderWorkerSet };

struct ResolvedRole {
  std::string name;
  WorkloadKind workload = WorkloadKind::StatefulSet;
  Value spec;  // the role entry as written in spec.roles
  // The PodTemplateSpec of a StatefulSet role; for a LeaderWorkerSet role
  // the merged base that the leader and worker patches apply to.
  Value template_spec;
  Value leader_template;  // LeaderWorkerSet roles only
  Value worker_template;  // LeaderWorkerSet roles only
  // Role revision hash: 16 hex digits of the SHA-256 of the canonical JSON
  // of the resolved template(s), so key order in the source does not matter.
  std::string hash;
};

// Validates and resolves every role of a RoleBasedGroup `spec`, in order.
// Error pointers start with "/spec".
RoleResult<std::vector<ResolvedRole>> resolve_roles(const Value& spec);

struct RoleBasedGroup {
  std::string name;
  std::string namespace_name;  // "" when metadata.namespace is not set
  Value spec;
  std::vector<ResolvedRole> roles;
};

// A whole RoleBasedGroup document (apiVersion workloads.x-k8s.io/*).
RoleResult<RoleBasedGroup> parse_group(const Value& document);

// The `kubectl rbg preview` text of one role: "# Role: NAME (resolved)",
// "---" and the PodTemplateSpec as YAML; a LeaderWorkerSet role gives its
// leader and worker templates, each headed "(resolved leader)" or
// "(resolved worker)".
std::string preview(const ResolvedRole& role);

// What a role sets besides its pod templates (replicas, workload,
// restartPolicy, leaderWorkerSet.size, ...): the role as written without its
// name, template, templateRef, templatePatch and leaderWorkerSet patches,
// with replicas and workload as the workload takes them when they are unset
// (1, apps/v1 StatefulSet), so that writing out a default changes nothing.
Value settings(const ResolvedRole& role);

// 16 hex digits of the SHA-256 of the canonical JSON of `value` (objects
// are kept sorted by key, so to_json is canonical).
std::string content_hash(const Value& value);

// The label every workload of `role` carries with the role's hash.
std::string revision_hash_label(std::string_view role);

// The StatefulSet (apps/v1) or LeaderWorkerSet (leaderworkerset.x-k8s.io/v1)
// of a role, named GROUP-ROLE, labelled with the group, the role and the
// role's revision hash; its pod templates carry the group and role labels,
// which are its selector.
Value workload(const RoleBasedGroup& group, const ResolvedRole& role);

}  // namespace sindri::roles
