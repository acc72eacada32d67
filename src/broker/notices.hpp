#pragma once
// Notices: what a committed change must tell the sockets connected to every
// broker, as JSON objects {"kind": ...}:
//   target_changed {target}          the target's agent polls at once
//   stack_changed {stack_id}         every agent targeting the stack polls
//   work_order {agent_ids, work_order}
//   agent_closed {agent_id, reason}  its socket closes (PAK rotated, deleted)
//   stack_frame {stack_id, frame}    a frame for the stack's live viewers
//   fleet_agent {agent_id}           a fleet_update for fleet viewers
// A notice is delivered to this broker's sockets at once and, where brokers
// share a database (PostgreSQL), carried to the others (notice_bus.hpp).
// Notices are hints and copies: what they say is in the database, which
// agents poll and viewers read, so a lost one costs a wait, never data.

#include <functional>
#include <string>

#include "value/value.hpp"

namespace sindri::broker {

class Notices {
 public:
  using Deliver = std::function<void(const Value& notice)>;
  using Carry = std::function<void(const Value& notice)>;

  // `deliver` hands a notice to this broker's sockets.
  explicit Notices(Deliver deliver) : deliver_(std::move(deliver)) {}

  // Set once before serving: how a notice reaches the other brokers.
  void carry_with(Carry carry) { carry_ = std::move(carry); }

  // Whether notices go to other brokers too.
  bool carries() const { return static_cast<bool>(carry_); }
  void publish(const Value& notice) const;

 private:
  Deliver deliver_;
  Carry carry_;
};

}  // namespace sindri::broker
