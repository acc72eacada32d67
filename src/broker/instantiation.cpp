// Instantiating a template into a stack (seed 000), and the dry run that
// answers with the YAML instead of storing it. The checks run in the seed's
// order: the stack and the template exist, their labels match, the
// parameters satisfy the schema, the template renders, the output is
// Kubernetes YAML. Only then does one transaction write the deployment
// object and its provenance. Rendering happens outside any transaction, so
// that the database's writer is held only for the two inserts.

#include <memory>
#include <mutex>
#include <unordered_map>

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

// What the render needs. A template version never changes once stored (an
// update makes a new id), so this is kept in memory by id; whether the
// version is still live is asked of the database every time.
struct Instantiable {
  std::string template_name;
  int64_t template_version = 0;
  std::string content;
  std::string parameters_schema;
};
using InstantiablePtr = std::shared_ptr<const Instantiable>;

class TemplateVersionCache {
 public:
  InstantiablePtr find(const std::string& id) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = versions_.find(id);
    return it == versions_.end() ? nullptr : it->second;
  }
  void add(const std::string& id, InstantiablePtr version) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (versions_.size() >= kCapacity) versions_.clear();
    versions_.emplace(id, std::move(version));
  }

 private:
  static constexpr size_t kCapacity = 1024;
  std::mutex mutex_;
  std::unordered_map<std::string, InstantiablePtr> versions_;
};

TemplateVersionCache& template_versions() {
  static TemplateVersionCache cache;
  return cache;
}

ApiResult<InstantiablePtr> load_version(store::Connection& connection, const std::string& template_id) {
  if (InstantiablePtr cached = template_versions().find(template_id)) return cached;
  BROKER_TRY(rows, connection.query("SELECT name, version, template_content, parameters_schema FROM stack_templates "
                                    "WHERE id = $1",
                                    {Value(template_id)}));
  if (rows.empty()) return not_found("template", template_id);
  const auto& row = rows.rows[0];
  auto version = std::make_shared<const Instantiable>(Instantiable{
      std::string(row[0].get_string()), row[1].get_int(), std::string(row[2].get_string()),
      std::string(row[3].get_string())});
  template_versions().add(template_id, version);
  return InstantiablePtr(version);
}

// SQLite answers a comparison with 0/1, PostgreSQL with a boolean; NULL
// (no such row) is false.
bool is_true(const Value& cell) { return cell.is_bool() ? cell.get_bool() : cell.is_int() && cell.get_int() != 0; }

// The template must be live, and when a stack is named the caller must be
// allowed to deploy into it and the template's labels must match it. One
// query answers all of it; the details of a mismatch take two more.
ApiResult<InstantiablePtr> load_instantiable(Call& call, const std::string& template_id, const std::string* stack_id) {
  return in_read<InstantiablePtr>(call.db(), [&](store::Connection& connection) -> ApiResult<InstantiablePtr> {
    if (stack_id == nullptr) {
      BROKER_TRY(rows, connection.query("SELECT 1 FROM stack_templates WHERE id = $1 AND deleted_at IS NULL",
                                        {Value(template_id)}));
      if (rows.empty()) return not_found("template", template_id);
      return load_version(connection, template_id);
    }
    BROKER_TRY(rows, connection.query(
                         "SELECT s.generator_id, "
                         "(SELECT t.deleted_at IS NULL FROM stack_templates t WHERE t.id = $2), "
                         "(SELECT COUNT(*) FROM template_labels tl WHERE tl.template_id = $2 AND NOT EXISTS "
                         "  (SELECT 1 FROM stack_labels sl WHERE sl.stack_id = s.id AND sl.label = tl.label)) + "
                         "(SELECT COUNT(*) FROM template_annotations ta WHERE ta.template_id = $2 AND NOT EXISTS "
                         "  (SELECT 1 FROM stack_annotations sa WHERE sa.stack_id = s.id AND sa.key = ta.key "
                         "   AND sa.value = ta.value)) "
                         "FROM stacks s WHERE s.id = $1 AND s.deleted_at IS NULL",
                         {Value(*stack_id), Value(template_id)}));
    if (rows.empty()) return not_found("stack", *stack_id);
    const auto& row = rows.rows[0];
    Object stack;
    stack.push_back({Value("id"), Value(*stack_id)});
    stack.push_back({Value("generator_id"), row[0]});
    BROKER_CHECK(check_stack_access(connection, call.caller, Value(std::move(stack)), StackAccess::Manage));
    if (!is_true(row[1])) return not_found("template", template_id);
    if (row[2].get_int() != 0) {
      BROKER_TRY(mismatch, template_mismatch(connection, template_id, *stack_id));
      return mismatch_error(mismatch, template_id, *stack_id);
    }
    return load_version(connection, template_id);
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
  BROKER_TRY(yaml, render(*source, parameters));
  const std::string checksum = sha256_hex(yaml);
  const std::string recorded_parameters = to_json(parameters);
  return in_write<http::Response>(call.db(), [&](store::Connection& connection) -> ApiResult<http::Response> {
    // 404 if the stack was deleted while the template rendered.
    BROKER_TRY(object, insert_deployment_object(connection, stack_id, yaml, checksum, false));
    BROKER_CHECK(connection.query(
        "INSERT INTO rendered_deployment_objects (id, deployment_object_id, template_id, template_version, "
        "template_parameters, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
        {Value(new_uuid()), *object.find("id"), Value(template_id), Value(source->template_version),
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
  BROKER_TRY(yaml, render(*source, parameters));
  Object answer;
  answer.push_back({Value("template_id"), Value(template_id)});
  answer.push_back({Value("template_version"), Value(source->template_version)});
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
