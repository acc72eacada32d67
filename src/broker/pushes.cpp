#include "broker/pushes.hpp"

#include "broker/agent_channels.hpp"
#include "broker/db/agent_targets.hpp"
#include "broker/db/deployment_objects.hpp"
#include "broker/db/stacks.hpp"
#include "broker/db/work_orders.hpp"
#include "broker/fleet_record.hpp"
#include "broker/live_views.hpp"
#include "broker/notices.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker {
namespace {

std::string text_member(const Value& notice, std::string_view key) {
  const Value* member = notice.find(key);
  return member != nullptr && member->is_string() ? std::string(member->get_string()) : std::string();
}

// A socket's queue holds 4 MiB: YAML past this stays out of a frame (the
// agent reads a work order it claims; a viewer reads the object by id).
constexpr size_t kMaxFrameYaml = 1024 * 1024;

Value within_frame_limit(Value object, bool mark) {
  const Value* yaml = object.find("yaml_content");
  if (yaml == nullptr || !yaml->is_string() || yaml->get_string().size() <= kMaxFrameYaml) return object;
  object.set("yaml_content", Value(""));
  if (mark) object.set("yaml_content_omitted", Value(true));
  return object;
}

// The target of a target_changed that names no one target, as Brokkr's
// broker sends it: nil ids beside the agent's.
Value unnamed_target(const std::string& agent_id) {
  constexpr std::string_view kNil = "00000000-0000-0000-0000-000000000000";
  return make_object({{"id", Value(kNil)}, {"agent_id", Value(agent_id)}, {"stack_id", Value(kNil)}});
}

void warn_not_delivered(const Services& services, std::string_view what, std::string_view about_key,
                        const std::string& about, const ApiError& error) {
  services.log.warn(std::string(what) + " not delivered",
                    {{std::string(about_key), Value(about)},
                     {"cause", Value(error.cause ? error.cause->message : error.message)}});
}

void deliver_target_changed(const Services& services, const Value& target) {
  const std::string agent_id = text_member(target, "agent_id");
  if (agent_id.empty() || services.agent_channels->connected_among({agent_id}).empty()) return;
  // The agent polls at once: this broker must not answer from counters
  // read before the change.
  services.note_write();
  services.agent_channels->push({agent_id}, channel_frame("target_changed", target));
}

void deliver_stack_changed(const Services& services, const std::string& stack_id, const std::string& object_id) {
  const bool agents_here = !services.agent_channels->empty();
  const bool viewed_here = !object_id.empty() && services.live_views->watched(stack_id);
  if (!agents_here && !viewed_here) return;
  struct Recipients {
    std::vector<std::string> agents;
    Value stack;
    Value object;
  };
  auto recipients = in_read<Recipients>(services.db, [&](store::Connection& connection) -> ApiResult<Recipients> {
    Recipients found;
    if (viewed_here) {
      SINDRI_TRY(object, db::load_deployment_object(connection, object_id));
      found.object = std::move(object);
    }
    if (!agents_here) return found;
    SINDRI_TRY(targeting, db::agents_targeting(connection, stack_id));
    found.agents = services.agent_channels->connected_among(targeting);
    if (found.agents.empty()) return found;
    // A deleted stack too: its deletion marker is what agents must fetch.
    SINDRI_TRY(stack, db::load_any_stack(connection, stack_id));
    found.stack = std::move(stack);
    return found;
  });
  if (!recipients.ok()) return warn_not_delivered(services, "stack_changed", "stack_id", stack_id, recipients.error());
  if (!recipients->object.is_null()) {
    services.live_views->publish_stack(stack_id,
                                       channel_frame("deployment_object", within_frame_limit(recipients->object, true)));
  }
  if (recipients->agents.empty()) return;
  services.note_write();
  services.agent_channels->push(recipients->agents, channel_frame("stack_changed", recipients->stack));
}

void deliver_work_order(const Services& services, const std::string& work_order_id) {
  if (services.agent_channels->empty()) return;
  struct Recipients {
    std::vector<std::string> agents;
    Value work_order;
  };
  auto recipients = in_read<Recipients>(services.db, [&](store::Connection& connection) -> ApiResult<Recipients> {
    SINDRI_TRY(targeted, db::agents_targeted_by_work_order(connection, work_order_id));
    std::vector<std::string> agents = services.agent_channels->connected_among(targeted);
    if (agents.empty()) return Recipients{};
    SINDRI_TRY(active, db::find_work_order(connection, work_order_id));
    // Claimed and completed already: nothing to push.
    if (!active) return Recipients{};
    return Recipients{std::move(agents), std::move(*active)};
  });
  if (!recipients.ok()) return warn_not_delivered(services, "work_order", "work_order_id", work_order_id, recipients.error());
  if (recipients->agents.empty()) return;
  services.note_write();
  // Brokkr's agents decode a WorkOrder: the member stays, empty.
  services.agent_channels->push(recipients->agents,
                                channel_frame("work_order", within_frame_limit(recipients->work_order, false)));
}

void deliver_fleet_agent(const Services& services, const std::string& agent_id) {
  if (services.live_views->fleet_viewers() == 0) return;
  auto record = in_read<Value>(services.db, [&](store::Connection& connection) {
    return load_fleet_record(connection, agent_id, *services.agent_channels, *services.config.current(),
                             services.broker_id);
  });
  if (!record.ok()) return warn_not_delivered(services, "fleet_update", "agent_id", agent_id, record.error());
  if (record->is_null()) return;
  services.live_views->publish_fleet(channel_frame("fleet_update", *record));
}

void nudge_connected_agents(const Services& services) {
  const std::vector<std::string> agents = services.agent_channels->connected();
  if (agents.empty()) return;
  services.note_write();
  for (const std::string& agent_id : agents) {
    services.agent_channels->push({agent_id}, channel_frame("target_changed", unnamed_target(agent_id)));
  }
}

}  // namespace

Value target_changed_notice(const Value& target) {
  return make_object({{"kind", Value("target_changed")}, {"target", target}});
}

Value targets_changed_notice(Array targets) {
  return make_object({{"kind", Value("targets_changed")}, {"targets", Value(std::move(targets))}});
}

Value agent_retargeted_notice(const std::string& agent_id) { return target_changed_notice(unnamed_target(agent_id)); }

Value stack_changed_notice(const std::string& stack_id, const std::string& object_id) {
  Value notice = make_object({{"kind", Value("stack_changed")}, {"stack_id", Value(stack_id)}});
  if (!object_id.empty()) notice.set("object_id", Value(object_id));
  return notice;
}

Value work_order_notice(const std::string& work_order_id) {
  return make_object({{"kind", Value("work_order")}, {"work_order_id", Value(work_order_id)}});
}

Value viewers_closed_notice(const std::string& viewer, const std::string& reason) {
  return make_object({{"kind", Value("viewers_closed")}, {"viewer", Value(viewer)}, {"reason", Value(reason)}});
}

Value agent_closed_notice(const std::string& agent_id, const std::string& reason) {
  return make_object({{"kind", Value("agent_closed")}, {"agent_id", Value(agent_id)}, {"reason", Value(reason)}});
}

void show_on_stack(const Services& services, const std::string& stack_id, std::string_view type, const Value& body) {
  // The frame is built only for someone who may watch.
  if (!services.notices->carries() && !services.live_views->watched(stack_id)) return;
  services.notices->publish(make_object(
      {{"kind", Value("stack_frame")}, {"stack_id", Value(stack_id)}, {"frame", Value(channel_frame(type, body))}}));
}

void show_fleet_agent(const Services& services, const std::string& agent_id) {
  if (!services.notices->carries() && services.live_views->fleet_viewers() == 0) return;
  services.notices->publish(make_object({{"kind", Value("fleet_agent")}, {"agent_id", Value(agent_id)}}));
}

void deliver_notice(const Services& services, const Value& notice) {
  const std::string kind = text_member(notice, "kind");
  if (kind == "target_changed") {
    if (const Value* target = notice.find("target")) deliver_target_changed(services, *target);
  } else if (kind == "targets_changed") {
    const Value* targets = notice.find("targets");
    if (targets == nullptr || !targets->is_array()) return;
    for (const Value& target : targets->get_array()) deliver_target_changed(services, target);
  } else if (kind == "stack_changed") {
    deliver_stack_changed(services, text_member(notice, "stack_id"), text_member(notice, "object_id"));
  } else if (kind == "work_order") {
    deliver_work_order(services, text_member(notice, "work_order_id"));
  } else if (kind == "agent_closed") {
    services.agent_channels->close(text_member(notice, "agent_id"), 1008, text_member(notice, "reason"));
  } else if (kind == "viewers_closed") {
    services.live_views->close_viewers(text_member(notice, "viewer"), 1008, text_member(notice, "reason"));
  } else if (kind == "stack_frame") {
    services.live_views->publish_stack(text_member(notice, "stack_id"), text_member(notice, "frame"));
  } else if (kind == "fleet_agent") {
    deliver_fleet_agent(services, text_member(notice, "agent_id"));
  }
}

void catch_up_after_missed_notices(const Services& services) {
  // 1012 (service restart): a viewer opens the view again after reading
  // the history it may have missed.
  services.live_views->close_all(1012, "this broker may have missed frames; read the history and open the view again");
  nudge_connected_agents(services);
}


}  // namespace sindri::broker
