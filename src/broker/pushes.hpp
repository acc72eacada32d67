#pragma once
// The notices (notices.hpp) changes make, and their delivery to this
// broker's sockets: pushes to agents are hints that make an agent poll at
// once, never the state itself; live viewers get copies of what was stored.

#include <string>
#include <string_view>
#include "broker/context.hpp"

namespace sindri::broker {

// A write's control notices (notices.hpp), for it to stage in its
// transaction and deliver once committed (StagedNotices):
// target_changed, with the target row {id, agent_id, stack_id}, to its agent.
Value target_changed_notice(const Value& target);
// target_changed to each target's agent, in one notice (a label change may
// retarget a fleet).
Value targets_changed_notice(Array targets);
// target_changed naming no one target (nil ids), as after a deregistration.
Value agent_retargeted_notice(const std::string& agent_id);
// stack_changed, with the stack, to every agent that targets it (a new
// deployment object, the stack deleted); the new object `object_id`, when
// given, to the stack's live viewers (read by a broker that has some: the
// notice itself stays small).
Value stack_changed_notice(const std::string& stack_id, const std::string& object_id = {});
// work_order, with the work order, to every agent it targets (name, label
// or annotation).
Value work_order_notice(const std::string& work_order_id);
// Closes the agent's socket wherever it is open (1008, `reason`).
Value agent_closed_notice(const std::string& agent_id, const std::string& reason);
// Closes the live views `viewer` (Identity::key) opened (1008, `reason`).
Value viewers_closed_notice(const std::string& viewer, const std::string& reason);

// A frame {type, body} for the stack's live viewers.
void show_on_stack(const Services& services, const std::string& stack_id, std::string_view type, const Value& body);
// A fleet_update of the agent for fleet viewers.
void show_fleet_agent(const Services& services, const std::string& agent_id);

// Hands a notice, published here or by another broker, to this broker's sockets.
void deliver_notice(const Services& services, const Value& notice);
// After notices from other brokers may have been missed: asks every agent
// connected here to poll its target state at once (with target_changed
// frames naming no one target), and closes every live view here (1012) for
// its viewer to read the history and open it again.
void catch_up_after_missed_notices(const Services& services);

}  // namespace sindri::broker
