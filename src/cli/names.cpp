#include "cli/names.hpp"

#include "http/client.hpp"

namespace sindri::cli {

std::optional<Value> Names::read(const std::string& path, const std::string& what) {
  // The verb fails with the first failure: no more waiting on a broker gone.
  if (failure_) return std::nullopt;
  auto answer = client_.get(path);
  if (answer) return std::move(answer).value();
  if (!client_.last_refused() && !client_.last_not_found()) {
    failure_ = "cannot read " + what + " (GET " + path + "): " + answer.error().message;
  }
  return std::nullopt;
}

std::map<std::string, Value> Names::read_live(const std::string& kind) {
  std::map<std::string, Value> by_id;
  auto add = [&by_id](const Value& items) {
    if (!items.is_array()) return;
    for (const Value& item : items.get_array()) by_id.emplace(cell(item, "id"), item);
  };
  const bool stacks = kind == "stack";
  const std::string what = "the " + kind + "s' names";
  auto listed = read(stacks ? "/stacks" : "/generators", what);
  if (listed) {
    add(*listed);
    return by_id;
  }
  if (!client_.last_refused()) return by_id;
  // An agent reads the stacks it targets; a generator itself.
  auto identity = client_.whoami();
  if (!identity) {
    if (!failure_) failure_ = "cannot read " + what + " (POST /auth/pak): " + identity.error().message;
    return by_id;
  }
  const std::string self = cell(*identity, stacks ? "agent" : "generator");
  if (self == "<none>") return by_id;
  if (stacks) {
    if (auto targeted = read("/agents/" + self + "/stacks", what)) add(*targeted);
  } else if (auto generator = read("/generators/" + self, what)) {
    add(Value(Array{std::move(generator).value()}));
  }
  return by_id;
}

const Value* Names::live(Kind& kind, const std::string& id) {
  if (!kind.live) kind.live = read_live(kind.name);
  auto found = kind.live->find(id);
  return found == kind.live->end() ? nullptr : &found->second;
}

std::string Names::label(Kind& kind, const std::string& id) {
  if (const Value* found = live(kind, id)) return cell(*found, "name");
  if (auto known = kind.deleted.find(id); known != kind.deleted.end()) return known->second;
  std::string shown = "<deleted or not visible: " + id + ">";
  // An admin sees every live one: one it does not see was deleted, if the
  // audit log holds its creation.
  if (audit_readable_) {
    auto created = read("/admin/audit-logs?limit=1&resource_type=" + kind.name + "&resource_id=" +
                            http::percent_encode(id) + "&action=" + kind.name + ".created",
                        "the name of " + kind.name + " " + id);
    // Only an admin reads the audit log: once refused, not asked again.
    if (!created && client_.last_refused()) audit_readable_ = false;
    const Value* logs = created ? created->find("logs") : nullptr;
    const Value* entry = logs != nullptr ? logs->at(0) : nullptr;
    const Value* details = entry != nullptr ? entry->find("details") : nullptr;
    if (details != nullptr && details->is_object() && cell(*details, "name") != "<none>") {
      shown = cell(*details, "name") + " (deleted)";
      kind.created.emplace(id, *details);
    }
  }
  kind.deleted.emplace(id, shown);
  return shown;
}

std::string Names::stack(const std::string& id) { return label(stacks_, id); }

std::string Names::generator(const std::string& id) { return label(generators_, id); }

const Value* Names::live_stack(const std::string& id) { return live(stacks_, id); }

Status Names::read_generators_of(const Value& items) {
  auto read = [this](const Value& item) {
    if (cell(item, "generator_id") != "<none>") generator(cell(item, "generator_id"));
  };
  if (items.is_array()) {
    for (const Value& item : items.get_array()) read(item);
  } else {
    read(items);
  }
  if (failure_) return make_error(*failure_);
  return Ok{};
}

std::string Names::stack_generator(const std::string& id) {
  if (const Value* stack = live_stack(id)) return generator(cell(*stack, "generator_id"));
  label(stacks_, id);  // a deleted one's creation, from the audit log
  auto created = stacks_.created.find(id);
  if (created == stacks_.created.end() || cell(created->second, "generator_id") == "<none>") return "<none>";
  return generator(cell(created->second, "generator_id"));
}

}  // namespace sindri::cli
