#pragma once
// What an agent streams about its stacks over its channel: k8s_event and
// pod_log_line frames, stored in the telemetry tables and shown to the
// stack's live viewers as stored, and log_gap frames, shown only (Brokkr
// stores none). The body is checked field by field (each error names its
// field's JSON pointer within the body), extra fields are ignored as
// Brokkr's agents expect, and the agent must have targeted the stack.

#include <string_view>

#include "broker/context.hpp"

namespace sindri::broker {

bool is_telemetry_frame(std::string_view type);

ApiResult<Ok> take_telemetry(const Services& services, const std::string& agent_id, std::string_view type,
                             const Value& body);

}  // namespace sindri::broker
