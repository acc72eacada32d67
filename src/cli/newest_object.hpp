#pragma once
// A stack's newest deployment object, which `apply` and `diff` compare
// manifests with (what the stack's agents apply now), and the one rule of
// that comparison, so that the two verbs cannot disagree: per Kubernetes
// object (API group, kind, namespace, name), each side as kubectl prints
// YAML. Comments, layout, key and document order do not count.

#include <string>
#include <vector>

#include "cli/broker_client.hpp"
#include "cli/manifest_files.hpp"
#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::cli {

// The object of the highest sequence id (GET /stacks/{id}/deployment-objects),
// null when the stack has none.
Result<Value> newest_deployment_object(BrokerClient& client, const Value& stack);

// One object as the stored side and the files give it; either may be null.
struct ObjectPair {
  const Manifest* stored = nullptr;
  const Manifest* file = nullptr;
};

// The files' objects in their order, each with the first stored object of
// the same identity not paired yet, then the stored objects left over.
std::vector<ObjectPair> paired_objects(const std::vector<Manifest>& stored, const std::vector<Manifest>& files);

// One side of a pair as it is compared (and diffed): the manifest as kubectl
// prints YAML, "" when that side has no such object.
std::string compared_yaml(const Manifest* side);

// Whether the files hold what is stored: the same objects, each equal as
// data; exactly when `sindri diff` prints nothing.
bool same_content(const std::vector<Manifest>& stored, const std::vector<Manifest>& files);

// Whether `newest` (a deployment object, or null) holds what the files do,
// as same_content says: apply's "unchanged". Never for null or a deletion
// marker (diff adds everything to those), nor for content that does not
// read as manifests (the files do, so it differs).
bool holds_same_content(const Value& newest, const std::vector<Manifest>& files);

}  // namespace sindri::cli
