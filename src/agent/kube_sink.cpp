#include "agent/kube_sink.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "agent/documents.hpp"

namespace sindri::agent {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::string_view kApplyManager = "brokkr-controller";
constexpr std::string_view kValidationManager = "validation";  // Brokkr's dry runs use this field manager

struct Planned {
  const PreparedDocument* document;
  std::optional<kube::ResourceType> type;  // none until a CRD of the same object makes its kind appear
  std::string ns;                          // "" for a cluster-scoped kind
  // False for a Namespace this stack did not create: it is applied without
  // the agent's owner-id (one no agent created), or with the ownership
  // annotations it carries (one another stack or agent created), so no prune
  // of this stack ever deletes it.
  bool owned = true;
  const Value* existing = nullptr;  // the Namespace as the cluster held it, when not owned
};

// The agent's annotations that say which stack and agent an object belongs to.
constexpr std::string_view kOwnershipAnnotations[] = {kStackAnnotation, kChecksumAnnotation,
                                                      kDeploymentObjectIdAnnotation, kLastConfigAnnotation,
                                                      kOwnerAnnotation};

struct Found {
  kube::ResourceType type;
  Value object;
};

bool is_priority(const PreparedDocument& document) {
  return document.kind == "Namespace" || document.kind == "CustomResourceDefinition";
}

const Value* metadata_member(const Value& object, std::string_view key) {
  const Value* metadata = object.find("metadata");
  return metadata != nullptr ? metadata->find(key) : nullptr;
}

std::string_view metadata_text(const Value& object, std::string_view key) {
  const Value* member = metadata_member(object, key);
  return member != nullptr && member->is_string() ? member->get_string() : std::string_view();
}

bool has_owner_references(const Value& object) {
  const Value* references = metadata_member(object, "ownerReferences");
  return references != nullptr && references->is_array() && references->size() > 0;
}

// The CustomResourceDefinition among the documents that defines this kind, if any.
const Value* defining_crd(const std::vector<PreparedDocument>& documents, const PreparedDocument& wanted) {
  const size_t slash = wanted.api_version.find('/');
  if (slash == std::string::npos) return nullptr;
  const std::string group = wanted.api_version.substr(0, slash);
  for (const PreparedDocument& document : documents) {
    if (document.kind != "CustomResourceDefinition") continue;
    const Value* spec = document.object.find("spec");
    const Value* crd_group = spec != nullptr ? spec->find("group") : nullptr;
    const Value* names = spec != nullptr ? spec->find("names") : nullptr;
    const Value* kind = names != nullptr ? names->find("kind") : nullptr;
    if (crd_group != nullptr && crd_group->is_string() && crd_group->get_string() == group && kind != nullptr &&
        kind->is_string() && kind->get_string() == wanted.kind) {
      return spec;
    }
  }
  return nullptr;
}

bool defined_by_crd(const std::vector<PreparedDocument>& documents, const PreparedDocument& wanted) {
  return defining_crd(documents, wanted) != nullptr;
}

// "Cluster" or "Namespaced", as the defining CRD's spec.scope says; "" if none.
std::string_view crd_scope(const std::vector<PreparedDocument>& documents, const PreparedDocument& wanted) {
  const Value* spec = defining_crd(documents, wanted);
  const Value* scope = spec != nullptr ? spec->find("scope") : nullptr;
  return scope != nullptr && scope->is_string() ? scope->get_string() : std::string_view();
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += (out.empty() ? "" : "; ") + line;
  return out;
}

}  // namespace

KubeSink::KubeSink(kube::Client& client, KubeSinkOptions options) : client_(client), options_(std::move(options)) {}

ApplyOutcome KubeSink::apply(const DeploymentObject& object) {
  // A deletion marker carries nothing to apply: the reconciler prunes its stack.
  if (object.is_deletion_marker) return {true, "deletion marker: nothing to apply"};
  auto prepared = prepare_documents(object, options_.agent_id);
  if (!prepared.ok()) return {false, prepared.error().message};
  const std::vector<PreparedDocument>& documents = prepared.value();
  const std::string default_namespace = options_.watch_namespace.empty() ? "default" : options_.watch_namespace;

  // Every kind is resolved before anything is applied, so an unknown kind
  // changes nothing; only kinds a CRD of this object defines may wait.
  std::vector<Planned> plan;
  for (const PreparedDocument& document : documents) {
    Planned planned{&document, std::nullopt, ""};
    auto type = client_.find_type(document.api_version, document.kind);
    if (type.ok()) {
      planned.type = std::move(type).value();
    } else if (type.error().status != 404 || !defined_by_crd(documents, document)) {
      return {false, document.describe() + ": " + type.error().message};
    }
    // What is placed outside the watched namespace would never be pruned:
    // the agent lists only that namespace (and cluster-scoped kinds).
    const bool namespaced = planned.type ? planned.type->namespaced : crd_scope(documents, document) != "Cluster";
    if (namespaced && !options_.watch_namespace.empty() && !document.namespace_.empty() &&
        document.namespace_ != options_.watch_namespace) {
      return {false, document.describe() + ": namespace " + document.namespace_ +
                         " is outside the namespace the agent watches, " + options_.watch_namespace};
    }
    plan.push_back(std::move(planned));
  }
  auto place = [&](Planned& planned) {
    planned.ns = planned.type->namespaced
                     ? (planned.document->namespace_.empty() ? default_namespace : planned.document->namespace_)
                     : "";
  };
  // The namespace the object goes to, written into it; none for a cluster-scoped kind.
  auto body_of = [](const Planned& planned) {
    Value body = planned.document->object;
    Value metadata = *body.find("metadata");
    if (planned.ns.empty()) {
      metadata.erase("namespace");
    } else {
      metadata.set("namespace", planned.ns);
    }
    if (!planned.owned) {
      Value annotations = *metadata.find("annotations");
      if (annotation_of(*planned.existing, kOwnerAnnotation).empty()) {
        annotations.erase(kOwnerAnnotation);
      } else {
        // Another stack's or agent's: its annotations are applied as they are
        // (all share one field manager, so leaving them out would remove them).
        for (std::string_view key : kOwnershipAnnotations) {
          const std::string_view value = annotation_of(*planned.existing, key);
          if (value.empty()) {
            annotations.erase(key);
          } else {
            annotations.set(key, value);
          }
        }
      }
      metadata.set("annotations", std::move(annotations));
    }
    body.set("metadata", std::move(metadata));
    return body;
  };
  kube::ApplyOptions apply_options;
  apply_options.field_manager = kApplyManager;

  std::vector<Value> existing_namespaces;
  existing_namespaces.reserve(plan.size());  // Planned::existing points into it
  std::vector<std::string> created_namespaces;
  auto fail = [&](std::string message) -> ApplyOutcome {
    // Only namespaces this call created go again; ones that existed are never touched.
    for (const std::string& name : created_namespaces) {
      auto namespace_type = client_.find_type("v1", "Namespace");
      if (namespace_type.ok()) (void)client_.remove(namespace_type.value(), "", name);
    }
    if (!created_namespaces.empty()) {
      message += " (namespaces created for it removed again: " + joined(created_namespaces) + ")";
    }
    return {false, std::move(message)};
  };

  for (Planned& planned : plan) {
    if (!is_priority(*planned.document)) continue;
    place(planned);
    if (planned.document->kind == "Namespace") {
      auto existing = client_.get(*planned.type, "", planned.document->name);
      if (!existing.ok() && existing.error().status == 404) {
        created_namespaces.push_back(planned.document->name);
      } else if (!existing.ok()) {
        return fail(planned.document->describe() + ": " + existing.error().message);
      } else {
        planned.owned = annotation_of(existing.value(), kOwnerAnnotation) == options_.agent_id &&
                        annotation_of(existing.value(), kStackAnnotation) == object.stack_id;
        existing_namespaces.push_back(std::move(existing).value());
        planned.existing = &existing_namespaces.back();
      }
    }
    auto applied = client_.apply(*planned.type, planned.ns, body_of(planned), apply_options);
    if (!applied.ok()) return fail(planned.document->describe() + ": " + applied.error().message);
  }

  // The kinds of CRDs just applied: the API server lists them after a while.
  const auto crd_deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options_.crd_wait));
  auto stopping = [&] { return options_.stopping != nullptr && options_.stopping->load(); };
  for (Planned& planned : plan) {
    while (!planned.type) {
      auto type = client_.find_type(planned.document->api_version, planned.document->kind);
      if (type.ok()) {
        planned.type = std::move(type).value();
      } else if (type.error().status != 404 || Clock::now() >= crd_deadline) {
        return fail(planned.document->describe() + ": " + type.error().message);
      } else if (stopping()) {
        return fail(planned.document->describe() + ": the agent is stopping; its kind is not served yet");
      } else {
        std::this_thread::sleep_for(std::chrono::duration<double>(options_.crd_poll_interval));
      }
    }
    place(planned);
  }

  kube::ApplyOptions dry_run;
  dry_run.field_manager = kValidationManager;
  dry_run.dry_run = true;
  std::vector<std::string> invalid;
  for (const Planned& planned : plan) {
    if (is_priority(*planned.document)) continue;
    auto checked = client_.apply(*planned.type, planned.ns, body_of(planned), dry_run);
    if (!checked.ok()) invalid.push_back(planned.document->describe() + ": " + checked.error().message);
  }
  if (!invalid.empty()) return fail("nothing applied, the dry run refused " + joined(invalid));

  for (const Planned& planned : plan) {
    if (is_priority(*planned.document)) continue;
    auto applied = client_.apply(*planned.type, planned.ns, body_of(planned), apply_options);
    if (!applied.ok()) return fail(planned.document->describe() + ": " + applied.error().message);
  }
  return {true, "applied " + std::to_string(plan.size()) + " document" + (plan.size() == 1 ? "" : "s")};
}

namespace {

// Every object of every listable kind (in the watched namespace, and
// cluster-scoped ones) that this agent owns: objects it applied, carrying its
// owner-id and a stack, and not adopted by a controller (ownerReferences).
// Annotations cannot be selected on by the API server, so this lists every
// kind once: a few dozen requests, for start-up, resync and prunes.
Result<std::vector<Found>> find_owned(kube::Client& client, const KubeSinkOptions& options) {
  auto discovery = client.discovery();
  if (discovery.ok() && discovery->partial()) {
    client.forget_discovery();  // the group versions left out may answer now
    discovery = client.discovery();
  }
  if (!discovery.ok()) return make_error("cannot discover the cluster's kinds: " + discovery.error().message);
  // Kinds left out may hold what the agent applied: "nothing owned" there
  // would make prunes leave it behind and a restart forget it.
  if (discovery->partial()) {
    return make_error("cannot list what the agent owns: the discovery of " + joined(discovery->unavailable) +
                      " keeps answering 503 (Service Unavailable)");
  }
  std::vector<Found> found;
  std::vector<std::string> failures;
  size_t listed = 0;
  for (const kube::ResourceType& type : discovery->types) {
    if (!type.preferred || !type.supports("list") || !type.supports("delete")) continue;
    auto items = client.list(type, type.namespaced ? options.watch_namespace : "");
    if (!items.ok()) {
      // Kinds the agent may not list (RBAC) or that went away hold nothing it applied.
      const int status = items.error().status;
      if (status != 403 && status != 404 && status != 405) failures.push_back(items.error().message);
      continue;
    }
    ++listed;
    for (Value& item : items.value()) {
      if (annotation_of(item, kOwnerAnnotation) != options.agent_id) continue;
      if (annotation_of(item, kStackAnnotation).empty() || has_owner_references(item)) continue;
      found.push_back({type, std::move(item)});
    }
  }
  if (!failures.empty()) return make_error("cannot list what the agent owns: " + joined(failures));
  if (listed == 0) return make_error("cannot list what the agent owns: every listing was refused (check its RBAC)");
  return found;
}

}  // namespace

Status KubeSink::prune(std::string_view stack_id, std::string_view keep_checksum) {
  SINDRI_TRY(owned_objects, find_owned(client_, options_));
  std::vector<const Found*> doomed;
  for (const Found& found : owned_objects) {
    if (annotation_of(found.object, kStackAnnotation) != stack_id) continue;
    if (!keep_checksum.empty() && annotation_of(found.object, kChecksumAnnotation) == keep_checksum) continue;
    doomed.push_back(&found);
  }
  // Namespaced objects before cluster-scoped ones, so that a Namespace goes
  // last. Only namespaces this agent created carry its owner-id (apply leaves
  // it off one that existed), so unlike Brokkr's agent a prune never deletes
  // a namespace, and everything in it, that was there before a stack named it.
  std::stable_partition(doomed.begin(), doomed.end(), [](const Found* found) { return found->type.namespaced; });
  // A Namespace still holding objects this agent keeps (this stack's new
  // version, another stack's) stays: deleting it would delete them with it.
  const std::set<const Found*> doomed_set(doomed.begin(), doomed.end());
  std::set<std::string, std::less<>> namespaces_in_use;
  for (const Found& found : owned_objects) {
    if (found.type.namespaced && !doomed_set.contains(&found)) {
      namespaces_in_use.emplace(metadata_text(found.object, "namespace"));
    }
  }
  std::vector<std::string> failures;
  for (const Found* found : doomed) {
    const bool is_namespace = found->type.group.empty() && found->type.kind == "Namespace";
    if (is_namespace && namespaces_in_use.contains(metadata_text(found->object, "name"))) continue;
    auto removed =
        client_.remove(found->type, metadata_text(found->object, "namespace"), metadata_text(found->object, "name"));
    if (!removed.ok()) failures.push_back(removed.error().message);
  }
  if (!failures.empty()) {
    return make_error("stack " + std::string(stack_id) + ": " + std::to_string(failures.size()) + " of " +
                      std::to_string(doomed.size()) + " deletions failed: " + joined(failures));
  }
  return Ok{};
}

Result<std::vector<OwnedStack>> KubeSink::owned() {
  SINDRI_TRY(owned_objects, find_owned(client_, options_));
  std::map<std::string, std::vector<std::string>, std::less<>> stacks;
  for (const Found& found : owned_objects) {
    std::vector<std::string>& checksums = stacks[std::string(annotation_of(found.object, kStackAnnotation))];
    const std::string checksum(annotation_of(found.object, kChecksumAnnotation));
    if (std::find(checksums.begin(), checksums.end(), checksum) == checksums.end()) checksums.push_back(checksum);
  }
  std::vector<OwnedStack> out;
  for (auto& [stack_id, checksums] : stacks) out.push_back({stack_id, std::move(checksums)});
  return out;
}

}  // namespace sindri::agent
