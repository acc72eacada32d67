#include "roles/roles.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "patch/patch.hpp"
#include "value/digest.hpp"
#include "value/json.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::roles {

namespace {

constexpr std::string_view kPodTemplateSpec = "PodTemplateSpec";
constexpr std::string_view kGroupLabel = "rolebasedgroup.workloads.x-k8s.io/name";
constexpr std::string_view kRoleLabel = "rolebasedgroup.workloads.x-k8s.io/role";

RoleError error_at(std::string role, std::string pointer, std::string message) {
  return RoleError{std::move(role), std::move(pointer), std::move(message)};
}

std::string string_or_empty(const Value* value) {
  return value && value->is_string() ? std::string(value->get_string()) : std::string();
}

// Kubernetes' limit on object names that are DNS labels, and on the name
// part of a label key.
constexpr size_t kMaxLabelLength = 63;

// Lower-case letters, digits and '-', a letter or digit at each end (RFC
// 1123), and with `letter_first` a letter first (RFC 1035: a Service name).
bool is_dns_label(std::string_view name, bool letter_first) {
  const auto alphanumeric = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (name.empty() || !alphanumeric(name.front()) || !alphanumeric(name.back())) return false;
  if (letter_first && !(name.front() >= 'a' && name.front() <= 'z')) return false;
  return std::all_of(name.begin(), name.end(), [&](char c) { return alphanumeric(c) || c == '-'; });
}

// A count the workload takes as it is: a whole number, at least `least`.
std::optional<RoleError> check_count(const Value* count, int64_t least, const std::string& role,
                                     const std::string& pointer, const std::string& field) {
  if (count == nullptr || count->is_null() || (count->is_int() && count->get_int() >= least)) return std::nullopt;
  return error_at(role, pointer, field + " must be a whole number, at least " + std::to_string(least) + ", not " +
                                     to_json(*count));
}

// The roleTemplates by name, each checked for a unique name and a template.
RoleResult<std::vector<std::pair<std::string, Value>>> read_role_templates(const Value& spec) {
  std::vector<std::pair<std::string, Value>> templates;
  const Value* list = spec.find("roleTemplates");
  if (!list || list->is_null()) return templates;
  if (!list->is_array()) return error_at("", "/spec/roleTemplates", "roleTemplates must be a list");
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string pointer = "/spec/roleTemplates/" + std::to_string(i);
    const Value& entry = *list->at(i);
    const std::string name = string_or_empty(entry.find("name"));
    if (name.empty()) return error_at("", pointer + "/name", "a roleTemplate needs a name");
    for (const auto& [seen, unused] : templates) {
      if (seen == name) return error_at("", pointer + "/name", "duplicate roleTemplate name \"" + name + "\"");
    }
    const Value* body = entry.find("template");
    if (!body || !body->is_object()) {
      return error_at("", pointer + "/template", "roleTemplate \"" + name + "\" needs a template object");
    }
    templates.emplace_back(name, *body);
  }
  return templates;
}

RoleResult<WorkloadKind> read_workload(const Value& role, const std::string& name, const std::string& pointer) {
  const Value* workload = role.find("workload");
  WorkloadKind kind = WorkloadKind::StatefulSet;  // RBG's default workload
  if (workload && !workload->is_null()) {
    const std::string api_version = string_or_empty(workload->find("apiVersion"));
    const std::string workload_kind = string_or_empty(workload->find("kind"));
    if (api_version == "apps/v1" && workload_kind == "StatefulSet") {
      kind = WorkloadKind::StatefulSet;
    } else if (api_version == "leaderworkerset.x-k8s.io/v1" && workload_kind == "LeaderWorkerSet") {
      kind = WorkloadKind::LeaderWorkerSet;
    } else {
      return error_at(name, pointer + "/workload",
                      "unsupported workload " + api_version + " " + workload_kind +
                          " (expected apps/v1 StatefulSet or leaderworkerset.x-k8s.io/v1 LeaderWorkerSet)");
    }
  }
  const Value* lws = role.find("leaderWorkerSet");
  if (kind != WorkloadKind::LeaderWorkerSet && lws && !lws->is_null()) {
    return error_at(name, pointer + "/leaderWorkerSet",
                    "leaderWorkerSet applies only to a leaderworkerset.x-k8s.io/v1 LeaderWorkerSet workload");
  }
  return kind;
}

bool is_set(const Value* value) { return value && !value->is_null(); }

// The seed's validation table: without templateRef, template is required
// and templatePatch rejected; with templateRef, the reverse.
RoleResult<Value> base_template(const Value& role, const std::string& name, const std::string& pointer,
                                const std::vector<std::pair<std::string, Value>>& templates) {
  const Value* ref = role.find("templateRef");
  const Value* full = role.find("template");
  const Value* overlay = role.find("templatePatch");
  if (!is_set(ref)) {
    if (is_set(overlay)) {
      return error_at(name, pointer + "/templatePatch", "templatePatch requires templateRef");
    }
    if (!is_set(full)) {
      return error_at(name, pointer + "/template", "template is required when templateRef is not set");
    }
    if (!full->is_object()) return error_at(name, pointer + "/template", "template must be an object");
    return *full;
  }
  if (is_set(full)) {
    return error_at(name, pointer + "/template",
                    "template and templateRef are mutually exclusive (overlay the roleTemplate with templatePatch)");
  }
  if (!ref->is_object()) return error_at(name, pointer + "/templateRef", "templateRef must be an object");
  // The API's templateRef has only a name: roleTemplates are scoped to their group.
  for (const Member& member : ref->get_object()) {
    if (member.key.get_string() != "name") {
      return error_at(name, pointer + "/templateRef/" + std::string(member.key.get_string()),
                      "templateRef may name only a roleTemplate of this RoleBasedGroup; references into "
                      "another group are not supported");
    }
  }
  const std::string ref_name = string_or_empty(ref->find("name"));
  if (ref_name.empty()) return error_at(name, pointer + "/templateRef/name", "templateRef needs a name");
  if (ref_name.find('/') != std::string::npos) {
    return error_at(name, pointer + "/templateRef/name",
                    "templateRef \"" + ref_name + "\" reaches into another group; a roleTemplate can only be "
                    "referenced from its own RoleBasedGroup");
  }
  if (!is_set(overlay)) {
    return error_at(name, pointer + "/templatePatch", "templateRef requires templatePatch");
  }
  if (!overlay->is_object()) return error_at(name, pointer + "/templatePatch", "templatePatch must be an object");
  for (const auto& [template_name, body] : templates) {
    if (template_name != ref_name) continue;
    auto merged = patch::strategic_merge_patch(body, *overlay, kPodTemplateSpec);
    if (!merged) {
      return error_at(name, pointer + "/templatePatch", "cannot merge: " + merged.error().describe());
    }
    return std::move(merged).value();
  }
  return error_at(name, pointer + "/templateRef/name",
                  "templateRef names roleTemplate \"" + ref_name + "\", which spec.roleTemplates does not define");
}

RoleResult<Value> apply_lws_patch(const Value& base, const Value& role, std::string_view field,
                                  const std::string& name, const std::string& pointer) {
  const Value* lws = role.find("leaderWorkerSet");
  const Value* overlay = lws ? lws->find(field) : nullptr;
  if (!is_set(overlay)) return base;
  const std::string where = pointer + "/leaderWorkerSet/" + std::string(field);
  if (!overlay->is_object()) return error_at(name, where, std::string(field) + " must be an object");
  auto merged = patch::strategic_merge_patch(base, *overlay, kPodTemplateSpec);
  if (!merged) return error_at(name, where, "cannot merge: " + merged.error().describe());
  return std::move(merged).value();
}

RoleResult<ResolvedRole> resolve_role(const Value& role, size_t index,
                                      const std::vector<std::pair<std::string, Value>>& templates) {
  const std::string pointer = "/spec/roles/" + std::to_string(index);
  ResolvedRole resolved;
  resolved.spec = role;
  resolved.name = string_or_empty(role.find("name"));
  if (resolved.name.empty()) return error_at("", pointer + "/name", "a role needs a name");
  // It names the role's workload and the label role-revision-hash-NAME.
  const size_t longest = kMaxLabelLength - revision_hash_label("").size();
  if (!is_dns_label(resolved.name, false) || resolved.name.size() > longest) {
    return error_at(resolved.name, pointer + "/name",
                    "a role name is lower-case letters, digits and '-', a letter or digit at each end, at most " +
                        std::to_string(longest) + " characters (it names the label role-revision-hash-NAME)");
  }
  if (auto bad = check_count(role.find("replicas"), 0, resolved.name, pointer + "/replicas", "replicas")) return *bad;
  if (const Value* lws = role.find("leaderWorkerSet"); lws != nullptr && lws->is_object()) {
    if (auto bad = check_count(lws->find("size"), 1, resolved.name, pointer + "/leaderWorkerSet/size",
                               "leaderWorkerSet.size")) {
      return *bad;
    }
  }
  SINDRI_TRY(kind, read_workload(role, resolved.name, pointer));
  resolved.workload = kind;
  SINDRI_TRY(base, base_template(role, resolved.name, pointer, templates));
  resolved.template_spec = std::move(base);
  if (resolved.workload == WorkloadKind::StatefulSet) {
    resolved.hash = content_hash(resolved.template_spec);
    return resolved;
  }
  // Both LWS patches start from the merged base (seed: processing order 4).
  SINDRI_TRY(leader, apply_lws_patch(resolved.template_spec, role, "patchLeaderTemplate", resolved.name, pointer));
  SINDRI_TRY(worker, apply_lws_patch(resolved.template_spec, role, "patchWorkerTemplate", resolved.name, pointer));
  resolved.leader_template = std::move(leader);
  resolved.worker_template = std::move(worker);
  resolved.hash = content_hash(Value(Object{{Value("leaderTemplate"), resolved.leader_template},
                                            {Value("workerTemplate"), resolved.worker_template}}));
  return resolved;
}

Value with_labels(Value target, const Object& labels) {
  if (!target.is_object()) target = Value(Object{});
  Value merged = target.find("labels") && target.find("labels")->is_object() ? *target.find("labels") : Value(Object{});
  for (const Member& label : labels) merged.set(label.key.get_string(), label.value);
  target.set("labels", std::move(merged));
  return target;
}

Value labelled_template(Value pod_template, const Object& labels) {
  const Value* metadata = pod_template.find("metadata");
  pod_template.set("metadata", with_labels(metadata ? *metadata : Value(Object{}), labels));
  return pod_template;
}

}  // namespace

std::string RoleError::describe() const {
  std::string out;
  if (!role.empty()) out += "role \"" + role + "\" at ";
  out += pointer.empty() ? std::string("/") : pointer;
  return out + ": " + message;
}

std::string content_hash(const Value& value) {
  // 16 digits keep the hash usable as a label value (at most 63 characters).
  return sha256_hex(to_json(value)).substr(0, 16);
}

RoleResult<std::vector<ResolvedRole>> resolve_roles(const Value& spec) {
  if (!spec.is_object()) return error_at("", "/spec", "spec must be an object");
  SINDRI_TRY(templates, read_role_templates(spec));
  const Value* list = spec.find("roles");
  if (!list || !list->is_array()) return error_at("", "/spec/roles", "spec.roles must be a list");
  if (list->size() == 0) return error_at("", "/spec/roles", "spec.roles must hold at least one role");
  std::vector<ResolvedRole> resolved;
  std::set<std::string> names;
  for (size_t i = 0; i < list->size(); ++i) {
    SINDRI_TRY(role, resolve_role(*list->at(i), i, templates));
    if (!names.insert(role.name).second) {
      return error_at(role.name, "/spec/roles/" + std::to_string(i) + "/name", "duplicate role name");
    }
    resolved.push_back(std::move(role));
  }
  return resolved;
}

RoleResult<RoleBasedGroup> parse_group(const Value& document) {
  const std::string api_version = string_or_empty(document.find("apiVersion"));
  if (string_or_empty(document.find("kind")) != "RoleBasedGroup" || !api_version.starts_with("workloads.x-k8s.io/")) {
    return error_at("", "", "not a RoleBasedGroup (expected apiVersion workloads.x-k8s.io/*, kind RoleBasedGroup)");
  }
  RoleBasedGroup group;
  const Value* metadata = document.find("metadata");
  group.name = metadata ? string_or_empty(metadata->find("name")) : "";
  if (group.name.empty()) return error_at("", "/metadata/name", "a RoleBasedGroup needs a name");
  // GROUP-ROLE names each workload and a StatefulSet's Service (RFC 1035).
  if (!is_dns_label(group.name, true) || group.name.size() > kMaxLabelLength) {
    return error_at("", "/metadata/name",
                    "a RoleBasedGroup name is lower-case letters, digits and '-', a letter first and a letter or "
                    "digit last, at most 63 characters (it begins the names of its workloads and Services)");
  }
  group.namespace_name = string_or_empty(metadata->find("namespace"));
  const Value* spec = document.find("spec");
  if (!spec) return error_at("", "/spec", "a RoleBasedGroup needs a spec");
  group.spec = *spec;
  SINDRI_TRY(roles, resolve_roles(group.spec));
  group.roles = std::move(roles);
  for (size_t i = 0; i < group.roles.size(); ++i) {
    const std::string workload_name = group.name + "-" + group.roles[i].name;
    if (workload_name.size() > kMaxLabelLength) {
      return error_at(group.roles[i].name, "/spec/roles/" + std::to_string(i) + "/name",
                      "the workload name " + workload_name + " is " + std::to_string(workload_name.size()) +
                          " characters; Kubernetes allows 63");
    }
  }
  return group;
}

std::string preview(const ResolvedRole& role) {
  if (role.workload == WorkloadKind::StatefulSet) {
    return "# Role: " + role.name + " (resolved)\n---\n" + to_yaml(role.template_spec);
  }
  return "# Role: " + role.name + " (resolved leader)\n---\n" + to_yaml(role.leader_template) + "# Role: " +
         role.name + " (resolved worker)\n---\n" + to_yaml(role.worker_template);
}

Value settings(const ResolvedRole& role) {
  Object kept;
  for (const Member& member : role.spec.get_object()) {
    const std::string_view key = member.key.get_string();
    if (key == "name" || key == "template" || key == "templateRef" || key == "templatePatch") continue;
    if (key != "leaderWorkerSet" || !member.value.is_object()) {
      kept.push_back(member);
      continue;
    }
    Object lws;
    for (const Member& field : member.value.get_object()) {
      const std::string_view name = field.key.get_string();
      if (name != "patchLeaderTemplate" && name != "patchWorkerTemplate") lws.push_back(field);
    }
    if (!lws.empty()) kept.push_back(Member{member.key, Value(std::move(lws))});
  }
  Value out(std::move(kept));
  if (!is_set(out.find("replicas"))) out.set("replicas", Value(1));
  if (!is_set(out.find("workload"))) {
    out.set("workload", Value(Object{{Value("apiVersion"), Value("apps/v1")}, {Value("kind"), Value("StatefulSet")}}));
  }
  return out;
}

std::string revision_hash_label(std::string_view role) { return "role-revision-hash-" + std::string(role); }

Value workload(const RoleBasedGroup& group, const ResolvedRole& role) {
  const Object selector{{Value(kGroupLabel), Value(group.name)}, {Value(kRoleLabel), Value(role.name)}};
  Object metadata_labels = selector;
  metadata_labels.push_back({Value(revision_hash_label(role.name)), Value(role.hash)});
  Value metadata(Object{{Value("name"), Value(group.name + "-" + role.name)},
                        {Value("labels"), Value(std::move(metadata_labels))}});
  if (!group.namespace_name.empty()) metadata.set("namespace", Value(group.namespace_name));
  const Value* replicas = role.spec.find("replicas");
  Value spec(Object{{Value("replicas"), replicas ? *replicas : Value(1)}});

  if (role.workload == WorkloadKind::StatefulSet) {
    spec.set("serviceName", Value(group.name + "-" + role.name));
    spec.set("selector", Value(Object{{Value("matchLabels"), Value(selector)}}));
    spec.set("template", labelled_template(role.template_spec, selector));
    return Value(Object{{Value("apiVersion"), Value("apps/v1")},
                        {Value("kind"), Value("StatefulSet")},
                        {Value("metadata"), std::move(metadata)},
                        {Value("spec"), std::move(spec)}});
  }
  Value leader_worker(Object{{Value("leaderTemplate"), labelled_template(role.leader_template, selector)},
                             {Value("workerTemplate"), labelled_template(role.worker_template, selector)}});
  const Value* lws = role.spec.find("leaderWorkerSet");
  if (const Value* size = lws ? lws->find("size") : nullptr) leader_worker.set("size", *size);
  spec.set("leaderWorkerTemplate", std::move(leader_worker));
  return Value(Object{{Value("apiVersion"), Value("leaderworkerset.x-k8s.io/v1")},
                      {Value("kind"), Value("LeaderWorkerSet")},
                      {Value("metadata"), std::move(metadata)},
                      {Value("spec"), std::move(spec)}});
}

}  // namespace sindri::roles
