// Work orders: transient jobs (builds, tests, backups) an admin queues for
// agents chosen by id, label or annotation. An agent claims one, runs it and
// reports; success or a final failure moves it to the log.

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>

#include "broker/api/query_params.hpp"
#include "broker/api/request_body.hpp"
#include "broker/api/routes.hpp"
#include "broker/db/agents.hpp"
#include "broker/db/events.hpp"
#include "broker/db/work_orders.hpp"
#include "broker/notices.hpp"
#include "broker/pushes.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker {
namespace {

constexpr TextRule kWorkTypeRule{50, false, true, false, true};
constexpr TextRule kMessageRule{65536, true, true, false};
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();


// An optional integer setting within [low, kInt32Max] (Brokkr's INTEGER
// columns); absent or null gives `fallback`.
ApiResult<int64_t> int_setting(BodyObject& body, std::string_view key, int64_t low, int64_t fallback) {
  SINDRI_TRY(value, body.optional_int(key));
  if (!value) return fallback;
  if (*value < low || *value > kInt32Max) {
    const std::string pointer = "/" + std::string(key);
    return field_error("invalid_work_order",
                       pointer + " must be between " + std::to_string(low) + " and " + std::to_string(kInt32Max) +
                           ", got " + std::to_string(*value),
                       pointer);
  }
  return *value;
}

// Appends the UUIDs of `list` (an array at `pointer`) to `ids`, once each.
ApiResult<Ok> read_agent_ids(const Value& list, const std::string& pointer, std::vector<std::string>& ids) {
  if (list.is_null()) return Ok{};
  if (!list.is_array()) {
    return field_error("invalid_field", pointer + " must be an array of agent ids, got " + list.kind_name(), pointer);
  }
  for (size_t i = 0; i < list.size(); ++i) {
    const Value& item = *list.at(i);
    const std::string item_pointer = pointer + "/" + std::to_string(i);
    if (!item.is_string()) {
      return field_error("invalid_field", item_pointer + " must be a UUID string, got " + item.kind_name(),
                         item_pointer);
    }
    SINDRI_CHECK(check_text(item.get_string(), kUuidRule, item_pointer));
    std::string id(item.get_string());
    for (char& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(std::move(id));
  }
  return Ok{};
}

// WorkOrderTargeting: {agent_ids?, labels?, annotations?}, each nullable.
ApiResult<Ok> read_targeting(const Value& targeting, db::NewWorkOrder& order) {
  if (targeting.is_null()) return Ok{};
  if (!targeting.is_object()) {
    return field_error("invalid_field", "/targeting must be a WorkOrderTargeting object, got " +
                                            std::string(targeting.kind_name()),
                       "/targeting");
  }
  for (const Member& member : targeting.get_object()) {
    const std::string_view key = member.key.get_string();
    const std::string pointer = "/targeting/" + std::string(key);
    const Value& value = member.value;
    if (key == "agent_ids") {
      SINDRI_CHECK(read_agent_ids(value, pointer, order.agent_ids));
    } else if (key == "labels") {
      if (value.is_null()) continue;
      if (!value.is_array()) {
        return field_error("invalid_field", pointer + " must be an array of strings, got " + value.kind_name(),
                           pointer);
      }
      std::set<std::string> seen;
      for (size_t i = 0; i < value.size(); ++i) {
        const Value& label = *value.at(i);
        const std::string item_pointer = pointer + "/" + std::to_string(i);
        if (!label.is_string()) {
          return field_error("invalid_field", item_pointer + " must be a string, got " + label.kind_name(),
                             item_pointer);
        }
        SINDRI_CHECK(check_text(label.get_string(), kTagRule, item_pointer));
        if (seen.emplace(label.get_string()).second) order.labels.emplace_back(label.get_string());
      }
    } else if (key == "annotations") {
      if (value.is_null()) continue;
      if (!value.is_object()) {
        return field_error("invalid_field", pointer + " must be an object of strings, got " + value.kind_name(),
                           pointer);
      }
      for (const Member& annotation : value.get_object()) {
        const std::string annotation_pointer = pointer + "/" + std::string(annotation.key.get_string());
        if (!annotation.value.is_string()) {
          return field_error("invalid_field",
                             annotation_pointer + " must be a string, got " + annotation.value.kind_name(),
                             annotation_pointer);
        }
        SINDRI_CHECK(check_text(annotation.key.get_string(), kTagRule, annotation_pointer));
        SINDRI_CHECK(check_text(annotation.value.get_string(), kTagRule, annotation_pointer));
        order.annotations.emplace_back(annotation.key.get_string(), annotation.value.get_string());
      }
    } else {
      return field_error("unknown_field", pointer + " is not a field of WorkOrderTargeting", pointer);
    }
  }
  return Ok{};
}

ApiResult<db::NewWorkOrder> read_new_work_order(const http::Request& request) {
  SINDRI_TRY(body, BodyObject::parse(request, "CreateWorkOrderRequest"));
  db::NewWorkOrder order;
  SINDRI_TRY(work_type, body.required_string("work_type", kWorkTypeRule));
  SINDRI_TRY(yaml_content, body.required_string("yaml_content"));
  if (yaml_content.find_first_not_of(" \t\r\n") == std::string::npos) {
    return field_error("invalid_work_order", "/yaml_content must not be empty", "/yaml_content");
  }
  order.work_type = std::move(work_type);
  order.yaml_content = std::move(yaml_content);
  SINDRI_TRY(max_retries, int_setting(body, "max_retries", 0, 3));
  SINDRI_TRY(backoff_seconds, int_setting(body, "backoff_seconds", 1, 60));
  SINDRI_TRY(claim_timeout_seconds, int_setting(body, "claim_timeout_seconds", 1, 3600));
  order.max_retries = max_retries;
  order.backoff_seconds = backoff_seconds;
  order.claim_timeout_seconds = claim_timeout_seconds;
  if (body.has("targeting")) {
    SINDRI_TRY(targeting, body.required_value("targeting"));
    SINDRI_CHECK(read_targeting(targeting, order));
  }
  if (body.has("target_agent_ids")) {
    SINDRI_TRY(legacy, body.required_value("target_agent_ids"));
    SINDRI_CHECK(read_agent_ids(legacy, "/target_agent_ids", order.agent_ids));
  }
  SINDRI_CHECK(body.finish());
  if (order.agent_ids.empty() && order.labels.empty() && order.annotations.empty()) {
    return field_error("no_targeting_specified",
                       "at least one targeting method must be specified (agent_ids, labels, or annotations)",
                       "/targeting");
  }
  return order;
}

ApiResult<http::Response> create_work_order(Call& call) {
  SINDRI_TRY(order, read_new_work_order(call.request));
  StagedNotices notices(*call.services.notices);
  SINDRI_TRY(created, in_write<Value>(call.db(), [&](store::Connection& connection) -> ApiResult<Value> {
    for (const std::string& agent_id : order.agent_ids) {
      auto agent = db::load_agent(connection, agent_id);
      if (!agent.ok() && agent.error().status == 404) {
        return field_error("agent_not_found", "/targeting/agent_ids: agent " + agent_id + " does not exist",
                           "/targeting/agent_ids");
      }
      SINDRI_CHECK(std::move(agent));
    }
    SINDRI_TRY(created, db::insert_work_order(connection, order));
    const std::string id(created.find("id")->get_string());
    SINDRI_CHECK(audit(call, connection, "workorder.created", "work_order", id,
                       make_object({{"work_type", Value(order.work_type)}})));
    SINDRI_CHECK(db::emit_event(connection, "workorder.created",
                                make_object({{"work_order_id", Value(id)},
                                             {"work_type", *created.find("work_type")},
                                             {"status", *created.find("status")},
                                             {"created_at", *created.find("created_at")}})));
    // Brokkr pushes to the agents named; those matched by label are told too.
    SINDRI_CHECK(notices.stage(connection, work_order_notice(id)));
    return created;
  }));
  notices.deliver();
  return json_response(201, created);
}

std::optional<std::string> optional_text_query(const http::Request& request, std::string_view name) {
  const std::string* value = request.query_param(name);
  return value != nullptr ? std::optional<std::string>(*value) : std::nullopt;
}

ApiResult<http::Response> list_work_orders(Call& call) {
  const std::optional<std::string> status = optional_text_query(call.request, "status");
  if (status && *status != "PENDING" && *status != "CLAIMED" && *status != "RETRY_PENDING") {
    return bad_request("invalid_query_parameter",
                       "status must be PENDING, CLAIMED or RETRY_PENDING, got \"" + *status + "\"");
  }
  const std::optional<std::string> work_type = optional_text_query(call.request, "work_type");
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(orders, db::list_work_orders(connection, status, work_type));
    return json_response(200, orders);
  });
}

ApiResult<http::Response> get_work_order(Call& call) {
  SINDRI_TRY(id, call.id_param());
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(active, db::find_work_order(connection, id));
    if (active) return json_response(200, *active);
    SINDRI_TRY(logged, db::find_logged_work_order(connection, id));
    if (logged) return json_response(200, *logged);
    return not_found("work_order", id);
  });
}

ApiResult<http::Response> delete_work_order(Call& call) {
  SINDRI_TRY(id, call.id_param());
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(deleted, db::delete_work_order(connection, id));
    if (!deleted) return not_found("work_order", id);
    SINDRI_CHECK(audit(call, connection, "workorder.deleted", "work_order", id));
    return empty_response(204);
  });
}

ApiResult<http::Response> list_pending(Call& call) {
  SINDRI_TRY(agent_id, call.id_param("agent_id"));
  if (!call.caller.is_admin() && !call.caller.is_agent(agent_id)) {
    return forbidden("agent_pak_mismatch", "agent PAK does not match the agent ID");
  }
  const std::optional<std::string> work_type = optional_text_query(call.request, "work_type");
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(agent, db::load_agent(connection, agent_id));
    SINDRI_TRY(orders, db::list_claimable_work_orders(connection, agent_id, work_type));
    return json_response(200, orders);
  });
}

ApiResult<http::Response> claim(Call& call) {
  SINDRI_TRY(id, call.id_param());
  SINDRI_TRY(body, BodyObject::parse(call.request, "ClaimWorkOrderRequest"));
  SINDRI_TRY(agent_id, body.required_string("agent_id", kUuidRule));
  SINDRI_CHECK(body.finish());
  if (!call.caller.is_admin() && !call.caller.is_agent(agent_id)) {
    return forbidden("agent_pak_mismatch", "agent PAK does not match the claiming agent");
  }
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(claimed, db::claim_work_order(connection, id, agent_id));
    if (!claimed) {
      return ApiError{404, "work_order_not_claimable",
                      "work order " + id + " not found or not claimable by agent " + agent_id, Value(), std::nullopt};
    }
    SINDRI_CHECK(audit(call, connection, "workorder.claimed", "work_order", id,
                       make_object({{"agent_id", Value(agent_id)}})));
    SINDRI_CHECK(db::emit_event(connection, "workorder.claimed",
                                make_object({{"work_order_id", Value(id)},
                                             {"work_type", *claimed->find("work_type")},
                                             {"agent_id", Value(agent_id)},
                                             {"claimed_at", *claimed->find("claimed_at")}})));
    return json_response(200, *claimed);
  });
}

ApiResult<db::Completion> read_completion(const http::Request& request) {
  SINDRI_TRY(body, BodyObject::parse(request, "CompleteWorkOrderRequest"));
  SINDRI_TRY(success, body.optional_bool("success"));
  if (!success) return field_error("missing_field", "/success is required by CompleteWorkOrderRequest", "/success");
  SINDRI_TRY(message, body.optional_string("message", kMessageRule));
  SINDRI_TRY(retryable, body.optional_bool("retryable"));
  SINDRI_CHECK(body.finish());
  return db::Completion{*success, std::move(message), retryable.value_or(true)};
}

ApiResult<http::Response> complete(Call& call) {
  SINDRI_TRY(id, call.id_param());
  SINDRI_TRY(completion, read_completion(call.request));
  if (!completion.success && !completion.message) completion.message = "Unknown error";
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(order, db::find_work_order(connection, id));
    if (!order) return not_found("work_order", id);
    const Value& claimed_by = *order->find("claimed_by");
    const bool claimer = claimed_by.is_string() && call.caller.is_agent(claimed_by.get_string()) &&
                         order->find("status")->get_string() == "CLAIMED";
    if (!call.caller.is_admin() && !claimer) {
      return forbidden("work_order_not_claimed_by_agent", "work order " + id + " is not claimed by this agent");
    }
    SINDRI_TRY(outcome, db::complete_work_order(connection, *order, completion));
    if (!outcome.log_entry) {
      SINDRI_CHECK(audit(call, connection, "workorder.retry", "work_order", id));
      return json_response(202, make_object({{"status", Value("retry_scheduled")}}));
    }
    const Value& entry = *outcome.log_entry;
    const char* action = completion.success ? "workorder.completed" : "workorder.failed";
    SINDRI_CHECK(audit(call, connection, action, "work_order", id,
                       completion.success ? Value()
                                          : make_object({{"retryable", Value(completion.retryable)}})));
    SINDRI_CHECK(db::emit_event(connection, action,
                                make_object({{"work_order_id", Value(id)},
                                             {"work_order_log_id", Value(id)},
                                             {"work_type", *entry.find("work_type")},
                                             {"success", *entry.find("success")},
                                             {"result_message", *entry.find("result_message")},
                                             {"agent_id", *entry.find("claimed_by")},
                                             {"completed_at", *entry.find("completed_at")}})));
    return json_response(200, entry);
  });
}

ApiResult<http::Response> list_log(Call& call) {
  db::WorkOrderLogQuery query;
  query.work_type = optional_text_query(call.request, "work_type");
  if (call.request.query_param("success") != nullptr) {
    SINDRI_TRY(success, optional_bool_query(call.request, "success"));
    query.success = success;
  }
  SINDRI_TRY(agent_id, optional_uuid_query(call.request, "agent_id"));
  if (!agent_id.empty()) query.agent_id = agent_id;
  SINDRI_TRY(limit, optional_int_query(call.request, "limit", 1, kInt32Max));
  query.limit = limit;
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(entries, db::list_work_order_log(connection, query));
    return json_response(200, entries);
  });
}

ApiResult<http::Response> get_log_entry(Call& call) {
  SINDRI_TRY(id, call.id_param());
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(entry, db::load_work_order_log(connection, id));
    return json_response(200, entry);
  });
}

}  // namespace

void add_work_order_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"GET", "/work-orders", Allow::Admin, list_work_orders});
  routes.push_back({"POST", "/work-orders", Allow::Admin, create_work_order});
  routes.push_back({"GET", "/work-orders/{id}", Allow::Admin, get_work_order});
  routes.push_back({"DELETE", "/work-orders/{id}", Allow::Admin, delete_work_order});
  routes.push_back({"POST", "/work-orders/{id}/claim", Allow::Admin | Allow::Agent, claim});
  routes.push_back({"POST", "/work-orders/{id}/complete", Allow::Admin | Allow::Agent, complete});
  routes.push_back({"GET", "/work-order-log", Allow::Admin, list_log});
  routes.push_back({"GET", "/work-order-log/{id}", Allow::Admin, get_log_entry});
  routes.push_back({"GET", "/agents/{agent_id}/work-orders/pending", Allow::Admin | Allow::Agent, list_pending});
}

}  // namespace sindri::broker
