// /agents: the clusters' pull-based deployers, and their target state.

#include <memory>

#include "broker/ids.hpp"
#include "broker/pak.hpp"
#include "broker/records.hpp"
#include "broker/request_body.hpp"
#include "broker/routes.hpp"
#include "broker/targeting.hpp"
#include "http/gzip.hpp"
#include "value/json.hpp"

namespace sindri::broker {
namespace {

ApiResult<Ok> check_self_or_admin(const Call& call, std::string_view agent_id) {
  if (call.caller.is_admin() || call.caller.is_agent(agent_id)) return Ok{};
  return forbidden("only an admin or the agent itself may do this");
}

Value agent_with_pak(Value agent, const char* pak_field, const std::string& pak) {
  Object body;
  body.push_back({Value("agent"), std::move(agent)});
  body.push_back({Value(pak_field), Value(pak)});
  return Value(std::move(body));
}

// An admin sees every agent; a generator those registered with it.
ApiResult<http::Response> list_agents(Call& call) {
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    auto listed = call.caller.is_admin()
                      ? connection.query("SELECT " SINDRI_AGENT_COLUMNS
                                         " FROM agents WHERE deleted_at IS NULL ORDER BY created_at, id")
                      : connection.query("SELECT " SINDRI_AGENT_COLUMNS
                                         " FROM agents WHERE deleted_at IS NULL AND id IN "
                                         "(SELECT agent_id FROM agent_generators WHERE generator_id = $1) "
                                         "ORDER BY created_at, id",
                                         {Value(call.caller.id)});
    BROKER_TRY(rows, std::move(listed));
    Array items;
    for (size_t i = 0; i < rows.size(); ++i) items.push_back(agent_object(rows, i));
    return json_response(200, Value(std::move(items)));
  });
}

ApiResult<http::Response> create_agent(Call& call) {
  BROKER_TRY(body, BodyObject::parse(call.request, "CreateAgentRequest"));
  BROKER_TRY(name, body.required_string("name", kNameRule));
  BROKER_TRY(cluster_name, body.required_string("cluster_name", kNameRule));
  BROKER_TRY(generator_ids, body.optional_string_array("generator_ids", kUuidRule));
  BROKER_CHECK(body.finish());
  const IssuedPak pak = issue_pak();
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    const std::string now = now_timestamp();
    const std::string id = new_uuid();
    auto rows = connection.query(
        "INSERT INTO agents (id, name, cluster_name, status, pak_hash, created_at, updated_at) "
        "VALUES ($1, $2, $3, 'ACTIVE', $4, $5, $5) RETURNING " SINDRI_AGENT_COLUMNS,
        {Value(id), Value(name), Value(cluster_name), Value(pak.hash), Value(now)});
    if (!rows.ok() && rows.error().kind == store::DbError::Kind::Unique) {
      return conflict("agent_exists", "an agent named \"" + name + "\" already exists in cluster \"" + cluster_name + "\"");
    }
    BROKER_CHECK(rows);
    // The system generator is always registered; the request adds to it.
    BROKER_TRY(system, connection.query("SELECT id FROM generators WHERE is_system AND deleted_at IS NULL"));
    std::vector<std::string> registrations;
    for (const auto& row : system.rows) registrations.emplace_back(row[0].get_string());
    for (size_t i = 0; i < generator_ids.size(); ++i) {
      BROKER_CHECK(check_named_generator(connection, generator_ids[i], "/generator_ids/" + std::to_string(i)));
      if (std::find(registrations.begin(), registrations.end(), generator_ids[i]) == registrations.end()) {
        registrations.push_back(generator_ids[i]);
      }
    }
    for (const std::string& generator_id : registrations) {
      BROKER_CHECK(connection.query(
          "INSERT INTO agent_generators (id, agent_id, generator_id, created_at) VALUES ($1, $2, $3, $4)",
          {Value(new_uuid()), Value(id), Value(generator_id), Value(now)}));
    }
    Object response;
    response.push_back({Value("agent"), agent_object(rows.value(), 0)});
    response.push_back({Value("initial_pak"), Value(pak.pak)});
    return json_response(201, Value(std::move(response)));
  });
}

ApiResult<http::Response> search_agent(Call& call) {
  const std::string* name = call.request.query_param("name");
  const std::string* cluster = call.request.query_param("cluster_name");
  if (name == nullptr && cluster == nullptr) {
    return bad_request("missing_query_parameter", "give name, cluster_name or both to search agents");
  }
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_TRY(rows, connection.query("SELECT " SINDRI_AGENT_COLUMNS
                                      " FROM agents WHERE deleted_at IS NULL AND (CAST($1 AS TEXT) IS NULL OR name = $1) "
                                      "AND (CAST($2 AS TEXT) IS NULL OR cluster_name = $2) "
                                      "ORDER BY created_at, id LIMIT 1",
                                      {name ? Value(*name) : Value(), cluster ? Value(*cluster) : Value()}));
    if (rows.empty()) {
      return ApiError{404, "agent_not_found", "no agent matches the search", Value(), std::nullopt};
    }
    Value agent = agent_object(rows, 0);
    BROKER_CHECK(check_self_or_admin(call, field(agent, "id")));
    return json_response(200, agent);
  });
}

ApiResult<http::Response> get_agent(Call& call) {
  BROKER_TRY(id, call.id_param());
  BROKER_CHECK(check_self_or_admin(call, id));
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_TRY(agent, load_agent(connection, id));
    return json_response(200, agent);
  });
}

ApiResult<http::Response> update_agent(Call& call) {
  BROKER_TRY(id, call.id_param());
  BROKER_CHECK(check_self_or_admin(call, id));
  BROKER_TRY(body, BodyObject::parse(call.request, "Agent"));
  BROKER_TRY(body_id, body.optional_string("id", kUuidRule));
  BROKER_TRY(name, body.optional_string("name", kNameRule, false));
  BROKER_TRY(cluster_name, body.optional_string("cluster_name", kNameRule, false));
  BROKER_TRY(status, body.optional_string("status", TextRule{64, false, false, false}, false));
  for (const char* read_only : {"created_at", "updated_at", "deleted_at", "last_heartbeat", "k8s_reachable",
                                "k8s_api_latency_ms", "k8s_reported_at"}) {
    body.ignore(read_only);
  }
  BROKER_CHECK(body.finish());
  if (body_id && *body_id != id) return field_error("invalid_field", "/id does not match the path's id", "/id");
  if (!call.caller.is_admin() && (name || cluster_name)) {
    return forbidden("only an admin may rename an agent or move it to another cluster");
  }
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_TRY(agent, load_agent(connection, id));
    auto rows = connection.query(
        "UPDATE agents SET name = $2, cluster_name = $3, status = $4, updated_at = $5 WHERE id = $1 "
        "RETURNING " SINDRI_AGENT_COLUMNS,
        {Value(id), name ? Value(*name) : *agent.find("name"),
         cluster_name ? Value(*cluster_name) : *agent.find("cluster_name"),
         status ? Value(*status) : *agent.find("status"), Value(now_timestamp())});
    if (!rows.ok() && rows.error().kind == store::DbError::Kind::Unique) {
      return conflict("agent_exists", "another agent has that name in that cluster");
    }
    BROKER_CHECK(rows);
    return json_response(200, agent_object(rows.value(), 0));
  });
}

ApiResult<http::Response> delete_agent(Call& call) {
  BROKER_TRY(id, call.id_param());
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_TRY(agent, load_agent(connection, id));
    BROKER_CHECK(connection.query("UPDATE agents SET deleted_at = $2, updated_at = $2 WHERE id = $1",
                                  {Value(id), Value(now_timestamp())}));
    BROKER_CHECK(touch_target_state(connection));
    BROKER_CHECK(touch_credentials(call, connection));
    return empty_response(204);
  });
}

ApiResult<http::Response> heartbeat(Call& call) {
  BROKER_TRY(id, call.id_param());
  if (!call.caller.is_agent(id)) return forbidden("only the agent itself may send its heartbeat");
  std::optional<bool> reachable;
  std::optional<int64_t> latency;
  // The body is optional: a plain heartbeat carries none.
  if (!call.request.body.empty()) {
    BROKER_TRY(body, BodyObject::parse(call.request, "HeartbeatReport"));
    BROKER_TRY(reachable_field, body.optional_bool("k8s_reachable"));
    BROKER_TRY(latency_field, body.optional_int("k8s_api_latency_ms"));
    BROKER_CHECK(body.finish());
    if (latency_field && (*latency_field < 0 || *latency_field > INT32_MAX)) {
      return field_error("invalid_field", "/k8s_api_latency_ms must be between 0 and 2147483647",
                         "/k8s_api_latency_ms");
    }
    reachable = reachable_field;
    latency = latency_field;
  }
  const bool reported = reachable.has_value() || latency.has_value();
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    const std::string now = now_timestamp();
    BROKER_TRY(rows, reported
                         ? connection.query("UPDATE agents SET last_heartbeat = $2, k8s_reachable = $3, "
                                            "k8s_api_latency_ms = $4, k8s_reported_at = $2 "
                                            "WHERE id = $1 AND deleted_at IS NULL RETURNING id",
                                            {Value(id), Value(now), reachable ? Value(*reachable) : Value(),
                                             latency ? Value(*latency) : Value()})
                         : connection.query("UPDATE agents SET last_heartbeat = $2 "
                                            "WHERE id = $1 AND deleted_at IS NULL RETURNING id",
                                            {Value(id), Value(now)}));
    if (rows.empty()) return not_found("agent", id);
    return empty_response(204);
  });
}

ApiResult<http::Response> rotate_agent_pak(Call& call) {
  BROKER_TRY(id, call.id_param());
  BROKER_CHECK(check_self_or_admin(call, id));
  const IssuedPak pak = issue_pak();
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_TRY(rows, connection.query("UPDATE agents SET pak_hash = $2, updated_at = $3 "
                                      "WHERE id = $1 AND deleted_at IS NULL RETURNING " SINDRI_AGENT_COLUMNS,
                                      {Value(id), Value(pak.hash), Value(now_timestamp())}));
    if (rows.empty()) return not_found("agent", id);
    BROKER_CHECK(touch_credentials(call, connection));
    return json_response(200, agent_with_pak(agent_object(rows, 0), "pak", pak.pak));
  });
}

ApiResult<http::Response> agent_stacks(Call& call) {
  BROKER_TRY(id, call.id_param());
  BROKER_CHECK(check_self_or_admin(call, id));
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_TRY(agent, load_agent(connection, id));
    BROKER_TRY(rows, connection.query("SELECT " SINDRI_STACK_COLUMNS " FROM stacks WHERE deleted_at IS NULL AND id IN "
                                      "(SELECT stack_id FROM agent_targets WHERE agent_id = $1) ORDER BY created_at, id",
                                      {Value(id)}));
    return json_response(200, rows_array(rows));
  });
}

std::shared_ptr<const http::SharedBody> compressed(Call& call, const std::string& cache_key, int64_t generation,
                                                   const http::SharedBody& body) {
  auto gzipped = http::SharedBody::make(http::gzip_compress(body.bytes()));
  call.services.target_states.store(cache_key + "/gzip", generation, gzipped);
  return gzipped;
}

// The newest deployment object of every stack the agent targets (for a
// deleted stack, its deletion marker), oldest first. Incremental mode leaves
// out what the agent has already reported as applied.
ApiResult<http::Response> target_state(Call& call) {
  BROKER_TRY(id, call.id_param());
  BROKER_CHECK(check_self_or_admin(call, id));
  bool incremental = true;
  if (const std::string* mode = call.request.query_param("mode")) {
    if (*mode != "incremental" && *mode != "full") {
      return bad_request("invalid_query_parameter", "mode must be \"incremental\" or \"full\", got \"" + *mode + "\"");
    }
    incremental = *mode == "incremental";
  }
  const std::string cache_key = id + (incremental ? "/incremental" : "/full");
  const int64_t generation = call.target_state_generation.value();
  // Agents poll this all the time and the answer holds every manifest:
  // compressed, when the agent accepts it, like the Kubernetes API server
  // does for large lists. Both forms are cached.
  const bool gzip = http::accepts_gzip(call.request.header("Accept-Encoding"));
  http::Response response;
  response.headers.push_back({"Vary", "Accept-Encoding"});
  if (gzip) {
    response.headers.push_back({"Content-Encoding", "gzip"});
    response.shared_body = call.services.target_states.find(cache_key + "/gzip", generation);
    if (response.shared_body) return response;
  }
  auto plain = call.services.target_states.find(cache_key, generation);
  if (plain) {
    response.shared_body = gzip ? compressed(call, cache_key, generation, *plain) : plain;
    return response;
  }
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    BROKER_TRY(agent, load_agent(connection, id));
    BROKER_TRY(rows, incremental
                         ? connection.query("SELECT " SINDRI_DEPLOYMENT_OBJECT_COLUMNS
                                            " FROM deployment_objects d WHERE sequence_id IN "
                                            "(SELECT max(o.sequence_id) FROM agent_targets t JOIN deployment_objects o "
                                            "ON o.stack_id = t.stack_id AND o.deleted_at IS NULL "
                                            "WHERE t.agent_id = $1 GROUP BY t.stack_id) "
                                            "AND NOT EXISTS (SELECT 1 FROM agent_events e WHERE e.agent_id = $1 "
                                            "AND e.deployment_object_id = d.id AND e.status = 'SUCCESS' "
                                            "AND e.deleted_at IS NULL) ORDER BY sequence_id",
                                            {Value(id)})
                         : connection.query("SELECT " SINDRI_DEPLOYMENT_OBJECT_COLUMNS
                                            " FROM deployment_objects WHERE sequence_id IN "
                                            "(SELECT max(o.sequence_id) FROM agent_targets t JOIN deployment_objects o "
                                            "ON o.stack_id = t.stack_id AND o.deleted_at IS NULL "
                                            "WHERE t.agent_id = $1 GROUP BY t.stack_id) ORDER BY sequence_id",
                                            {Value(id)}));
    std::string json = "[";
    for (size_t i = 0; i < rows.size(); ++i) {
      if (i != 0) json += ',';
      append_json(json, deployment_object_object(rows, i));
    }
    json += ']';
    auto body = http::SharedBody::make(std::move(json));
    call.services.target_states.store(cache_key, generation, body);
    response.shared_body = gzip ? compressed(call, cache_key, generation, *body) : body;
    return response;
  });
}

}  // namespace

void add_agent_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"GET", "/agents", true, true, false, list_agents});
  routes.push_back({"POST", "/agents", true, false, false, create_agent});
  routes.push_back({"GET", "/agents/", true, false, true, search_agent});
  routes.push_back({"GET", "/agents/{id}", true, false, true, get_agent});
  routes.push_back({"PUT", "/agents/{id}", true, false, true, update_agent});
  routes.push_back({"DELETE", "/agents/{id}", true, false, false, delete_agent});
  routes.push_back({"POST", "/agents/{id}/heartbeat", false, false, true, heartbeat});
  routes.push_back({"POST", "/agents/{id}/rotate-pak", true, false, true, rotate_agent_pak});
  routes.push_back({"GET", "/agents/{id}/stacks", true, false, true, agent_stacks});
  routes.push_back({"GET", "/agents/{id}/target-state", true, false, true, target_state});
}

}  // namespace sindri::broker
