#include "broker/access.hpp"

#include "broker/db/agent_targets.hpp"
#include "broker/db/deployment_objects.hpp"
#include "broker/db/stacks.hpp"
#include "broker/db/templates.hpp"

namespace sindri::broker {

ApiResult<Ok> check_stack_access(store::Connection& connection, const Identity& caller, const Value& stack,
                                 StackAccess access) {
  if (caller.is_admin()) return Ok{};
  const std::string_view stack_id = field(stack, "id");
  if (caller.kind == Identity::Kind::Generator) {
    if (caller.is_generator(field(stack, "generator_id"))) return Ok{};
    return forbidden("stack_not_owned", "stack " + std::string(stack_id) + " belongs to another generator");
  }
  if (access == StackAccess::Read) {
    SINDRI_TRY(targeted, db::agent_targets_stack(connection, caller.id, stack_id));
    if (targeted) return Ok{};
    return forbidden("stack_not_accessible", "agent " + caller.id + " does not target stack " + std::string(stack_id));
  }
  return forbidden("stack_not_owned", "agents cannot change stacks");
}

ApiResult<Ok> check_template_change(const Identity& caller, const Value& tpl) {
  if (caller.is_admin()) return Ok{};
  const Value* owner = tpl.find("generator_id");
  const std::string id(field(tpl, "id"));
  if (owner == nullptr || !owner->is_string()) {
    return forbidden("template_not_owned", "template " + id + " is a system template: only an admin may change it");
  }
  if (caller.is_generator(owner->get_string())) return Ok{};
  return forbidden("template_not_owned", "template " + id + " belongs to another generator");
}

ApiResult<Value> load_template_for_change(store::Connection& connection, const Identity& caller, std::string_view id) {
  SINDRI_TRY(tpl, db::load_template(connection, id));
  SINDRI_CHECK(check_template_change(caller, tpl));
  SINDRI_CHECK(db::lock_template_name(connection, *tpl.find("generator_id"), field(tpl, "name")));
  return db::load_template(connection, id);
}

ApiResult<Ok> check_template_access(store::Connection& connection, const Identity& caller, std::string_view id,
                                    bool change) {
  if (change) {
    SINDRI_CHECK(load_template_for_change(connection, caller, id));
    return Ok{};
  }
  SINDRI_TRY(tpl, db::load_template(connection, id));
  if (caller.kind == Identity::Kind::Agent) return forbidden("templates_not_accessible", "agents cannot read templates");
  return Ok{};
}

std::string_view field(const Value& record, std::string_view name) {
  const Value* value = record.find(name);
  return value != nullptr && value->is_string() ? value->get_string() : std::string_view();
}

ApiResult<Value> load_readable_object(store::Connection& connection, const Identity& caller, std::string_view id) {
  SINDRI_TRY(object, db::load_deployment_object(connection, id));
  auto stack = db::load_any_stack(connection, field(object, "stack_id"));
  if (!stack.ok() && stack.error().status == 404) return not_found("deployment_object", id);
  SINDRI_CHECK(stack);
  SINDRI_CHECK(check_stack_access(connection, caller, stack.value(), StackAccess::Read));
  return object;
}

}  // namespace sindri::broker
