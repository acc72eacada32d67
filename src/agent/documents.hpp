#pragma once
// A deployment object's YAML as the documents a sink applies: split, empty
// documents skipped, checked to name a kind and a name, annotated with the
// agent's tracking keys (Brokkr's names, k8s/objects.rs), Namespaces and
// CustomResourceDefinitions first.

#include <string>
#include <string_view>
#include <vector>

#include "agent/sink.hpp"
#include "value/result.hpp"
#include "value/value.hpp"

namespace sindri::agent {

inline constexpr std::string_view kStackAnnotation = "k8s.brokkr.io/stack";
inline constexpr std::string_view kChecksumAnnotation = "k8s.brokkr.io/deployment-checksum";
inline constexpr std::string_view kDeploymentObjectIdAnnotation = "brokkr.io/deployment-object-id";
// Brokkr stores the deployment object's checksum here (a bounded value, only
// ever checked for presence), not the whole document.
inline constexpr std::string_view kLastConfigAnnotation = "k8s.brokkr.io/last-config-applied";
inline constexpr std::string_view kOwnerAnnotation = "brokkr.io/owner-id";

struct PreparedDocument {
  size_t index = 0;  // 1-based position in the deployment object's YAML (empty documents counted)
  Value object;      // annotated
  std::string api_version, kind, name, namespace_;  // namespace_ as written, "" if none
  // "document 2 (apps/v1 Deployment web)", for messages.
  std::string describe() const;
};

// The documents of `object`, or an error naming the document and what is wrong
// (unparseable YAML, not a mapping, no apiVersion, kind or metadata.name).
Result<std::vector<PreparedDocument>> prepare_documents(const DeploymentObject& object, std::string_view owner_id);

// The annotation `key` of a Kubernetes object, "" if absent.
std::string_view annotation_of(const Value& object, std::string_view key);

}  // namespace sindri::agent
