#pragma once
// `sindri agent run`: the agent itself (src/agent/agent.hpp), its settings
// from a file, variables and these flags (agent/settings.hpp).

#include <CLI/CLI.hpp>
#include <functional>

namespace sindri::cli {

// Adds `run` under the `agent` command; the function runs it once parsed.
struct AgentRunVerb {
  CLI::App* command = nullptr;
  std::function<int()> run;
};
AgentRunVerb add_agent_run(CLI::App& agent_command);

}  // namespace sindri::cli
