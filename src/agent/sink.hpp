#pragma once
// Where the agent puts what the broker hands it: a Kubernetes cluster
// (kube_sink.hpp) or a directory (dir_sink.hpp). The reconciler decides what
// to apply and prune; a sink only carries it out.

#include <string>
#include <string_view>
#include <vector>

#include "value/result.hpp"

namespace sindri::agent {

// One deployment object of the broker's target state.
struct DeploymentObject {
  std::string id, stack_id, stack_name, checksum, yaml;
  bool is_deletion_marker = false;
};

// message names the document index, kind, name and reason.
struct ApplyOutcome {
  bool success = true;
  std::string message;
};

// A stack of which the sink holds objects this agent owns, with the checksums
// of the deployment objects they came from.
struct OwnedStack {
  std::string stack_id;
  std::vector<std::string> checksums;
};

class Sink {
 public:
  virtual ~Sink() = default;
  virtual std::string_view name() const = 0;  // "kubernetes" or "dir:/path"
  // Applies every document (annotated as documents.hpp says); nothing of the
  // object is applied when any document fails validation. Namespaces the call
  // created for an object that then fails are removed again.
  virtual ApplyOutcome apply(const DeploymentObject& object) = 0;
  // Deletes what this agent owns of the stack whose checksum differs from
  // keep_checksum ("" = everything). Never objects with ownerReferences or
  // another agent's owner-id.
  virtual Status prune(std::string_view stack_id, std::string_view keep_checksum) = 0;
  // What this agent owns in the sink now (read from the cluster/directory),
  // so a restart forgets nothing.
  virtual Result<std::vector<OwnedStack>> owned() = 0;
};

}  // namespace sindri::agent
