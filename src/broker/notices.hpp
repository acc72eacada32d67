#pragma once
// Notices: what a committed change must tell the sockets connected to every
// broker, as JSON objects {"kind": ...}:
//   target_changed {target}          the target's agent polls at once
//   targets_changed {targets}        each target's agent polls at once
//   stack_changed {stack_id, object_id?}
//                                    every agent targeting the stack polls;
//                                    the stack's viewers see the new object
//   work_order {work_order_id}       every agent it targets runs a task pass
//   agent_closed {agent_id, reason}  its socket closes (PAK rotated, deleted)
//   viewers_closed {viewer, reason}  the live views that identity opened close
//   stack_frame {stack_id, frame}    a frame for the stack's live viewers
//   fleet_agent {agent_id}           a fleet_update for fleet viewers
// The first six are a write's control notices, staged in its transaction
// (StagedNotices): where brokers share a database (PostgreSQL) they reach
// the others with the commit and never without it. The last two, copies
// for viewers, are published after the fact and carried asynchronously
// (notice_bus.hpp). Either way a notice is delivered to this broker's
// sockets once the change committed. Notices are hints and copies: what
// they say is in the database, which agents poll and viewers read, so a
// lost one costs a wait, never data.

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "broker/api_error.hpp"
#include "store/database.hpp"

namespace sindri::broker {

class Notices {
 public:
  using Deliver = std::function<void(const Value& notice)>;
  using Carry = std::function<void(const Value& notice)>;
  using Stage = std::function<ApiResult<Ok>(store::Connection& connection, const Value& notice)>;

  // `deliver` hands a notice to this broker's sockets.
  explicit Notices(Deliver deliver) : deliver_(std::move(deliver)) {}

  // Set once before serving: how notices reach the other brokers, after
  // the fact and within a transaction, and whether there are any now.
  void carry_with(Carry carry, Stage stage, std::function<bool()> others_present) {
    carry_ = std::move(carry);
    stage_ = std::move(stage);
    others_present_ = std::move(others_present);
  }
  // Whether notices go to other brokers too.
  bool carries() const { return carry_ && others_present_(); }

  // A copy for viewers: delivered here, and carried to the others.
  void publish(const Value& notice) const;
  // A control notice within the write's transaction; see StagedNotices.
  ApiResult<Ok> stage(store::Connection& connection, const Value& notice) const;
  void deliver_here(const Value& notice) const { deliver_(notice); }

 private:
  Deliver deliver_;
  Carry carry_;
  Stage stage_;
  std::function<bool()> others_present_;
};

// The control notices of one write: stage() them in its transaction (which
// may run again: a notice staged twice is kept once), deliver() them here
// once it committed.
class StagedNotices {
 public:
  explicit StagedNotices(const Notices& notices) : notices_(notices) {}
  ApiResult<Ok> stage(store::Connection& connection, Value notice);
  void deliver() const;

 private:
  const Notices& notices_;
  std::vector<Value> staged_;
  std::set<std::string> texts_;  // staged_ as JSON, for the dedupe
};

}  // namespace sindri::broker
