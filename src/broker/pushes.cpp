#include "broker/pushes.hpp"

#include "broker/agent_channels.hpp"
#include "broker/db/agent_targets.hpp"
#include "broker/db/stacks.hpp"

namespace sindri::broker {

void push_target_changed(const Services& services, const Value& target) {
  const Value* agent_id = target.find("agent_id");
  if (agent_id == nullptr || !agent_id->is_string()) return;
  // The agent polls at once: this broker must not answer from counters
  // read before the change.
  services.note_write();
  services.agent_channels->push({std::string(agent_id->get_string())}, channel_frame("target_changed", target));
}

void push_stack_changed(const Services& services, const std::string& stack_id) {
  if (services.agent_channels->empty()) return;
  struct Notice {
    std::vector<std::string> agents;
    Value stack;
  };
  auto notice = in_read<Notice>(services.db, [&](store::Connection& connection) -> ApiResult<Notice> {
    SINDRI_TRY(targeting, db::agents_targeting(connection, stack_id));
    std::vector<std::string> agents = services.agent_channels->connected_among(targeting);
    if (agents.empty()) return Notice{};
    // A deleted stack too: its deletion marker is what agents must fetch.
    SINDRI_TRY(stack, db::load_any_stack(connection, stack_id));
    return Notice{std::move(agents), std::move(stack)};
  });
  if (!notice.ok()) {
    const ApiError& error = notice.error();
    services.log.warn("stack_changed not pushed",
                      {{"stack_id", Value(stack_id)},
                       {"cause", Value(error.cause ? error.cause->message : error.message)}});
    return;
  }
  if (notice->agents.empty()) return;
  services.note_write();
  services.agent_channels->push(notice->agents, channel_frame("stack_changed", notice->stack));
}

}  // namespace sindri::broker
