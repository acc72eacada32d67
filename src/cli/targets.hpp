#pragma once
// The stacks a template may be instantiated into (`template targets`) and
// the stacks an agent deploys (`agent targets`): both are rows naming a
// stack_id, shown with the stack's name.

#include <string>
#include <string_view>

#include "cli/broker_client.hpp"

namespace sindri::cli {

// GET `path` (rows with a stack_id) and prints them as -o asks: a table of
// the stacks' NAME, STACK ID and GENERATOR (by name, as names.hpp reads
// them: a deleted stack is "web (deleted)", one the PAK cannot read
// "<deleted or not visible: ID>"; -o wide adds the stack's DESCRIPTION and
// CREATED), or the API's rows; "No WHAT found." when there is none. Returns
// the exit code.
int print_stack_targets(BrokerClient& client, const std::string& path, const std::string& output,
                        std::string_view what);

}  // namespace sindri::cli
