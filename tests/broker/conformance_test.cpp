// The broker against brokkr-v1.json itself: every path and method of the
// API (all 95 operations, in two tests: the core, and the fleet and admin) is
// called, and every call's answer must carry the one status the
// test expects of it (so a documented but wrong status, 403 or 500 where 200
// is due, fails), a status the file documents for that operation (or one of
// docs/broker.md's stricter ones: 404, 409), and a body that validates against
// the file's schema for that status (objects may not carry fields the schema
// lacks). Identities the operation's `security` leaves out get 403; no PAK
// gets 401.

#include <algorithm>
#include <map>
#include <set>
#include <source_location>
#include <span>

#include "broker_process.hpp"
#include "schema/schema.hpp"
#include "value/digest.hpp"
#include "value/pointer.hpp"

namespace sindri_test {
namespace {

using sindri::Array;
using sindri::Member;
using sindri::Object;
using sindri::Value;

const char* const kCoveredPaths[] = {
    "/agents", "/agents/", "/agents/{id}", "/agents/{id}/annotations", "/agents/{id}/annotations/{key}",
    "/agents/{id}/events", "/agent-events", "/agent-events/{id}", "/agents/{id}/heartbeat", "/agents/{id}/labels",
    "/agents/{id}/labels/{label}", "/agents/{id}/rotate-pak", "/agents/{id}/stacks", "/agents/{id}/target-state",
    "/agents/{id}/targets", "/agents/{id}/targets/{stack_id}", "/auth/pak", "/deployment-objects/{id}",
    "/generators", "/generators/{id}", "/generators/{id}/rotate-pak", "/stacks", "/stacks/{id}",
    "/stacks/{id}/annotations", "/stacks/{id}/annotations/{key}", "/stacks/{id}/deployment-objects",
    "/stacks/{id}/labels", "/stacks/{id}/labels/{label}", "/stacks/{stack_id}/deployment-objects/from-template",
    "/templates", "/templates/{id}", "/templates/{id}/labels", "/templates/{id}/labels/{label}",
    "/templates/{id}/annotations", "/templates/{id}/annotations/{key}", "/generators/{id}/register",
    "/generators/{id}/registered-agents", "/agents/{id}/registrations", "/paks",
    // Sindri's own, documented in the document the broker serves.
    "/templates/{id}/render", "/templates/{id}/targets", "/deployment-objects/{id}/provenance",
    "/stacks/{id}/provenance",
};

// Work orders, diagnostics, webhooks, health, fleet, telemetry and admin.
const char* const kOperationsPaths[] = {
    "/webhooks", "/webhooks/event-types", "/webhooks/{id}", "/webhooks/{id}/deliveries", "/webhooks/{id}/test",
    "/agents/{agent_id}/webhooks/pending", "/webhook-deliveries/{id}/result", "/work-orders", "/work-orders/{id}",
    "/work-order-log", "/work-order-log/{id}", "/work-orders/{id}/claim", "/work-orders/{id}/complete",
    "/agents/{agent_id}/work-orders/pending", "/deployment-objects/{id}/diagnostics", "/diagnostics/{id}",
    "/diagnostics/{id}/claim", "/diagnostics/{id}/result", "/agents/{id}/diagnostics/pending",
    "/agents/{id}/health-status", "/deployment-objects/{id}/health", "/stacks/{id}/health", "/fleet",
    "/agents/{id}/fleet-status", "/stacks/{id}/events", "/stacks/{id}/logs", "/admin/audit-logs",
    "/admin/config/reload", "/admin/ws/connections",
};

using PathList = std::span<const char* const>;

Value load_api() {
  auto parsed = sindri::parse_json(slurp(fs::path(SINDRI_SOURCE_DIR) / "../shared/api/brokkr-v1.json"));
  if (!parsed.ok()) throw std::runtime_error("cannot read ../shared/api/brokkr-v1.json");
  return std::move(parsed).value();
}

// OpenAPI 3.0 schema → JSON Schema: `nullable` becomes a null type,
// component references point into $defs, and objects with listed properties
// admit no others.
Value to_json_schema(const Value& schema) {
  if (schema.is_array()) {
    Array items;
    for (const Value& item : schema.get_array()) items.push_back(to_json_schema(item));
    return Value(std::move(items));
  }
  if (!schema.is_object()) return schema;
  Object out;
  const Value* nullable = schema.find("nullable");
  const bool is_nullable = nullable != nullptr && nullable->is_bool() && nullable->get_bool();
  for (const Member& member : schema.get_object()) {
    const std::string_view key = member.key.get_string();
    if (key == "nullable" || key == "example" || key == "description") continue;
    if (key == "$ref" && member.value.is_string()) {
      std::string ref(member.value.get_string());
      const std::string prefix = "#/components/schemas/";
      if (ref.rfind(prefix, 0) == 0) ref = "#/$defs/" + ref.substr(prefix.size());
      out.push_back({member.key, Value(ref)});
      continue;
    }
    if (key == "type" && is_nullable && member.value.is_string()) {
      out.push_back({member.key, Value(Array{member.value, Value("null")})});
      continue;
    }
    if (key == "properties") {
      Object properties;
      for (const Member& property : member.value.get_object()) {
        properties.push_back({property.key, to_json_schema(property.value)});
      }
      out.push_back({member.key, Value(std::move(properties))});
      continue;
    }
    out.push_back({member.key, to_json_schema(member.value)});
  }
  if (schema.find("properties") != nullptr && schema.find("additionalProperties") == nullptr) {
    out.push_back({Value("additionalProperties"), Value(false)});
  }
  return Value(std::move(out));
}

// A schema made of allOf parts (AuditLogEntry: an AuditLog and actor_name)
// as one object with every part's properties, so that closing objects to
// unlisted properties does not close each part to the others'.
Value flatten_all_of(const Value& schema, const Value& components) {
  const Value* parts = schema.is_object() ? schema.find("allOf") : nullptr;
  if (parts == nullptr || !parts->is_array()) return schema;
  Object properties;
  Array required;
  Object merged;
  for (const Member& member : schema.get_object()) {
    if (member.key.get_string() != "allOf") merged.push_back(member);
  }
  for (const Value& part : parts->get_array()) {
    const Value* ref = part.find("$ref");
    const std::string prefix = "#/components/schemas/";
    const Value resolved = ref != nullptr && ref->is_string() && ref->get_string().starts_with(prefix)
                               ? flatten_all_of(*components.find(ref->get_string().substr(prefix.size())), components)
                               : part;
    if (const Value* listed = resolved.find("properties")) {
      for (const Member& property : listed->get_object()) properties.push_back(property);
    }
    if (const Value* names = resolved.find("required")) {
      for (const Value& name : names->get_array()) required.push_back(name);
    }
  }
  merged.push_back({Value("type"), Value("object")});
  merged.push_back({Value("properties"), Value(std::move(properties))});
  merged.push_back({Value("required"), Value(std::move(required))});
  return Value(std::move(merged));
}

// Where docs/broker.md says Sindri is stricter than the API file: an unknown id
// (404) and a duplicate (409) answer an ErrorResponse even on operations
// whose documentation lists no such status.
const std::set<int> kStricterStatuses = {404, 409};

// The ids of a JSON array of records, in order.
std::vector<std::string> ids_in(const Value& records) {
  std::vector<std::string> ids;
  if (!records.is_array()) return ids;
  for (const Value& record : records.get_array()) ids.push_back(text_of(record, "id"));
  return ids;
}

struct Record {
  std::string method, path_template, concrete;
  int status = 0;
  Reply reply;
};

Value served_document(const BrokerProcess& broker) {
  Reply served = call(*broker.client(""), "GET", "/api/v1/openapi.json");
  if (served.status != 200 || !served.json.is_object()) {
    throw std::runtime_error("GET /api/v1/openapi.json answered " + std::to_string(served.status));
  }
  return served.json;
}

class Conformance : public ::testing::TestWithParam<Backend> {
 protected:
  const Value* operation(const std::string& method, const std::string& path) const {
    const Value* item = api_.find("paths")->find(path);
    if (item == nullptr) return nullptr;
    std::string lower = method;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return item->find(lower);
  }

  // One call of the covered API. Its status must be `expected` exactly; a
  // failure names the calling line. check_records checks it against the file.
  Reply hit(sindri::http::Client& client, const std::string& method, const std::string& path_template,
            const std::string& concrete, int expected, const std::string& body = {},
            std::source_location caller = std::source_location::current()) {
    Reply reply = call(client, method, "/api/v1" + concrete, body);
    if (reply.status != expected) {
      ADD_FAILURE_AT(caller.file_name(), caller.line())
          << method << " " << concrete << " answered " << reply.status << ", expected " << expected << "; body "
          << reply.body;
    }
    records_.push_back({method, path_template, concrete, reply.status, reply});
    return reply;
  }

  void check_records(PathList covered = kCoveredPaths) {
    Value defs;
    {
      Object converted;
      for (const Member& member : api_.find("components")->find("schemas")->get_object()) {
        converted.push_back({member.key, to_json_schema(flatten_all_of(member.value, *api_.find("components")->find("schemas")))});
      }
      defs = Value(std::move(converted));
    }
    const Value error_response = sindri::parse_json(R"({"$ref":"#/components/schemas/ErrorResponse"})").value();
    std::set<std::string> seen;
    for (const Record& record : records_) {
      const std::string where = record.method + " " + record.concrete + " -> " + std::to_string(record.status);
      const Value* op = operation(record.method, record.path_template);
      ASSERT_NE(op, nullptr) << record.method << " " << record.path_template << " is not in the served document";
      seen.insert(record.method + " " + record.path_template);
      const Value* response = op->find("responses")->find(std::to_string(record.status));
      const Value* schema = &error_response;
      if (response == nullptr) {
        EXPECT_TRUE(kStricterStatuses.count(record.status))
            << where << " is not a documented status; body " << record.reply.body;
      } else {
        const Value* content = response->find("content");
        if (content == nullptr) {
          EXPECT_TRUE(record.reply.body.empty()) << where << " should have no body";
          continue;
        }
        schema = sindri::follow_pointer(*content, "/application~1json/schema");
        ASSERT_NE(schema, nullptr) << where;
      }
      Value json_schema = to_json_schema(*schema);
      if (!json_schema.is_object()) continue;
      json_schema.set("$defs", defs);
      auto compiled = sindri::schema::compile_schema(json_schema, sindri::schema::Draft::Draft2020_12);
      ASSERT_TRUE(compiled.ok()) << where << ": " << compiled.error().describe();
      for (const auto& violation : sindri::schema::validate(*compiled, record.reply.json)) {
        ADD_FAILURE() << where << ": " << violation.describe() << "\nbody: " << record.reply.body;
      }
    }
    for (const char* path : covered) {
      for (const Member& method : api_.find("paths")->find(path)->get_object()) {
        std::string upper(method.key.get_string());
        for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        EXPECT_TRUE(seen.count(upper + " " + path)) << upper << " " << path << " was never called";
      }
    }
  }

  // Every covered operation refuses a missing PAK with 401, and the
  // identity kinds its `security` leaves out with 403.
  void check_security(BrokerProcess& broker, const std::map<std::string, std::string>& paks,
                      const std::map<std::string, std::string>& ids, PathList covered = kCoveredPaths) {
    auto anonymous = broker.client("");
    for (const char* path : covered) {
      std::string concrete = path;
      for (const auto& [name, id] : ids) {
        const std::string placeholder = "{" + name + "}";
        for (size_t at; (at = concrete.find(placeholder)) != std::string::npos;) concrete.replace(at, placeholder.size(), id);
      }
      for (const Member& method : api_.find("paths")->find(path)->get_object()) {
        std::string upper(method.key.get_string());
        for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        const Reply unauthenticated = call(*anonymous, upper, "/api/v1" + concrete, "{}");
        EXPECT_EQ(unauthenticated.status, 401) << upper << " " << path << " without a PAK";
        EXPECT_EQ(text_of(unauthenticated.json, "code"), "unauthorized");
        std::set<std::string> allowed;
        for (const Value& requirement : method.value.find("security")->get_array()) {
          for (const Member& scheme : requirement.get_object()) allowed.insert(std::string(scheme.key.get_string()));
        }
        for (const auto& [scheme, pak] : paks) {
          if (allowed.count(scheme)) continue;
          auto client = broker.client(pak);
          const Reply refused = call(*client, upper, "/api/v1" + concrete, "{}");
          EXPECT_EQ(refused.status, 403) << upper << " " << path << " with " << scheme << ": " << refused.body;
        }
      }
    }
  }

  Value api_;
  std::vector<Record> records_;
};

TEST_P(Conformance, EveryCoveredOperationAnswersAsDocumented) {
  BrokerProcess broker(GetParam());
  if (!broker.usable()) return;
  broker.start();
  // Sindri's operations are documented only there; Brokkr's, as the file
  // has them (the next test).
  api_ = served_document(broker);
  auto admin = broker.client(broker.admin_pak());
  const std::string unknown_id = sindri::sha256_hex("x").substr(0, 8) + "-0000-4000-8000-000000000000";

  hit(*admin, "POST", "/auth/pak", "/auth/pak", 200);
  Reply generator = hit(*admin, "POST", "/generators", "/generators", 201, R"({"name":"ci","description":null})");
  ASSERT_EQ(generator.status, 201) << generator.body;
  const std::string generator_id = text_of(*generator.json.find("generator"), "id");
  auto ci = broker.client(text_of(generator.json, "pak"));
  hit(*admin, "POST", "/generators", "/generators", 409, R"({"name":"ci"})");
  Reply generators = hit(*admin, "GET", "/generators", "/generators", 200);
  const auto& listed = generators.json.get_array();
  EXPECT_TRUE(std::any_of(listed.begin(), listed.end(), [](const Value& generator) {
    const Value* is_system = generator.find("is_system");
    return is_system != nullptr && is_system->get_bool();
  })) << generators.body;
  // The tenants are the generators with PAKs: not the system generator.
  Reply tenants = hit(*admin, "GET", "/paks", "/paks", 200);
  ASSERT_EQ(tenants.json.size(), 1u) << tenants.body;
  EXPECT_EQ(text_of(*tenants.json.at(0), "id"), generator_id);
  EXPECT_EQ(text_of(*tenants.json.at(0), "name"), "ci");
  // A PUT carries the whole record, as GET answers it.
  Value generator_record = hit(*ci, "GET", "/generators/{id}", "/generators/" + generator_id, 200).json;
  generator_record.set("name", Value("ci-2"));
  generator_record.set("description", Value("the pipeline"));
  Reply renamed = hit(*ci, "PUT", "/generators/{id}", "/generators/" + generator_id, 200,
                      sindri::to_json(generator_record));
  EXPECT_EQ(text_of(renamed.json, "name"), "ci-2");
  EXPECT_EQ(text_of(renamed.json, "description"), "the pipeline");
  Reply reread = hit(*ci, "GET", "/generators/{id}", "/generators/" + generator_id, 200);
  EXPECT_EQ(text_of(reread.json, "name"), "ci-2");
  EXPECT_EQ(text_of(reread.json, "description"), "the pipeline");
  Reply rotated = hit(*ci, "POST", "/generators/{id}/rotate-pak", "/generators/" + generator_id + "/rotate-pak", 201);
  ci = broker.client(text_of(rotated.json, "pak"));
  hit(*admin, "GET", "/generators/{id}", "/generators/" + unknown_id, 404);

  // A second generator may not take the first one's name, and is gone once deleted.
  Reply second = hit(*admin, "POST", "/generators", "/generators", 201, R"({"name":"cd"})");
  ASSERT_EQ(second.status, 201) << second.body;
  const std::string second_id = text_of(*second.json.find("generator"), "id");
  Value second_record = hit(*admin, "GET", "/generators/{id}", "/generators/" + second_id, 200).json;
  second_record.set("name", Value("ci-2"));
  hit(*admin, "PUT", "/generators/{id}", "/generators/" + second_id, 409, sindri::to_json(second_record));
  hit(*admin, "DELETE", "/generators/{id}", "/generators/" + second_id, 204);
  hit(*admin, "GET", "/generators/{id}", "/generators/" + second_id, 404);

  Reply stack =
      hit(*ci, "POST", "/stacks", "/stacks", 201, R"({"name":"web","generator_id":")" + generator_id + R"("})");
  ASSERT_EQ(stack.status, 201) << stack.body;
  const std::string stack_id = text_of(stack.json, "id");
  hit(*ci, "GET", "/stacks", "/stacks", 200);
  hit(*admin, "GET", "/stacks", "/stacks?pak_id=" + generator_id, 200);
  Value stack_record = hit(*ci, "GET", "/stacks/{id}", "/stacks/" + stack_id, 200).json;
  stack_record.set("name", Value("web-2"));
  stack_record.set("description", Value("front end"));
  hit(*ci, "PUT", "/stacks/{id}", "/stacks/" + stack_id, 200, sindri::to_json(stack_record));
  hit(*ci, "PUT", "/stacks/{id}", "/stacks/" + stack_id, 400, R"({"name":7})");
  const std::string stack_labels = "/stacks/" + stack_id + "/labels";
  hit(*ci, "POST", "/stacks/{id}/labels", stack_labels, 201, R"("env=prod")");
  hit(*ci, "POST", "/stacks/{id}/labels", stack_labels, 409, R"("env=prod")");
  hit(*ci, "POST", "/stacks/{id}/labels", stack_labels, 400, R"("bad label")");
  hit(*ci, "POST", "/stacks/{id}/labels", stack_labels, 201, R"("tmp")");
  hit(*ci, "GET", "/stacks/{id}/labels", stack_labels, 200);
  hit(*ci, "DELETE", "/stacks/{id}/labels/{label}", stack_labels + "/tmp", 204);
  hit(*ci, "DELETE", "/stacks/{id}/labels/{label}", stack_labels + "/tmp", 404);
  const std::string stack_annotations = "/stacks/" + stack_id + "/annotations";
  hit(*ci, "POST", "/stacks/{id}/annotations", stack_annotations, 201,
      R"({"stack_id":")" + stack_id + R"(","key":"region","value":"eu"})");
  hit(*ci, "POST", "/stacks/{id}/annotations", stack_annotations, 409, R"({"key":"region","value":"us"})");
  hit(*ci, "POST", "/stacks/{id}/annotations", stack_annotations, 201, R"({"key":"tmp","value":"1"})");
  hit(*ci, "GET", "/stacks/{id}/annotations", stack_annotations, 200);
  hit(*ci, "DELETE", "/stacks/{id}/annotations/{key}", stack_annotations + "/tmp", 204);

  const std::string stack_objects = "/stacks/" + stack_id + "/deployment-objects";
  Reply object = hit(*ci, "POST", "/stacks/{id}/deployment-objects", stack_objects, 201,
                     R"({"yaml_content":"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: web\n"})");
  ASSERT_EQ(object.status, 201) << object.body;
  const std::string object_id = text_of(object.json, "id");
  hit(*ci, "POST", "/stacks/{id}/deployment-objects", stack_objects, 400, R"({"yaml_content":"kind: [unclosed"})");
  hit(*ci, "GET", "/stacks/{id}/deployment-objects", stack_objects, 200);
  hit(*ci, "GET", "/deployment-objects/{id}", "/deployment-objects/" + object_id, 200);

  const std::string template_body =
      R"({"name":"ns","description":null,"template_content":"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {{ name }}\n",)"
      R"("parameters_schema":"{\"type\":\"object\",\"required\":[\"name\"]}"})";
  Reply tpl = hit(*ci, "POST", "/templates", "/templates", 201, template_body);
  ASSERT_EQ(tpl.status, 201) << tpl.body;
  hit(*ci, "POST", "/templates", "/templates", 400,
      R"({"name":"bad","template_content":"{% if %}","parameters_schema":"{}"})");
  hit(*admin, "GET", "/templates", "/templates", 200);
  hit(*admin, "GET", "/templates", "/templates?all_versions=maybe", 400);
  hit(*ci, "GET", "/templates/{id}", "/templates/" + text_of(tpl.json, "id"), 200);
  hit(*ci, "GET", "/templates/{id}", "/templates/" + stack_id, 404);
  Reply next = hit(*ci, "PUT", "/templates/{id}", "/templates/" + text_of(tpl.json, "id"), 200,
                   R"({"template_content":"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {{ name }}-v2\n",)"
                   R"("parameters_schema":"{\"type\":\"object\"}"})");
  ASSERT_EQ(next.status, 200) << next.body;
  const std::string template_id = text_of(next.json, "id");
  hit(*ci, "PUT", "/templates/{id}", "/templates/" + template_id, 400, R"({"template_content":"x"})");
  const std::string template_labels = "/templates/" + template_id + "/labels";
  hit(*ci, "POST", "/templates/{id}/labels", template_labels, 201, R"("env=prod")");
  hit(*ci, "POST", "/templates/{id}/labels", template_labels, 409, R"("env=prod")");
  hit(*ci, "POST", "/templates/{id}/labels", template_labels, 201, R"("tmp")");
  hit(*ci, "GET", "/templates/{id}/labels", template_labels, 200);
  hit(*ci, "DELETE", "/templates/{id}/labels/{label}", template_labels + "/tmp", 204);
  const std::string template_annotations = "/templates/" + template_id + "/annotations";
  hit(*ci, "POST", "/templates/{id}/annotations", template_annotations, 201, R"({"key":"region","value":"eu"})");
  hit(*ci, "POST", "/templates/{id}/annotations", template_annotations, 409, R"({"key":"region","value":"us"})");
  hit(*ci, "POST", "/templates/{id}/annotations", template_annotations, 201, R"({"key":"tmp","value":"1"})");
  hit(*ci, "GET", "/templates/{id}/annotations", template_annotations, 200);
  hit(*ci, "DELETE", "/templates/{id}/annotations/{key}", template_annotations + "/tmp", 204);
  const std::string from_template = "/stacks/" + stack_id + "/deployment-objects/from-template";
  const std::string instantiate_path = "/stacks/{stack_id}/deployment-objects/from-template";
  Reply rendered = hit(*ci, "POST", instantiate_path, from_template, 201,
                       R"({"template_id":")" + template_id + R"(","parameters":{"name":"web"}})");
  ASSERT_EQ(rendered.status, 201) << rendered.body;
  // The schema wants an object.
  hit(*ci, "POST", instantiate_path, from_template, 400,
      R"({"template_id":")" + template_id + R"(","parameters":[1]})");
  hit(*ci, "POST", instantiate_path, from_template, 404, R"({"template_id":")" + stack_id + R"(","parameters":{}})");
  // The stack lacks the template's new label.
  hit(*ci, "POST", "/templates/{id}/labels", template_labels, 201, R"("tier=db")");
  hit(*ci, "POST", instantiate_path, from_template, 422,
      R"({"template_id":")" + template_id + R"(","parameters":{"name":"web"}})");
  const std::string render = "/templates/" + template_id + "/render";
  Reply dry_run = hit(*ci, "POST", "/templates/{id}/render", render, 200, R"({"parameters":{"name":"web"}})");
  EXPECT_EQ(text_of(dry_run.json, "yaml_content"), text_of(rendered.json, "yaml_content")) << dry_run.body;
  hit(*ci, "POST", "/templates/{id}/render", render, 400, R"({"parameters":[1]})");
  hit(*ci, "POST", "/templates/{id}/render", render, 422,
      R"({"parameters":{"name":"web"},"stack_id":")" + stack_id + R"("})");
  hit(*ci, "POST", "/templates/{id}/render", "/templates/" + stack_id + "/render", 404, R"({"parameters":{}})");
  hit(*ci, "GET", "/templates/{id}/targets", "/templates/" + template_id + "/targets", 200);
  hit(*ci, "GET", "/templates/{id}/targets", "/templates/" + stack_id + "/targets", 404);
  const std::string provenance = "/deployment-objects/{id}/provenance";
  hit(*ci, "GET", provenance, "/deployment-objects/" + text_of(rendered.json, "id") + "/provenance", 200);
  hit(*ci, "GET", provenance, "/deployment-objects/" + object_id + "/provenance", 404);
  Reply stack_provenance = hit(*ci, "GET", "/stacks/{id}/provenance", "/stacks/" + stack_id + "/provenance", 200);
  EXPECT_EQ(stack_provenance.json.size(), 1u) << stack_provenance.body;
  hit(*admin, "GET", "/stacks/{id}/provenance", "/stacks/" + stack_id + "/provenance", 200);
  hit(*ci, "GET", "/stacks/{id}/provenance", "/stacks/" + unknown_id + "/provenance", 404);
  hit(*ci, "DELETE", "/templates/{id}", "/templates/" + template_id, 204);
  hit(*ci, "DELETE", "/templates/{id}", "/templates/" + template_id, 404);

  Reply agent = hit(*admin, "POST", "/agents", "/agents", 201,
                    R"({"name":"a1","cluster_name":"prod","generator_ids":[")" + generator_id + R"("]})");
  ASSERT_EQ(agent.status, 201) << agent.body;
  const std::string agent_id = text_of(*agent.json.find("agent"), "id");
  auto cluster = broker.client(text_of(agent.json, "initial_pak"));
  hit(*admin, "POST", "/agents", "/agents", 409, R"({"name":"a1","cluster_name":"prod"})");
  hit(*admin, "POST", "/agents", "/agents", 400, R"({"name":"a1"})");
  // The same name in another cluster is another agent.
  Reply staging = hit(*admin, "POST", "/agents", "/agents", 201, R"({"name":"a1","cluster_name":"staging"})");
  ASSERT_EQ(staging.status, 201) << staging.body;
  const std::string staging_id = text_of(*staging.json.find("agent"), "id");
  hit(*admin, "GET", "/agents", "/agents", 200);
  hit(*ci, "GET", "/agents", "/agents", 200);
  Reply found = hit(*cluster, "GET", "/agents/", "/agents/?name=a1&cluster_name=prod", 200);
  EXPECT_EQ(text_of(found.json, "id"), agent_id);
  found = hit(*admin, "GET", "/agents/", "/agents/?name=a1&cluster_name=staging", 200);
  EXPECT_EQ(text_of(found.json, "id"), staging_id);
  hit(*cluster, "GET", "/agents/", "/agents/?cluster_name=staging", 403);  // another agent
  hit(*admin, "GET", "/agents/", "/agents/?name=nobody", 404);
  hit(*admin, "GET", "/agents/", "/agents/", 400);  // nothing to search by
  // Moving the staging agent to prod would make a second a1 there.
  hit(*admin, "PUT", "/agents/{id}", "/agents/" + staging_id, 409, R"({"cluster_name":"prod"})");
  hit(*admin, "DELETE", "/agents/{id}", "/agents/" + staging_id, 204);
  hit(*admin, "GET", "/agents/{id}", "/agents/" + staging_id, 404);
  hit(*admin, "DELETE", "/agents/{id}", "/agents/" + staging_id, 404);

  Reply fresh = hit(*cluster, "GET", "/agents/{id}", "/agents/" + agent_id, 200);
  EXPECT_TRUE(fresh.json.find("last_heartbeat") != nullptr && fresh.json.find("last_heartbeat")->is_null())
      << fresh.body;
  Reply updated =
      hit(*admin, "PUT", "/agents/{id}", "/agents/" + agent_id, 200, R"({"name":"edge-1","status":"INACTIVE"})");
  EXPECT_EQ(text_of(updated.json, "name"), "edge-1");
  EXPECT_EQ(text_of(updated.json, "status"), "INACTIVE");
  EXPECT_EQ(text_of(updated.json, "cluster_name"), "prod");
  hit(*cluster, "PUT", "/agents/{id}", "/agents/" + agent_id, 403, R"({"name":"edge-2"})");  // only an admin renames
  hit(*cluster, "PUT", "/agents/{id}", "/agents/" + agent_id, 200, R"({"status":"ACTIVE"})");
  Reply changed = hit(*cluster, "GET", "/agents/{id}", "/agents/" + agent_id, 200);
  EXPECT_EQ(text_of(changed.json, "name"), "edge-1");
  EXPECT_EQ(text_of(changed.json, "status"), "ACTIVE");

  const std::string agent_labels = "/agents/" + agent_id + "/labels";
  hit(*admin, "POST", "/agents/{id}/labels", agent_labels, 201,
      R"({"agent_id":")" + agent_id + R"(","label":"env=prod"})");
  hit(*admin, "POST", "/agents/{id}/labels", agent_labels, 409, R"({"label":"env=prod"})");
  hit(*admin, "POST", "/agents/{id}/labels", agent_labels, 201, R"({"label":"tmp"})");
  hit(*cluster, "GET", "/agents/{id}/labels", agent_labels, 200);
  hit(*admin, "DELETE", "/agents/{id}/labels/{label}", agent_labels + "/tmp", 204);
  const std::string agent_annotations = "/agents/" + agent_id + "/annotations";
  hit(*admin, "POST", "/agents/{id}/annotations", agent_annotations, 201,
      R"({"agent_id":")" + agent_id + R"(","key":"region","value":"eu"})");
  hit(*admin, "POST", "/agents/{id}/annotations", agent_annotations, 409, R"({"key":"region","value":"us"})");
  hit(*admin, "POST", "/agents/{id}/annotations", agent_annotations, 201, R"({"key":"tmp","value":"x"})");
  hit(*cluster, "GET", "/agents/{id}/annotations", agent_annotations, 200);
  hit(*admin, "DELETE", "/agents/{id}/annotations/{key}", agent_annotations + "/tmp", 204);

  // The labels and the annotation now match the stack's.
  hit(*cluster, "GET", "/agents/{id}/targets", "/agents/" + agent_id + "/targets", 200);
  Reply stacks = hit(*cluster, "GET", "/agents/{id}/stacks", "/agents/" + agent_id + "/stacks", 200);
  EXPECT_EQ(ids_in(stacks.json), std::vector{stack_id}) << stacks.body;
  Reply state = hit(*cluster, "GET", "/agents/{id}/target-state", "/agents/" + agent_id + "/target-state", 200);
  EXPECT_EQ(state.json.size(), 1u) << state.body;
  hit(*cluster, "GET", "/agents/{id}/target-state", "/agents/" + agent_id + "/target-state?mode=full", 200);
  hit(*cluster, "GET", "/deployment-objects/{id}", "/deployment-objects/" + object_id, 200);

  const std::string heartbeat = "/agents/" + agent_id + "/heartbeat";
  hit(*cluster, "POST", "/agents/{id}/heartbeat", heartbeat, 204, R"({"k8s_reachable":true,"k8s_api_latency_ms":12})");
  Reply beating = hit(*cluster, "GET", "/agents/{id}", "/agents/" + agent_id, 200);
  EXPECT_FALSE(text_of(beating.json, "last_heartbeat").empty()) << beating.body;
  EXPECT_FALSE(text_of(beating.json, "k8s_reported_at").empty()) << beating.body;
  const Value* reachable = beating.json.find("k8s_reachable");
  EXPECT_TRUE(reachable != nullptr && reachable->is_bool() && reachable->get_bool()) << beating.body;
  const Value* latency = beating.json.find("k8s_api_latency_ms");
  EXPECT_TRUE(latency != nullptr && latency->is_int() && latency->get_int() == 12) << beating.body;
  hit(*cluster, "POST", "/agents/{id}/heartbeat", heartbeat, 204);  // a plain heartbeat has no body

  Reply event = hit(*cluster, "POST", "/agents/{id}/events", "/agents/" + agent_id + "/events", 201,
                    R"({"agent_id":")" + agent_id + R"(","deployment_object_id":")" + object_id +
                        R"(","event_type":"DEPLOYMENT","status":"SUCCESS","message":null})");
  ASSERT_EQ(event.status, 201) << event.body;
  const std::string event_id = text_of(event.json, "id");
  Reply own_events = hit(*cluster, "GET", "/agents/{id}/events", "/agents/" + agent_id + "/events", 200);
  EXPECT_EQ(ids_in(own_events.json), std::vector{event_id}) << own_events.body;
  Reply events = hit(*admin, "GET", "/agent-events", "/agent-events", 200);
  EXPECT_EQ(ids_in(events.json), std::vector{event_id}) << events.body;
  events = hit(*admin, "GET", "/agent-events", "/agent-events?pak_id=" + generator_id, 200);
  EXPECT_EQ(ids_in(events.json), std::vector{event_id}) << events.body;
  events = hit(*admin, "GET", "/agent-events", "/agent-events?pak_id=" + unknown_id, 200);
  EXPECT_EQ(ids_in(events.json), std::vector<std::string>{}) << events.body;
  Reply one_event = hit(*admin, "GET", "/agent-events/{id}", "/agent-events/" + event_id, 200);
  EXPECT_EQ(one_event.json, event.json) << one_event.body;
  hit(*admin, "GET", "/agent-events/{id}", "/agent-events/" + unknown_id, 404);

  // The agent was registered with the generator when it was created.
  const std::string register_path = "/generators/" + generator_id + "/register";
  hit(*cluster, "POST", "/generators/{id}/register", register_path, 409);
  Reply registered = hit(*ci, "GET", "/generators/{id}/registered-agents",
                         "/generators/" + generator_id + "/registered-agents", 200);
  EXPECT_EQ(registered.json.size(), 1u) << registered.body;
  hit(*cluster, "GET", "/agents/{id}/registrations", "/agents/" + agent_id + "/registrations", 200);
  hit(*cluster, "DELETE", "/generators/{id}/register", register_path, 204);
  hit(*cluster, "DELETE", "/generators/{id}/register", register_path, 404);
  hit(*ci, "POST", "/generators/{id}/register", register_path, 403);
  hit(*admin, "POST", "/generators/{id}/register", register_path, 201, R"({"agent_id":")" + agent_id + R"("})");
  hit(*admin, "POST", "/generators/{id}/register", "/generators/" + unknown_id + "/register", 404,
      R"({"agent_id":")" + agent_id + R"("})");

  // A second stack, targeted by hand.
  Reply db_stack =
      hit(*ci, "POST", "/stacks", "/stacks", 201, R"({"name":"db","generator_id":")" + generator_id + R"("})");
  const std::string other_stack = text_of(db_stack.json, "id");
  const std::string targets = "/agents/" + agent_id + "/targets";
  const std::string target_body = R"({"agent_id":")" + agent_id + R"(","stack_id":")" + other_stack + R"("})";
  hit(*ci, "POST", "/agents/{id}/targets", targets, 201, target_body);
  hit(*ci, "POST", "/agents/{id}/targets", targets, 409, target_body);
  stacks = hit(*cluster, "GET", "/agents/{id}/stacks", "/agents/" + agent_id + "/stacks", 200);
  EXPECT_EQ(ids_in(stacks.json), (std::vector{stack_id, other_stack})) << stacks.body;
  hit(*ci, "DELETE", "/agents/{id}/targets/{stack_id}", targets + "/" + other_stack, 204);
  hit(*ci, "DELETE", "/agents/{id}/targets/{stack_id}", targets + "/" + other_stack, 404);

  Reply agent_pak = hit(*cluster, "POST", "/agents/{id}/rotate-pak", "/agents/" + agent_id + "/rotate-pak", 200);
  ASSERT_EQ(agent_pak.status, 200) << agent_pak.body;
  EXPECT_EQ(call(*cluster, "POST", "/api/v1/auth/pak").status, 401);
  cluster = broker.client(text_of(agent_pak.json, "pak"));
  hit(*cluster, "POST", "/auth/pak", "/auth/pak", 200);

  const std::map<std::string, std::string> paks = {
      {"admin_pak", broker.admin_pak()}, {"generator_pak", text_of(rotated.json, "pak")},
      {"agent_pak", text_of(agent_pak.json, "pak")}};
  const std::map<std::string, std::string> ids = {{"id", stack_id}, {"stack_id", stack_id}, {"key", "region"},
                                                  {"label", "env=prod"}};
  check_security(broker, paks, ids);

  hit(*ci, "DELETE", "/stacks/{id}", "/stacks/" + other_stack, 204);
  hit(*ci, "GET", "/stacks/{id}", "/stacks/" + other_stack, 404);
  hit(*admin, "DELETE", "/agents/{id}", "/agents/" + agent_id, 204);
  hit(*admin, "GET", "/agents/{id}", "/agents/" + agent_id, 404);
  hit(*admin, "DELETE", "/generators/{id}", "/generators/" + generator_id, 204);
  hit(*admin, "GET", "/generators/{id}", "/generators/" + generator_id, 404);

  check_records();
}

// Work orders, diagnostics, webhooks, health, fleet, telemetry and admin:
// every path and method, as the first test does for the core.
TEST_P(Conformance, EveryOperationOfFleetAndAdminAnswersAsDocumented) {
  BrokerProcess broker(GetParam());
  if (!broker.usable()) return;
  broker.start();
  api_ = served_document(broker);
  auto admin = broker.client(broker.admin_pak());
  const std::string unknown_id = sindri::sha256_hex("y").substr(0, 8) + "-0000-4000-8000-000000000000";

  Reply generator = call(*admin, "POST", "/api/v1/generators", R"({"name":"ci"})");
  ASSERT_EQ(generator.status, 201) << generator.body;
  const std::string generator_id = text_of(*generator.json.find("generator"), "id");
  auto ci = broker.client(text_of(generator.json, "pak"));
  Reply stack = call(*ci, "POST", "/api/v1/stacks", R"({"name":"web","generator_id":")" + generator_id + R"("})");
  ASSERT_EQ(stack.status, 201) << stack.body;
  const std::string stack_id = text_of(stack.json, "id");
  const std::string objects = "/api/v1/stacks/" + stack_id + "/deployment-objects";
  const std::string namespace_yaml = R"({"yaml_content":"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: web\n"})";
  Reply object = call(*ci, "POST", objects, namespace_yaml);
  ASSERT_EQ(object.status, 201) << object.body;
  const std::string object_id = text_of(object.json, "id");
  Reply agent = call(*admin, "POST", "/api/v1/agents",
                     R"({"name":"a1","cluster_name":"prod","generator_ids":[")" + generator_id + R"("]})");
  ASSERT_EQ(agent.status, 201) << agent.body;
  const std::string agent_id = text_of(*agent.json.find("agent"), "id");
  auto cluster = broker.client(text_of(agent.json, "initial_pak"));
  ASSERT_EQ(call(*admin, "POST", "/api/v1/agents/" + agent_id + "/labels", R"({"label":"env=prod"})").status, 201);
  ASSERT_EQ(call(*ci, "POST", "/api/v1/agents/" + agent_id + "/targets",
                 R"({"agent_id":")" + agent_id + R"(","stack_id":")" + stack_id + R"("})")
                .status,
            201);

  // Webhooks: one the broker sends (to a closed port), one the agent sends.
  hit(*admin, "GET", "/webhooks/event-types", "/webhooks/event-types", 200);
  Reply webhook = hit(*admin, "POST", "/webhooks", "/webhooks", 201,
                      R"({"name":"ops","url":"http://127.0.0.1:9/hook","event_types":["stack.*"],)"
                      R"("auth_header":"Bearer x","timeout_seconds":1})");
  ASSERT_EQ(webhook.status, 201) << webhook.body;
  const std::string webhook_id = text_of(webhook.json, "id");
  hit(*admin, "POST", "/webhooks", "/webhooks", 422,
      R"({"name":"ops","url":"http://127.0.0.1:9/hook","event_types":["stack.*"],"max_retries":11})");
  hit(*admin, "POST", "/webhooks", "/webhooks", 400, R"({"name":"ops","event_types":["stack.*"]})");
  hit(*admin, "GET", "/webhooks", "/webhooks", 200);
  hit(*admin, "GET", "/webhooks/{id}", "/webhooks/" + webhook_id, 200);
  hit(*admin, "GET", "/webhooks/{id}", "/webhooks/" + unknown_id, 404);
  hit(*admin, "PUT", "/webhooks/{id}", "/webhooks/" + webhook_id, 200, R"({"enabled":false})");
  hit(*admin, "PUT", "/webhooks/{id}", "/webhooks/" + webhook_id, 422, R"({"timeout_seconds":0})");
  hit(*admin, "GET", "/webhooks/{id}/deliveries", "/webhooks/" + webhook_id + "/deliveries", 200);
  // Nothing listens: Brokkr's 400 webhook_test_failed with the cause.
  hit(*admin, "POST", "/webhooks/{id}/test", "/webhooks/" + webhook_id + "/test", 400);
  Reply in_cluster = hit(*admin, "POST", "/webhooks", "/webhooks", 201,
                         R"({"name":"inside","url":"http://hooks.cluster.local/","event_types":["deployment.*"],)"
                         R"("target_labels":["env=prod"]})");
  ASSERT_EQ(call(*ci, "POST", objects, namespace_yaml).status, 201);
  const std::string pending_hooks = "/agents/" + agent_id + "/webhooks/pending";
  Reply pending = hit(*cluster, "GET", "/agents/{agent_id}/webhooks/pending", pending_hooks, 200);
  ASSERT_EQ(pending.json.size(), 1u) << pending.body;
  const std::string delivery_id = text_of(*pending.json.at(0), "id");
  hit(*cluster, "POST", "/webhook-deliveries/{id}/result", "/webhook-deliveries/" + delivery_id + "/result", 200,
      R"({"success":true,"status_code":200,"duration_ms":5})");
  hit(*cluster, "POST", "/webhook-deliveries/{id}/result", "/webhook-deliveries/" + unknown_id + "/result", 404,
      R"({"success":true})");
  hit(*admin, "DELETE", "/webhooks/{id}", "/webhooks/" + text_of(in_cluster.json, "id"), 204);
  hit(*admin, "DELETE", "/webhooks/{id}", "/webhooks/" + webhook_id, 204);
  hit(*admin, "DELETE", "/webhooks/{id}", "/webhooks/" + webhook_id, 404);

  // Work orders: created, claimed and completed into the log; another deleted.
  const std::string work_order = R"({"work_type":"build","yaml_content":"kind: Job\n","targeting":{"agent_ids":[")" +
                                 agent_id + R"("]}})";
  Reply order = hit(*admin, "POST", "/work-orders", "/work-orders", 201, work_order);
  ASSERT_EQ(order.status, 201) << order.body;
  const std::string order_id = text_of(order.json, "id");
  hit(*admin, "POST", "/work-orders", "/work-orders", 400, R"({"work_type":"build","yaml_content":"x"})");
  hit(*admin, "GET", "/work-orders", "/work-orders", 200);
  hit(*admin, "GET", "/work-orders", "/work-orders?status=PENDING&work_type=build", 200);
  hit(*admin, "GET", "/work-orders/{id}", "/work-orders/" + order_id, 200);
  hit(*cluster, "GET", "/agents/{agent_id}/work-orders/pending", "/agents/" + agent_id + "/work-orders/pending", 200);
  const std::string claim = "/work-orders/" + order_id + "/claim";
  hit(*cluster, "POST", "/work-orders/{id}/claim", claim, 200, R"({"agent_id":")" + agent_id + R"("})");
  hit(*cluster, "POST", "/work-orders/{id}/claim", claim, 404, R"({"agent_id":")" + agent_id + R"("})");
  hit(*cluster, "POST", "/work-orders/{id}/complete", "/work-orders/" + order_id + "/complete", 200,
      R"({"success":true,"message":"built"})");
  hit(*admin, "GET", "/work-order-log", "/work-order-log?success=true&limit=10", 200);
  hit(*admin, "GET", "/work-order-log/{id}", "/work-order-log/" + order_id, 200);
  hit(*admin, "GET", "/work-order-log/{id}", "/work-order-log/" + unknown_id, 404);
  Reply doomed = hit(*admin, "POST", "/work-orders", "/work-orders", 201, work_order);
  hit(*admin, "DELETE", "/work-orders/{id}", "/work-orders/" + text_of(doomed.json, "id"), 204);
  hit(*admin, "DELETE", "/work-orders/{id}", "/work-orders/" + text_of(doomed.json, "id"), 404);

  // Diagnostics: requested, claimed once, answered once.
  Reply diagnostic = hit(*admin, "POST", "/deployment-objects/{id}/diagnostics",
                         "/deployment-objects/" + object_id + "/diagnostics", 201,
                         R"({"agent_id":")" + agent_id + R"(","requested_by":"oncall","retention_minutes":5})");
  ASSERT_EQ(diagnostic.status, 201) << diagnostic.body;
  const std::string diagnostic_id = text_of(diagnostic.json, "id");
  hit(*admin, "POST", "/deployment-objects/{id}/diagnostics", "/deployment-objects/" + object_id + "/diagnostics",
      400, R"({"agent_id":")" + agent_id + R"(","retention_minutes":0})");
  hit(*admin, "GET", "/diagnostics/{id}", "/diagnostics/" + diagnostic_id, 200);
  hit(*cluster, "GET", "/agents/{id}/diagnostics/pending", "/agents/" + agent_id + "/diagnostics/pending", 200);
  hit(*cluster, "POST", "/diagnostics/{id}/claim", "/diagnostics/" + diagnostic_id + "/claim", 200);
  hit(*cluster, "POST", "/diagnostics/{id}/claim", "/diagnostics/" + diagnostic_id + "/claim", 409);
  const std::string result = R"({"pod_statuses":"[]","events":"[]","collected_at":"2026-11-26T10:00:00Z"})";
  hit(*cluster, "POST", "/diagnostics/{id}/result", "/diagnostics/" + diagnostic_id + "/result", 201, result);
  hit(*cluster, "POST", "/diagnostics/{id}/result", "/diagnostics/" + diagnostic_id + "/result", 409, result);
  hit(*admin, "GET", "/diagnostics/{id}", "/diagnostics/" + unknown_id, 404);

  // Health, the fleet, telemetry.
  hit(*cluster, "PATCH", "/agents/{id}/health-status", "/agents/" + agent_id + "/health-status", 200,
      R"({"deployment_objects":[{"id":")" + object_id + R"(","status":"degraded","checked_at":"2026-11-26T10:00:00Z"}]})");
  Reply object_health = hit(*admin, "GET", "/deployment-objects/{id}/health",
                            "/deployment-objects/" + object_id + "/health", 200);
  Reply stack_health = hit(*admin, "GET", "/stacks/{id}/health", "/stacks/" + stack_id + "/health", 200);
  EXPECT_NE(stack_health.body.find("degraded"), std::string::npos) << stack_health.body;
  hit(*admin, "GET", "/fleet", "/fleet", 200);
  hit(*admin, "GET", "/fleet", "/fleet?pak_id=" + generator_id, 200);
  hit(*admin, "GET", "/agents/{id}/fleet-status", "/agents/" + agent_id + "/fleet-status", 200);
  hit(*admin, "GET", "/agents/{id}/fleet-status", "/agents/" + unknown_id + "/fleet-status", 404);
  hit(*ci, "GET", "/stacks/{id}/events", "/stacks/" + stack_id + "/events?limit=10", 200);
  hit(*ci, "GET", "/stacks/{id}/logs", "/stacks/" + stack_id + "/logs", 200);
  hit(*ci, "GET", "/stacks/{id}/logs", "/stacks/" + unknown_id + "/logs", 404);

  // Admin.
  hit(*admin, "GET", "/admin/audit-logs", "/admin/audit-logs?action=workorder.*&limit=5", 200);
  hit(*admin, "POST", "/admin/config/reload", "/admin/config/reload", 200);
  hit(*admin, "GET", "/admin/ws/connections", "/admin/ws/connections", 200);

  const std::map<std::string, std::string> paks = {{"admin_pak", broker.admin_pak()},
                                                  {"generator_pak", text_of(generator.json, "pak")},
                                                  {"agent_pak", text_of(agent.json, "initial_pak")}};
  check_security(broker, paks, {{"id", agent_id}, {"agent_id", agent_id}}, kOperationsPaths);
  check_records(kOperationsPaths);
}

// The document the broker serves keeps every operation of brokkr-v1.json
// as the file gives it (its responses and security unchanged; Sindri may
// document a status Brokkr's file leaves out), keeps every
// schema's fields (a schema may gain optional ones), and marks each
// operation it adds as Sindri's; each of those is routed.
TEST_P(Conformance, TheServedDocumentIsBrokkrsWithSindrisAdditions) {
  BrokerProcess broker(GetParam());
  if (!broker.usable()) return;
  broker.start();
  const Value brokkr = load_api();
  const Value served = served_document(broker);
  size_t added = 0;
  for (const Member& path : served.find("paths")->get_object()) {
    const Value* brokkr_path = brokkr.find("paths")->find(path.key.get_string());
    for (const Member& method : path.value.get_object()) {
      const std::string where = std::string(method.key.get_string()) + " " + std::string(path.key.get_string());
      const Value* original = brokkr_path == nullptr ? nullptr : brokkr_path->find(method.key.get_string());
      if (original == nullptr) {
        ++added;
        const Value* marked = method.value.find("x-sindri");
        EXPECT_TRUE(marked != nullptr && marked->is_bool() && marked->get_bool()) << where << " is not marked x-sindri";
        std::string upper(method.key.get_string());
        for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        const Reply reply = call(*broker.client(broker.admin_pak()), upper,
                                 "/api/v1" + std::string(path.key.get_string()), "{}");
        EXPECT_NE(text_of(reply.json, "code"), "not_found") << where << " is documented but not routed: " << reply.body;
        EXPECT_NE(reply.status, 405) << where;
        continue;
      }
      // A response the file gives no body may gain the one Brokkr's broker
      // sends (POST /webhook-deliveries/{id}/result); nothing else changes.
      for (const Member& response : original->find("responses")->get_object()) {
        const Value* kept = method.value.find("responses")->find(response.key.get_string());
        ASSERT_NE(kept, nullptr) << where << " " << response.key.get_string() << " removed";
        Value compared = *kept;
        if (response.value.find("content") == nullptr && compared.find("content") != nullptr) {
          Object without_body;
          for (const Member& member : compared.get_object()) {
            if (member.key.get_string() != "content" && member.key.get_string() != "description") {
              without_body.push_back(member);
            }
          }
          for (const Member& member : response.value.get_object()) {
            if (member.key.get_string() == "description") without_body.push_back(member);
          }
          compared = Value(std::move(without_body));
        }
        EXPECT_EQ(compared, response.value) << where << " " << response.key.get_string() << " changed";
      }
      EXPECT_EQ(*method.value.find("security"), *original->find("security")) << where;
    }
  }
  EXPECT_EQ(added, 7u);
  for (const Member& path : brokkr.find("paths")->get_object()) {
    for (const Member& method : path.value.get_object()) {
      const Value* kept = served.find("paths")->find(path.key.get_string());
      EXPECT_TRUE(kept != nullptr && kept->find(method.key.get_string()) != nullptr)
          << method.key.get_string() << " " << path.key.get_string() << " is missing";
    }
  }
  const Value* served_schemas = served.find("components")->find("schemas");
  for (const Member& schema : brokkr.find("components")->find("schemas")->get_object()) {
    const Value* kept = served_schemas->find(schema.key.get_string());
    ASSERT_NE(kept, nullptr) << schema.key.get_string();
    const Value* required = schema.value.find("required");
    if (required != nullptr) {
      EXPECT_EQ(*kept->find("required"), *required) << schema.key.get_string();
    }
    const Value* properties = schema.value.find("properties");
    if (properties == nullptr) continue;
    for (const Member& property : properties->get_object()) {
      const Value* same = kept->find("properties")->find(property.key.get_string());
      EXPECT_TRUE(same != nullptr && *same == property.value)
          << schema.key.get_string() << "." << property.key.get_string() << " changed";
    }
  }
}

// The checker itself: the converted schemas refuse a missing required
// field, a field the schema lacks, and a wrong type.
// The two tests between them call every operation of brokkr-v1.json.
TEST(ConformanceChecker, EveryPathOfTheApiFileIsCovered) {
  const Value api = load_api();
  std::set<std::string> covered(std::begin(kCoveredPaths), std::end(kCoveredPaths));
  covered.insert(std::begin(kOperationsPaths), std::end(kOperationsPaths));
  size_t operations = 0;
  for (const Member& path : api.find("paths")->get_object()) {
    EXPECT_TRUE(covered.count(std::string(path.key.get_string()))) << path.key.get_string() << " is never called";
    operations += path.value.get_object().size();
  }
  EXPECT_EQ(operations, 95u);
}

TEST(ConformanceChecker, RefusesWrongShapes) {
  const Value api = load_api();
  Value schema = to_json_schema(*api.find("components")->find("schemas")->find("Agent"));
  auto compiled = sindri::schema::compile_schema(schema, sindri::schema::Draft::Draft2020_12);
  ASSERT_TRUE(compiled.ok());
  auto good = sindri::parse_json(
      R"({"id":"123e4567-e89b-12d3-a456-426614174000","created_at":"2026-01-01T00:00:00.000000Z",)"
      R"("updated_at":"2026-01-01T00:00:00.000000Z","name":"a","cluster_name":"c","status":"ACTIVE",)"
      R"("deleted_at":null,"k8s_reachable":null})");
  ASSERT_TRUE(good.ok());
  EXPECT_TRUE(sindri::schema::validate(*compiled, *good).empty());
  Value bad = *good;
  bad.erase("name");
  bad.set("pak_hash", Value("secret"));
  bad.set("status", Value(3));
  EXPECT_EQ(sindri::schema::validate(*compiled, bad).size(), 3u);
}

INSTANTIATE_TEST_SUITE_P(Backends, Conformance, ::testing::Values(Backend::Sqlite, Backend::Postgres), backend_name);

}  // namespace
}  // namespace sindri_test
