// Instantiating a template into a stack (seed 000), and the dry run that
// answers with the YAML instead of storing it. The checks answer in the
// seed's order: the stack and the template exist and are live, the caller
// may deploy into the stack, their labels match, the parameters satisfy the
// schema, the template renders, the output is Kubernetes YAML. Rendering
// runs outside any transaction; the database checks run again inside the
// transaction that writes the deployment object and its provenance, so that
// a template retired or relabelled meanwhile is never instantiated.

#include <memory>
#include <optional>

#include "broker/bounded_cache.hpp"
#include "broker/ids.hpp"
#include "broker/records.hpp"
#include "broker/request_body.hpp"
#include "broker/routes.hpp"
#include "broker/template_rendering.hpp"
#include "broker/template_targets.hpp"
#include "value/digest.hpp"
#include "value/json.hpp"

namespace sindri::broker {
namespace {

struct LoadedVersion {
  int64_t version = 0;
  CompiledTemplateVersion compiled;
};
using LoadedVersionPtr = std::shared_ptr<const LoadedVersion>;

// A template version never changes once stored (an update makes a new id),
// so its compiled form is kept by id; whether the version is still live is
// asked of the database every time.
BoundedCache<LoadedVersion>& loaded_versions() {
  static BoundedCache<LoadedVersion> cache;
  return cache;
}

// The version by id, live or not (liveness is checked with the stack).
ApiResult<LoadedVersionPtr> load_version(Call& call, const std::string& template_id) {
  if (LoadedVersionPtr cached = loaded_versions().find(template_id)) return cached;
  BROKER_TRY(rows, in_read<store::Rows>(call.db(), [&](store::Connection& connection) -> ApiResult<store::Rows> {
    BROKER_TRY(found, connection.query("SELECT name, version, template_content, parameters_schema "
                                       "FROM stack_templates WHERE id = $1",
                                       {Value(template_id)}));
    return found;
  }));
  if (rows.empty()) return not_found("template", template_id);
  const auto& row = rows.rows[0];
  const int64_t version = row[1].get_int();
  BROKER_TRY(compiled, compile_template_version(TemplateVersion{row[0].get_string(), version, row[2].get_string(),
                                                                row[3].get_string()}));
  auto loaded = std::make_shared<const LoadedVersion>(LoadedVersion{version, std::move(compiled)});
  loaded_versions().add(template_id, loaded);
  return LoadedVersionPtr(loaded);
}

// SQLite answers a comparison with 0/1, PostgreSQL with a boolean.
bool is_true(const Value& cell) { return cell.is_bool() ? cell.get_bool() : cell.is_int() && cell.get_int() != 0; }

// Whether `template_id` may be instantiated into `stack_id` by the caller:
// 404 for a missing stack or template, then 403, then 422 listing what the
// stack lacks. One query answers it when all is well.
ApiResult<Ok> check_target(store::Connection& connection, const Identity& caller, const std::string& template_id,
                           const std::string& stack_id) {
  BROKER_TRY(rows, connection.query("SELECT s.generator_id, t.id IS NOT NULL AND t.deleted_at IS NULL, "
                                    SINDRI_STACK_MATCHES_TEMPLATE
                                    " FROM stacks s LEFT JOIN stack_templates t ON t.id = $2 "
                                    "WHERE s.id = $1 AND s.deleted_at IS NULL",
                                    {Value(stack_id), Value(template_id)}));
  if (rows.empty()) return not_found("stack", stack_id);
  const auto& row = rows.rows[0];
  if (!is_true(row[1])) return not_found("template", template_id);
  Object stack;
  stack.push_back({Value("id"), Value(stack_id)});
  stack.push_back({Value("generator_id"), row[0]});
  BROKER_CHECK(check_stack_access(connection, caller, Value(std::move(stack)), StackAccess::Manage));
  if (!is_true(row[2])) {
    BROKER_TRY(mismatch, template_mismatch(connection, template_id, stack_id));
    return mismatch_error(mismatch, template_id, stack_id);
  }
  return Ok{};
}

// Every check that needs the database, read-only: with a stack, as
// instantiation into it; without, only that the template is live.
ApiResult<Ok> check_in_read(Call& call, const std::string& template_id, const std::optional<std::string>& stack_id) {
  return in_read<Ok>(call.db(), [&](store::Connection& connection) -> ApiResult<Ok> {
    if (stack_id) return check_target(connection, call.caller, template_id, *stack_id);
    return check_template_access(connection, call.caller, template_id, false);
  });
}

struct Rendered {
  std::string yaml;
  int64_t version = 0;
};

ApiResult<Rendered> render_version(Call& call, const std::string& template_id, const Value& parameters) {
  BROKER_TRY(loaded, load_version(call, template_id));
  BROKER_TRY(yaml, render_compiled(loaded->compiled, parameters, call.services.object_limit));
  return Rendered{std::move(yaml), loaded->version};
}

ApiResult<http::Response> instantiate(Call& call) {
  BROKER_TRY(stack_id, call.id_param());
  BROKER_TRY(body, BodyObject::parse(call.request, "TemplateInstantiationRequest"));
  BROKER_TRY(template_id, body.required_string("template_id", kUuidRule));
  BROKER_TRY(parameters, body.required_value("parameters"));
  BROKER_CHECK(body.finish());
  auto rendered = render_version(call, template_id, parameters);
  if (!rendered.ok()) {
    // A failure to load or render yields to the error the seed's order puts
    // first (404, 403, 422), when there is one.
    BROKER_CHECK(check_in_read(call, template_id, stack_id));
    return std::move(rendered).error();
  }
  const std::string checksum = sha256_hex(rendered->yaml);
  const std::string recorded_parameters = to_json(parameters);
  // The answer is written outside the transaction: SQLite's writes queue
  // behind it.
  BROKER_TRY(object, in_write<Value>(call.db(), [&](store::Connection& connection) -> ApiResult<Value> {
    // One statement checks the stack, its owner, the template and their
    // labels as it inserts; only when it inserts nothing does check_target
    // say which answer is due.
    const std::string_view owner =
        call.caller.kind == Identity::Kind::Generator ? std::string_view(call.caller.id) : std::string_view();
    const Provenance provenance{template_id, rendered->version, recorded_parameters};
    auto inserted = insert_deployment_object(connection, stack_id, rendered->yaml, checksum, false, owner, &provenance);
    if (!inserted.ok() && inserted.error().status == 404) {
      BROKER_CHECK(check_target(connection, call.caller, template_id, stack_id));
    }
    return inserted;
  }));
  return json_response(201, object);
}

// Beyond Brokkr: every check of an instantiation, nothing stored; the
// preview of the admin UI and of `sindri template render`.
ApiResult<http::Response> dry_run(Call& call) {
  BROKER_TRY(template_id, call.id_param());
  BROKER_TRY(body, BodyObject::parse(call.request, "TemplateRenderRequest"));
  BROKER_TRY(parameters, body.required_value("parameters"));
  BROKER_TRY(stack_id, body.optional_string("stack_id", kUuidRule));
  BROKER_CHECK(body.finish());
  BROKER_CHECK(check_in_read(call, template_id, stack_id));
  BROKER_TRY(rendered, render_version(call, template_id, parameters));
  Object answer;
  answer.push_back({Value("template_id"), Value(template_id)});
  answer.push_back({Value("template_version"), Value(rendered.version)});
  answer.push_back({Value("checksum"), Value(sha256_hex(rendered.yaml))});
  answer.push_back({Value("yaml_content"), Value(std::move(rendered.yaml))});
  return json_response(200, Value(std::move(answer)));
}

}  // namespace

void add_instantiation_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"POST", "/stacks/{id}/deployment-objects/from-template", true, true, false, instantiate});
  routes.push_back({"POST", "/templates/{id}/render", true, true, false, dry_run});
}

}  // namespace sindri::broker
