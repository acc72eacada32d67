// Instantiating a template into a stack (seed 000), and the dry run that
// answers with the YAML instead of storing it. The checks run in the seed's
// order: the stack and the template exist, their labels match, the
// parameters satisfy the schema, the template renders, the output is
// Kubernetes YAML. Only then does one transaction write the deployment
// object and its provenance. Rendering happens outside any transaction, so
// that the database's writer is held only for the two inserts.

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

// Everything the render needs, read in one transaction.
struct Instantiable {
  std::string template_name;
  int64_t template_version = 0;
  std::string content;
  std::string parameters_schema;
};

// The template must be live, and when a stack is named the caller must be
// allowed to deploy into it and the template's labels must match it.
ApiResult<Instantiable> load_instantiable(Call& call, std::string_view template_id, const std::string* stack_id) {
  return in_read<Instantiable>(call.db(), [&](store::Connection& connection) -> ApiResult<Instantiable> {
    if (stack_id != nullptr) {
      BROKER_TRY(stack, load_stack(connection, *stack_id));
      BROKER_CHECK(check_stack_access(connection, call.caller, stack, StackAccess::Manage));
    }
    BROKER_TRY(tpl, load_template(connection, template_id));
    if (stack_id != nullptr) {
      BROKER_TRY(mismatch, template_mismatch(connection, template_id, *stack_id));
      if (!mismatch.empty()) return mismatch_error(mismatch, template_id, *stack_id);
    }
    Instantiable out;
    out.template_name = std::string(field(tpl, "name"));
    out.template_version = tpl.find("version")->get_int();
    out.content = std::string(field(tpl, "template_content"));
    out.parameters_schema = std::string(field(tpl, "parameters_schema"));
    return out;
  });
}

ApiResult<std::string> render(const Instantiable& source, const Value& parameters) {
  return render_template_version(
      TemplateVersion{source.template_name, source.template_version, source.content, source.parameters_schema},
      parameters);
}

ApiResult<http::Response> instantiate(Call& call) {
  BROKER_TRY(stack_id, call.id_param());
  BROKER_TRY(body, BodyObject::parse(call.request, "TemplateInstantiationRequest"));
  BROKER_TRY(template_id, body.required_string("template_id", kUuidRule));
  BROKER_TRY(parameters, body.required_value("parameters"));
  BROKER_CHECK(body.finish());
  BROKER_TRY(source, load_instantiable(call, template_id, &stack_id));
  BROKER_TRY(yaml, render(source, parameters));
  const std::string checksum = sha256_hex(yaml);
  const std::string recorded_parameters = to_json(parameters);
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    // The stack may have been deleted while the template rendered.
    BROKER_TRY(live, connection.query("SELECT 1 FROM stacks WHERE id = $1 AND deleted_at IS NULL", {Value(stack_id)}));
    if (live.empty()) return not_found("stack", stack_id);
    BROKER_TRY(object, insert_deployment_object(connection, stack_id, yaml, checksum, false));
    BROKER_CHECK(connection.query(
        "INSERT INTO rendered_deployment_objects (id, deployment_object_id, template_id, template_version, "
        "template_parameters, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
        {Value(new_uuid()), *object.find("id"), Value(template_id), Value(source.template_version),
         Value(recorded_parameters), *object.find("created_at")}));
    return json_response(201, object);
  });
}

// Beyond Brokkr: every check of an instantiation, nothing stored; the
// preview of the admin UI and of `sindri template render`.
ApiResult<http::Response> dry_run(Call& call) {
  BROKER_TRY(template_id, call.id_param());
  BROKER_TRY(body, BodyObject::parse(call.request, "TemplateRenderRequest"));
  BROKER_TRY(parameters, body.required_value("parameters"));
  BROKER_TRY(stack_id, body.optional_string("stack_id", kUuidRule));
  BROKER_CHECK(body.finish());
  BROKER_TRY(source, load_instantiable(call, template_id, stack_id ? &*stack_id : nullptr));
  BROKER_TRY(yaml, render(source, parameters));
  Object answer;
  answer.push_back({Value("template_id"), Value(template_id)});
  answer.push_back({Value("template_version"), Value(source.template_version)});
  answer.push_back({Value("checksum"), Value(sha256_hex(yaml))});
  answer.push_back({Value("yaml_content"), Value(std::move(yaml))});
  return json_response(200, Value(std::move(answer)));
}

}  // namespace

void add_instantiation_routes(std::vector<ApiRoute>& routes) {
  routes.push_back({"POST", "/stacks/{id}/deployment-objects/from-template", true, true, false, instantiate});
  routes.push_back({"POST", "/templates/{id}/render", true, true, false, dry_run});
}

}  // namespace sindri::broker
