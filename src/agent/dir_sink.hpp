#pragma once
// `--sink dir:PATH`: the agent's loop without a cluster. Each document of a
// deployment object becomes PATH/<stack id>/<group>_<kind>_<namespace>_<name>.yaml
// (group `core` for the core API; namespace `_` for the cluster-scoped kinds
// Kubernetes defines; an object without a namespace gets watch_namespace,
// else `default`, as the Kubernetes sink puts it), annotated as the
// Kubernetes sink annotates, written to a temporary name and renamed. What
// the directory holds is read back from the files' annotations, so a
// restart forgets nothing. Committed to git, the directory feeds a GitOps
// tool such as Argo CD or Flux.

#include <filesystem>
#include <string>

#include "agent/sink.hpp"

namespace sindri::agent {

class DirSink : public Sink {
 public:
  DirSink(std::filesystem::path root, std::string owner_id, std::string watch_namespace);

  std::string_view name() const override { return name_; }
  ApplyOutcome apply(const DeploymentObject& object) override;
  Status prune(std::string_view stack_id, std::string_view keep_checksum) override;
  Result<std::vector<OwnedStack>> owned() override;

 private:
  std::filesystem::path root_;
  std::string owner_id_;
  std::string watch_namespace_;
  std::string name_;
};

}  // namespace sindri::agent
