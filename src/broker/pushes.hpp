#pragma once
// Notices to the agents connected over the WebSocket channel, sent after the
// change has committed: hints that make an agent poll its target state at
// once, never the state itself (a lost notice costs only the wait for the
// next poll).

#include <string>

#include "broker/context.hpp"

namespace sindri::broker {

// target_changed, with the target row {id, agent_id, stack_id}, to its agent.
void push_target_changed(const Services& services, const Value& target);
// stack_changed, with the stack, to every agent that targets it: a new
// deployment object. Reads the database only when an agent is connected.
void push_stack_changed(const Services& services, const std::string& stack_id);

}  // namespace sindri::broker
