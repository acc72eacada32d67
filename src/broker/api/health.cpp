// Deployment health: agents report how the objects they applied are doing;
// admins read it per object and per stack, the worst status winning.

#include <array>
#include <initializer_list>

#include "broker/access.hpp"
#include "broker/api/request_body.hpp"
#include "broker/api/routes.hpp"
#include "broker/db/deployment_objects.hpp"
#include "broker/db/events.hpp"
#include "broker/db/health.hpp"
#include "broker/pushes.hpp"
#include "broker/db/stacks.hpp"
#include "value/rfc3339.hpp"
#include "value/json.hpp"
#include "value/object_literal.hpp"
#include "value/pointer.hpp"
#include "value/uuid.hpp"

namespace sindri::broker {
namespace {

// From best to worst: an object or a stack takes the worst status reported.
constexpr std::array<std::string_view, 4> kStatusesByRank = {"unknown", "healthy", "degraded", "failing"};
constexpr std::string_view kAllowedStatuses = "healthy, degraded, failing, unknown";

bool is_status(std::string_view text) {
  for (std::string_view status : kStatusesByRank) {
    if (status == text) return true;
  }
  return false;
}

size_t status_rank(std::string_view status) {
  for (size_t rank = 0; rank < kStatusesByRank.size(); ++rank) {
    if (kStatusesByRank[rank] == status) return rank;
  }
  return 0;
}

ApiError wrong_type(const std::string& pointer, const char* expected, const Value& got) {
  return field_error("invalid_field", pointer + " must be " + expected + ", got " + got.kind_name(), pointer);
}

// The members of one object inside the body, for errors that name each by
// its full pointer; finish() refuses members the schema does not have.
class Members {
 public:
  Members(const Value& object, std::string pointer, std::string_view schema)
      : object_(object), pointer_(std::move(pointer)), schema_(schema) {}

  std::string child(std::string_view key) const { return pointer_child(pointer_, key); }

  // The member, or an error when it is absent or null.
  ApiResult<const Value*> required(std::string_view key) {
    const Value* value = take(key);
    if (value == nullptr || value->is_null()) {
      return field_error("missing_field", child(key) + " is required by " + schema_, child(key));
    }
    return value;
  }
  // The member, or nullptr when it is absent or null.
  const Value* optional(std::string_view key) {
    const Value* value = take(key);
    return value == nullptr || value->is_null() ? nullptr : value;
  }
  ApiResult<Ok> finish(std::initializer_list<std::string_view> known) const {
    for (const Member& member : object_.get_object()) {
      const std::string_view key = member.key.get_string();
      bool listed = false;
      for (std::string_view name : known) listed = listed || name == key;
      if (!listed) return field_error("unknown_field", child(key) + " is not a field of " + schema_, child(key));
    }
    return Ok{};
  }

 private:
  const Value* take(std::string_view key) const { return object_.find(key); }

  const Value& object_;
  std::string pointer_;
  std::string schema_;
};

ApiResult<Members> members_of(const Value& value, std::string pointer, std::string_view schema) {
  if (!value.is_object()) return wrong_type(pointer, "an object", value);
  return Members(value, std::move(pointer), schema);
}

ApiResult<Ok> check_string(const Value* value, const std::string& pointer) {
  if (!value->is_string()) return wrong_type(pointer, "a string", *value);
  return check_text(value->get_string(), TextRule{65536, true, true, false}, pointer);
}

ApiResult<Ok> check_int32(const Value* value, const std::string& pointer) {
  if (!value->is_int()) return wrong_type(pointer, "an integer", *value);
  if (value->get_int() < 0 || value->get_int() > 2147483647) {
    return field_error("invalid_field", pointer + " must be between 0 and 2147483647", pointer);
  }
  return Ok{};
}

ApiResult<Ok> check_resource(const Value& resource, std::string pointer) {
  SINDRI_TRY(fields, members_of(resource, std::move(pointer), "ResourceHealth"));
  for (const char* key : {"kind", "name", "namespace"}) {
    SINDRI_TRY(text, fields.required(key));
    SINDRI_CHECK(check_string(text, fields.child(key)));
  }
  SINDRI_TRY(ready, fields.required("ready"));
  if (!ready->is_bool()) return wrong_type(fields.child("ready"), "a boolean", *ready);
  if (const Value* message = fields.optional("message")) SINDRI_CHECK(check_string(message, fields.child("message")));
  return fields.finish({"kind", "name", "namespace", "ready", "message"});
}

// HealthSummary, stored as the JSON text it came as.
ApiResult<Ok> check_summary(const Value& summary, std::string pointer) {
  SINDRI_TRY(fields, members_of(summary, std::move(pointer), "HealthSummary"));
  for (const char* key : {"pods_ready", "pods_total"}) {
    SINDRI_TRY(count, fields.required(key));
    SINDRI_CHECK(check_int32(count, fields.child(key)));
  }
  SINDRI_TRY(conditions, fields.required("conditions"));
  if (!conditions->is_array()) return wrong_type(fields.child("conditions"), "an array of strings", *conditions);
  for (size_t i = 0; i < conditions->size(); ++i) {
    SINDRI_CHECK(check_string(conditions->at(i), pointer_child(fields.child("conditions"), std::to_string(i))));
  }
  if (const Value* resources = fields.optional("resources")) {
    if (!resources->is_array()) return wrong_type(fields.child("resources"), "an array or null", *resources);
    for (size_t i = 0; i < resources->size(); ++i) {
      SINDRI_CHECK(check_resource(*resources->at(i), pointer_child(fields.child("resources"), std::to_string(i))));
    }
  }
  return fields.finish({"pods_ready", "pods_total", "conditions", "resources"});
}

// One DeploymentObjectHealthUpdate. A status outside the four is Brokkr's 422.
ApiResult<db::HealthReport> read_update(const Value& update, std::string pointer) {
  SINDRI_TRY(fields, members_of(update, std::move(pointer), "DeploymentObjectHealthUpdate"));
  db::HealthReport report;
  SINDRI_TRY(id, fields.required("id"));
  if (!id->is_string()) return wrong_type(fields.child("id"), "a UUID string", *id);
  SINDRI_CHECK(check_text(id->get_string(), kUuidRule, fields.child("id")));
  report.deployment_object_id = stored_uuid(id->get_string());

  SINDRI_TRY(status, fields.required("status"));
  if (!status->is_string()) return wrong_type(fields.child("status"), "a string", *status);
  report.status = std::string(status->get_string());
  if (!is_status(report.status)) {
    const std::string where = fields.child("status");
    ApiError error{422, "invalid_health_record",
                   where + " must be one of " + std::string(kAllowedStatuses) + ", got \"" + report.status + "\"",
                   make_object({{"pointer", Value(where)},
                                {"allowed", Value(Array{Value("healthy"), Value("degraded"), Value("failing"),
                                                        Value("unknown")})}}),
                   std::nullopt};
    return error;
  }

  if (const Value* summary = fields.optional("summary")) {
    SINDRI_CHECK(check_summary(*summary, fields.child("summary")));
    report.summary_json = to_json(*summary);
  }

  SINDRI_TRY(checked_at, fields.required("checked_at"));
  if (!checked_at->is_string()) return wrong_type(fields.child("checked_at"), "an RFC 3339 timestamp", *checked_at);
  std::optional<std::string> normalized = rfc3339::normalized(checked_at->get_string());
  if (!normalized) {
    return field_error("invalid_field",
                       fields.child("checked_at") + " must be an RFC 3339 timestamp (2026-01-02T03:04:05Z), got \"" +
                           std::string(checked_at->get_string()) + "\"",
                       fields.child("checked_at"));
  }
  report.checked_at = std::move(*normalized);
  SINDRI_CHECK(fields.finish({"id", "status", "summary", "checked_at"}));
  return report;
}

ApiResult<std::vector<db::HealthReport>> read_health_update(const http::Request& request) {
  SINDRI_TRY(body, BodyObject::parse(request, "HealthStatusUpdate"));
  SINDRI_TRY(updates, body.required_value("deployment_objects"));
  SINDRI_CHECK(body.finish());
  if (!updates.is_array()) return wrong_type("/deployment_objects", "an array", updates);
  std::vector<db::HealthReport> reports;
  reports.reserve(updates.size());
  for (size_t i = 0; i < updates.size(); ++i) {
    SINDRI_TRY(report, read_update(*updates.at(i), "/deployment_objects/" + std::to_string(i)));
    reports.push_back(std::move(report));
  }
  return reports;
}

ApiResult<http::Response> update_health_status(Call& call) {
  SINDRI_TRY(agent_id, call.id_param());
  if (!call.caller.is_agent(agent_id)) {
    return forbidden("agent_pak_mismatch", "agent PAK does not match the agent id " + agent_id + " in the path");
  }
  SINDRI_TRY(reports, read_health_update(call.request));
  std::vector<std::string> stacks(reports.size());
  bool changed = false;
  SINDRI_CHECK(in_write<Ok>(call.db(), [&](store::Connection& connection) -> ApiResult<Ok> {
    changed = false;
    for (size_t i = 0; i < reports.size(); ++i) {
      const db::HealthReport& report = reports[i];
      const std::string pointer = "/deployment_objects/" + std::to_string(i) + "/id";
      SINDRI_TRY(placement, db::place_object_for_agent(connection, report.deployment_object_id, agent_id));
      // One answer whether the object exists or not: an agent learns nothing
      // of other tenants' ids.
      if (!placement || !placement->targeted_by_agent) {
        ApiError error = forbidden("agent_not_associated", pointer + ": agent " + agent_id +
                                                               " does not target the stack of deployment object " +
                                                               report.deployment_object_id);
        error.details = make_object({{"pointer", Value(pointer)}});
        return error;
      }
      SINDRI_TRY(previous, db::upsert_health(connection, agent_id, report));
      stacks[i] = placement->stack_id;
      // No report yet reads as unknown, so that an agent's first round of
      // reports raises an event only for what is not unknown.
      if (previous.value_or("unknown") != report.status) {
        changed = true;
        SINDRI_CHECK(db::emit_event(connection, "health.changed",
                                    make_object({{"agent_id", Value(agent_id)},
                                                 {"stack_id", Value(placement->stack_id)},
                                                 {"deployment_object_id", Value(report.deployment_object_id)},
                                                 {"old_status", previous ? Value(*previous) : Value()},
                                                 {"new_status", Value(report.status)}})));
      }
    }
    return Ok{};
  }));
  for (size_t i = 0; i < reports.size(); ++i) {
    const db::HealthReport& report = reports[i];
    show_on_stack(call.services, stacks[i], "agent_health",
                  make_object({{"agent_id", Value(agent_id)},
                               {"deployment_object_id", Value(report.deployment_object_id)},
                               {"status", Value(report.status)},
                               {"summary", report.summary_json ? Value(*report.summary_json) : Value()},
                               {"checked_at", Value(report.checked_at)}}));
  }
  // The fleet counts failing and degraded objects.
  if (changed) show_fleet_agent(call.services, agent_id);
  return empty_response(200);
}

ApiResult<http::Response> get_deployment_health(Call& call) {
  SINDRI_TRY(object_id, call.id_param());
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(object, db::load_deployment_object(connection, object_id));
    SINDRI_TRY(stack, db::load_any_stack(connection, field(object, "stack_id")));
    SINDRI_CHECK(check_stack_access(connection, call.caller, stack, StackAccess::Read));
    SINDRI_TRY(records, db::list_object_health(connection, object_id));
    size_t worst = 0;
    for (const Value& record : records.get_array()) worst = std::max(worst, status_rank(field(record, "status")));
    return json_response(200, make_object({{"deployment_object_id", Value(object_id)},
                                           {"health_records", std::move(records)},
                                           {"overall_status", Value(kStatusesByRank[worst])}}));
  });
}

ApiResult<http::Response> get_stack_health(Call& call) {
  SINDRI_TRY(stack_id, call.id_param());
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(stack, db::load_stack(connection, stack_id));
    SINDRI_CHECK(check_stack_access(connection, call.caller, stack, StackAccess::Read));
    SINDRI_TRY(counts, db::count_stack_health(connection, stack_id));
    Array objects;
    size_t stack_worst = 0;
    for (db::ObjectHealthCounts& object : counts) {
      const std::string_view status = object.failing > 0    ? "failing"
                                      : object.degraded > 0 ? "degraded"
                                      : object.healthy > 0  ? "healthy"
                                                            : "unknown";
      stack_worst = std::max(stack_worst, status_rank(status));
      objects.push_back(make_object({{"id", std::move(object.object_id)},
                                     {"status", Value(status)},
                                     {"healthy_agents", Value(object.healthy)},
                                     {"degraded_agents", Value(object.degraded)},
                                     {"failing_agents", Value(object.failing)}}));
    }
    return json_response(200, make_object({{"stack_id", Value(stack_id)},
                                           {"overall_status", Value(kStatusesByRank[stack_worst])},
                                           {"deployment_objects", Value(std::move(objects))}}));
  });
}

}  // namespace

// brokkr-v1.json lets only agents report and only admins read; the reads
// still ask access.hpp, as every read of a stack does.
void add_health_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"PATCH", "/agents/{id}/health-status", Allow::Agent, update_health_status});
  routes.push_back({"GET", "/deployment-objects/{id}/health", Allow::Admin, get_deployment_health});
  routes.push_back({"GET", "/stacks/{id}/health", Allow::Admin, get_stack_health});
}

}  // namespace sindri::broker
