#pragma once
// From the broker's full target state to calls on a sink. Per stack the
// newest deployment object counts: a changed one is applied and, once it
// succeeded, what the stack held under other checksums is pruned; a deletion
// marker, or a stack that left the target state, has everything pruned. A
// target state that changed nothing (same ids, same checksums) costs a map
// lookup per stack. What the sink already holds seeds the state, so a
// restart orphans nothing; the first pass after it applies each stack
// still wanted once more (server-side apply is idempotent), as the run
// that died may have stopped in the middle of that stack's apply.

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "agent/sink.hpp"
#include "value/result.hpp"

namespace sindri::agent {

// Told after each deployment object applied (or tried), for the DEPLOY event.
using ApplyReport = std::function<void(const DeploymentObject&, const ApplyOutcome&)>;
using Log = std::function<void(const std::string&)>;

class Reconciler {
 public:
  Reconciler(Sink& sink, ApplyReport report, Log log);

  // Reads what the sink holds for this agent.
  Status seed();

  // One pass over a full target state. With `resync`, every object is applied
  // again (and failed ones retried). Returns after the current object once
  // `stopping` is set.
  void reconcile(const std::vector<DeploymentObject>& target_state, bool resync, const std::atomic<bool>& stopping);

  // The ids of the deployment objects applied successfully and still wanted.
  std::vector<std::string> applied_object_ids() const;
  // Count of sink applies and prunes so far (tests check a quiet poll does none).
  size_t applies() const { return applies_; }
  size_t prunes() const { return prunes_; }

 private:
  struct StackState {
    std::string object_id;  // "" when seeded from the sink
    std::string checksum;   // "" when the sink held several (an apply cut short)
    bool applied = false;   // the object's apply succeeded
    bool pruned = false;    // other checksums are gone
    // Applied by this run; a stack seeded from the sink may be half applied
    // (a restart in the middle of its apply), so it is applied once again.
    bool verified = true;
  };
  void apply(const DeploymentObject& object, StackState& state);
  bool prune(const std::string& stack_id, const std::string& keep_checksum);

  Sink& sink_;
  ApplyReport report_;
  Log log_;
  std::map<std::string, StackState, std::less<>> stacks_;
  size_t applies_ = 0;
  size_t prunes_ = 0;
};

}  // namespace sindri::agent
