// /agents: the clusters' pull-based deployers, and their target state.

#include <algorithm>
#include <memory>

#include "broker/access.hpp"
#include "broker/api/request_body.hpp"
#include "broker/api/routes.hpp"
#include "broker/db/agents.hpp"
#include "broker/db/counters.hpp"
#include "broker/db/deployment_objects.hpp"
#include "broker/db/generators.hpp"
#include "broker/db/rows.hpp"
#include "broker/db/stacks.hpp"
#include "broker/pak.hpp"
#include "broker/notices.hpp"
#include "broker/pushes.hpp"
#include "http/gzip.hpp"
#include "value/object_literal.hpp"

namespace sindri::broker {
namespace {

ApiResult<Ok> check_agent_itself_or_admin(const Call& call, std::string_view agent_id) {
  if (call.caller.is_admin() || call.caller.is_agent(agent_id)) return Ok{};
  return forbidden("agent_pak_mismatch", "only an admin or the agent itself may do this");
}

Value agent_with_pak(Value agent, const char* pak_field, const std::string& pak) {
  return make_object({{"agent", std::move(agent)}, {pak_field, Value(pak)}});
}

// An admin sees every agent; a generator those registered with it.
ApiResult<http::Response> list_agents(Call& call) {
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    const std::string_view registered_with =
        call.caller.is_admin() ? std::string_view() : std::string_view(call.caller.id);
    SINDRI_TRY(agents, db::list_agents(connection, registered_with));
    return json_response(200, agents);
  });
}

ApiResult<http::Response> create_agent(Call& call) {
  SINDRI_TRY(body, BodyObject::parse(call.request, "CreateAgentRequest"));
  SINDRI_TRY(name, body.required_string("name", kNameRule));
  SINDRI_TRY(cluster_name, body.required_string("cluster_name", kNameRule));
  SINDRI_TRY(generator_ids, body.optional_string_array("generator_ids", kUuidRule));
  SINDRI_CHECK(body.finish());
  const IssuedPak pak = issue_pak();
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    // The system generator is always registered; the request adds to it.
    SINDRI_TRY(registrations, db::system_generator_ids(connection));
    for (size_t i = 0; i < generator_ids.size(); ++i) {
      SINDRI_CHECK(db::check_named_generator(connection, generator_ids[i], "/generator_ids/" + std::to_string(i)));
      if (std::find(registrations.begin(), registrations.end(), generator_ids[i]) == registrations.end()) {
        registrations.push_back(generator_ids[i]);
      }
    }
    auto agent = db::insert_agent(connection, name, cluster_name, pak.hash, registrations);
    if (!agent.ok() && db::is_unique_violation(agent.error())) {
      return conflict("agent_exists", "an agent named \"" + name + "\" already exists in cluster \"" + cluster_name + "\"");
    }
    SINDRI_CHECK(agent);
    const std::string id(field(*agent, "id"));
    SINDRI_CHECK(audit(call, connection, "agent.created", "agent", id,
                       make_object({{"name", Value(name)}, {"cluster_name", Value(cluster_name)}})));
    SINDRI_CHECK(audit(call, connection, "pak.created", "agent", id));
    return json_response(201, make_object({{"agent", std::move(agent).value()}, {"initial_pak", Value(pak.pak)}}));
  });
}

ApiResult<http::Response> search_agent(Call& call) {
  const std::string* name = call.request.query_param("name");
  const std::string* cluster = call.request.query_param("cluster_name");
  if (name == nullptr && cluster == nullptr) {
    return bad_request("missing_query_parameter", "give name, cluster_name or both to search agents");
  }
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(found, db::find_agent(connection, name, cluster));
    if (!found) {
      return ApiError{404, "agent_not_found", "no agent matches the search", Value(), std::nullopt};
    }
    SINDRI_CHECK(check_agent_itself_or_admin(call, field(*found, "id")));
    return json_response(200, *found);
  });
}

ApiResult<http::Response> get_agent(Call& call) {
  SINDRI_TRY(id, call.id_param());
  SINDRI_CHECK(check_agent_itself_or_admin(call, id));
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(agent, db::load_agent(connection, id));
    return json_response(200, agent);
  });
}

// Brokkr's agent statuses: the agent works only while ACTIVE
// (brokkr-agent/src/cli/commands.rs; the console toggles between the two).
// Sindri creates agents ACTIVE (db::insert_agent), so that a registered
// agent works at once, where Brokkr's start INACTIVE.
bool is_agent_status(std::string_view status) { return status == "ACTIVE" || status == "INACTIVE"; }

// As Brokkr's, the body is any part of an Agent: name and cluster_name (by an
// admin) and status may change; what the broker or the agent's reports set
// must be absent or as stored.
ApiResult<http::Response> update_agent(Call& call) {
  SINDRI_TRY(id, call.id_param());
  SINDRI_CHECK(check_agent_itself_or_admin(call, id));
  SINDRI_TRY(body, BodyObject::parse(call.request, "Agent"));
  SINDRI_TRY(body_id, body.optional_string("id", kUuidRule));
  SINDRI_TRY(name, body.optional_string("name", kNameRule, false));
  SINDRI_TRY(cluster_name, body.optional_string("cluster_name", kNameRule, false));
  SINDRI_TRY(status, body.optional_string("status", TextRule{64, false, false, false}, false));
  for (const char* timestamp : {"created_at", "updated_at", "deleted_at", "last_heartbeat", "k8s_reported_at"}) {
    SINDRI_CHECK(body.read_only(timestamp, ReadOnlyKind::Timestamp));
  }
  SINDRI_CHECK(body.read_only("k8s_reachable", ReadOnlyKind::Boolean));
  SINDRI_CHECK(body.read_only("k8s_api_latency_ms", ReadOnlyKind::Count));
  SINDRI_CHECK(body.finish());
  if (body_id && *body_id != id) return field_error("agent_id_mismatch", "/id does not match the path's id", "/id");
  if (status && !is_agent_status(*status)) {
    return field_error("invalid_field", "/status must be ACTIVE or INACTIVE, got \"" + *status + "\"", "/status");
  }
  if (!call.caller.is_admin() && (name || cluster_name)) {
    return forbidden("admin_required", "only an admin may rename an agent or move it to another cluster");
  }
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(agent, db::load_agent(connection, id));
    SINDRI_CHECK(body.check_unchanged(agent));
    auto updated = db::update_agent(connection, id, name ? Value(*name) : *agent.find("name"),
                                    cluster_name ? Value(*cluster_name) : *agent.find("cluster_name"),
                                    status ? Value(*status) : *agent.find("status"));
    if (!updated.ok() && db::is_unique_violation(updated.error())) {
      return conflict("agent_exists", "another agent has that name in that cluster");
    }
    SINDRI_CHECK(updated);
    SINDRI_CHECK(audit(call, connection, "agent.updated", "agent", id));
    return json_response(200, std::move(updated).value());
  });
}

ApiResult<http::Response> delete_agent(Call& call) {
  SINDRI_TRY(id, call.id_param());
  StagedNotices notices(*call.services.notices);
  SINDRI_TRY(answer, in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(agent, db::load_agent(connection, id));
    SINDRI_CHECK(db::delete_agent(connection, id));
    SINDRI_CHECK(db::touch_target_state(connection));
    SINDRI_CHECK(touch_credentials(call, connection));
    SINDRI_CHECK(audit(call, connection, "agent.deleted", "agent", id));
    SINDRI_CHECK(notices.stage(connection, agent_closed_notice(id, "the agent was deleted")));
    return empty_response(204);
  }));
  notices.deliver();
  return answer;
}

ApiResult<http::Response> heartbeat(Call& call) {
  SINDRI_TRY(id, call.id_param());
  if (!call.caller.is_agent(id)) return forbidden("agent_pak_mismatch", "only the agent itself may send its heartbeat");
  std::optional<bool> reachable;
  std::optional<int64_t> latency;
  // The body is optional: a plain heartbeat carries none.
  if (!call.request.body.empty()) {
    SINDRI_TRY(body, BodyObject::parse(call.request, "HeartbeatReport"));
    SINDRI_TRY(reachable_field, body.optional_bool("k8s_reachable"));
    SINDRI_TRY(latency_field, body.optional_int("k8s_api_latency_ms", 0, INT32_MAX));
    SINDRI_CHECK(body.finish());
    reachable = reachable_field;
    latency = latency_field;
  }
  SINDRI_CHECK(in_write<Ok>(call.db(), [&](store::Connection& connection) {
    return db::record_heartbeat(connection, id, reachable, latency);
  }));
  show_fleet_agent(call.services, id);
  return empty_response(204);
}

ApiResult<http::Response> rotate_agent_pak(Call& call) {
  SINDRI_TRY(id, call.id_param());
  SINDRI_CHECK(check_agent_itself_or_admin(call, id));
  const IssuedPak pak = issue_pak();
  StagedNotices notices(*call.services.notices);
  SINDRI_TRY(answer, in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(agent, db::set_agent_pak(connection, id, pak.hash));
    SINDRI_CHECK(touch_credentials(call, connection));
    SINDRI_CHECK(audit(call, connection, "pak.rotated", "agent", id));
    // A socket opened with the old PAK goes with it.
    SINDRI_CHECK(notices.stage(connection, agent_closed_notice(id, "the agent's PAK was rotated")));
    return json_response(200, agent_with_pak(std::move(agent), "pak", pak.pak));
  }));
  notices.deliver();
  return answer;
}

ApiResult<http::Response> agent_stacks(Call& call) {
  SINDRI_TRY(id, call.id_param());
  SINDRI_CHECK(check_agent_itself_or_admin(call, id));
  return in_read<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    SINDRI_TRY(agent, db::load_agent(connection, id));
    SINDRI_TRY(stacks, db::list_targeted_stacks(connection, id));
    return json_response(200, stacks);
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
  SINDRI_TRY(id, call.id_param());
  SINDRI_CHECK(check_agent_itself_or_admin(call, id));
  bool incremental = true;
  if (const std::string* mode = call.request.query_param("mode")) {
    if (*mode != "incremental" && *mode != "full") {
      return bad_request("invalid_query_parameter", "mode must be \"incremental\" or \"full\", got \"" + *mode + "\"");
    }
    incremental = *mode == "incremental";
  }
  const std::string cache_key = id + (incremental ? "/incremental" : "/full");
  const int64_t generation = call.target_state_generation.value();
  // Every answer is the same until the generation moves, on any broker of
  // the database: a poller that names the one it holds gets a 304 and no body.
  const std::string etag = "W/\"" + std::to_string(generation) + "\"";
  http::Response response;
  response.headers.push_back({"Vary", "Accept-Encoding"});
  response.headers.push_back({"ETag", etag});
  // Like a cached answer it needs no read: deleting the agent moves the generation.
  if (call.request.header("If-None-Match") == etag) {
    response.status = 304;
    response.content_type.clear();
    return response;
  }
  // Agents poll this all the time and the answer holds every manifest:
  // compressed, when the agent accepts it, like the Kubernetes API server
  // does for large lists. Both forms are cached.
  const bool gzip = http::accepts_gzip(call.request.header("Accept-Encoding"));
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
    SINDRI_TRY(agent, db::load_agent(connection, id));
    SINDRI_TRY(json, db::target_state_json(connection, id, incremental));
    auto body = http::SharedBody::make(std::move(json));
    call.services.target_states.store(cache_key, generation, body);
    response.shared_body = gzip ? compressed(call, cache_key, generation, *body) : body;
    return response;
  });
}

}  // namespace

void add_agent_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"GET", "/agents", Allow::Admin | Allow::Generator, list_agents});
  routes.push_back({"POST", "/agents", Allow::Admin, create_agent});
  routes.push_back({"GET", "/agents/", Allow::Admin | Allow::Agent, search_agent});
  routes.push_back({"GET", "/agents/{id}", Allow::Admin | Allow::Agent, get_agent});
  routes.push_back({"PUT", "/agents/{id}", Allow::Admin | Allow::Agent, update_agent});
  routes.push_back({"DELETE", "/agents/{id}", Allow::Admin, delete_agent});
  routes.push_back({"POST", "/agents/{id}/heartbeat", Allow::Agent, heartbeat});
  routes.push_back({"POST", "/agents/{id}/rotate-pak", Allow::Admin | Allow::Agent, rotate_agent_pak});
  routes.push_back({"GET", "/agents/{id}/stacks", Allow::Admin | Allow::Agent, agent_stacks});
  routes.push_back({"GET", "/agents/{id}/target-state", Allow::Admin | Allow::Agent, target_state});
}

}  // namespace sindri::broker
