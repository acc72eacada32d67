#include "agent/reconciler.hpp"

namespace sindri::agent {

Reconciler::Reconciler(Sink& sink, ApplyReport report, Log log)
    : sink_(sink), report_(std::move(report)), log_(std::move(log)) {}

Status Reconciler::seed() {
  auto owned = sink_.owned();
  if (!owned.ok()) return make_error("reading what " + std::string(sink_.name()) + " holds: " + owned.error().message);
  for (const OwnedStack& stack : *owned) {
    StackState& state = stacks_[stack.stack_id];
    state.checksum = stack.checksums.size() == 1 ? stack.checksums.front() : std::string();
    state.applied = !state.checksum.empty();
    state.pruned = state.applied;
    state.verified = false;
  }
  return Ok{};
}

bool Reconciler::prune(const std::string& stack_id, const std::string& keep_checksum) {
  ++prunes_;
  auto pruned = sink_.prune(stack_id, keep_checksum);
  if (!pruned.ok()) log_("pruning stack " + stack_id + ": " + pruned.error().message);
  return pruned.ok();
}

void Reconciler::apply(const DeploymentObject& object, StackState& state) {
  ++applies_;
  const ApplyOutcome outcome = sink_.apply(object);
  report_(object, outcome);
  state.object_id = object.id;
  state.checksum = object.checksum;
  state.applied = outcome.success;
  state.pruned = false;
  state.verified = true;
  // A failed object keeps what the stack held before; it is tried again at
  // the next resync or when the broker hands a newer object.
  if (outcome.success) state.pruned = prune(object.stack_id, object.checksum);
}

void Reconciler::reconcile(const std::vector<DeploymentObject>& target_state, bool resync,
                           const std::atomic<bool>& stopping) {
  // The newest object of each stack: the broker lists them oldest first.
  std::map<std::string_view, const DeploymentObject*> newest;
  for (const DeploymentObject& object : target_state) newest[object.stack_id] = &object;

  for (const DeploymentObject& object : target_state) {
    if (stopping) return;
    if (newest[object.stack_id] != &object) continue;
    auto known = stacks_.find(object.stack_id);
    if (object.is_deletion_marker) {
      if (known == stacks_.end()) continue;
      if (prune(object.stack_id, "")) {
        stacks_.erase(known);
        report_(object, {true, "deleted what stack " + object.stack_id + " held"});
      }
      continue;
    }
    if (known == stacks_.end()) {
      apply(object, stacks_[object.stack_id]);
      continue;
    }
    StackState& state = known->second;
    const bool same = state.checksum == object.checksum && (state.object_id.empty() || state.object_id == object.id);
    if (!same || resync || !state.verified) {
      apply(object, state);
    } else if (state.applied && !state.pruned) {
      state.pruned = prune(object.stack_id, object.checksum);
    } else if (state.object_id.empty()) {
      state.object_id = object.id;  // seeded from the sink, now known by id
    }
  }
  // Stacks that left the target state.
  for (auto it = stacks_.begin(); it != stacks_.end() && !stopping;) {
    if (newest.count(it->first) == 0 && prune(it->first, "")) {
      it = stacks_.erase(it);
    } else {
      ++it;
    }
  }
}

std::vector<std::string> Reconciler::applied_object_ids() const {
  std::vector<std::string> ids;
  for (const auto& [stack_id, state] : stacks_) {
    if (state.applied && !state.object_id.empty()) ids.push_back(state.object_id);
  }
  return ids;
}

}  // namespace sindri::agent
