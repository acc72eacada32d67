// Issue 4: templates in the broker, black box over HTTP, on both databases.
// Seed 000's three use cases, every error of instantiation, the permission
// rules, versioning, template targets and the dry run, against the contract
// of the template endpoints.

#include <functional>
#include <set>
#include <string_view>
#include <thread>
#include <vector>

#include "broker_process.hpp"
#include "value/digest.hpp"
#include "value/pointer.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri_test {
namespace {

using sindri::Object;
using sindri::Value;
using Client = sindri::http::Client;

constexpr const char* kUnknownId = "00000000-0000-4000-8000-000000000000";

// Seed 000, use case 1: a PostgreSQL database as a Deployment, a Service
// and a PersistentVolumeClaim. `replicas` has a schema default.
constexpr const char* kPostgresTemplate = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ database_name }}-postgres
  labels:
    app: {{ database_name }}
spec:
  replicas: {{ replicas }}
  selector:
    matchLabels:
      app: {{ database_name }}
  template:
    metadata:
      labels:
        app: {{ database_name }}
    spec:
      containers:
        - name: postgres
          image: postgres:16
          env:
            - name: POSTGRES_DB
              value: {{ database_name }}
          resources:
            limits:
              cpu: "{{ cpu_limit }}"
              memory: {{ memory_limit }}
          volumeMounts:
            - name: data
              mountPath: /var/lib/postgresql/data
      volumes:
        - name: data
          persistentVolumeClaim:
            claimName: {{ database_name }}-data
---
apiVersion: v1
kind: Service
metadata:
  name: {{ database_name }}
spec:
  selector:
    app: {{ database_name }}
  ports:
    - port: 5432
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: {{ database_name }}-data
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: {{ storage_size }}
)";

constexpr const char* kPostgresSchema = R"({
  "type": "object",
  "required": ["database_name", "storage_size", "cpu_limit", "memory_limit"],
  "properties": {
    "database_name": {"type": "string", "pattern": "^[a-z][a-z0-9-]*$"},
    "storage_size": {"type": "string", "pattern": "^[0-9]+(Mi|Gi)$"},
    "cpu_limit": {"type": "string", "pattern": "^[0-9]+m?$"},
    "memory_limit": {"type": "string", "pattern": "^[0-9]+(Mi|Gi)$"},
    "replicas": {"type": "integer", "minimum": 1, "default": 1}
  }
})";

constexpr const char* kPostgresParameters =
    R"({"database_name":"orders","storage_size":"10Gi","cpu_limit":"500m","memory_limit":"1Gi"})";

// Seed 000, use case 2: PostgreSQL, a backend and a frontend in one template,
// with a loop over the two application tiers, a loop over the backend's
// settings and conditionals.
constexpr const char* kThreeTierTemplate = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: myapp-postgres
spec:
  replicas: 1
  selector:
    matchLabels: {app: myapp-postgres}
  template:
    metadata:
      labels: {app: myapp-postgres}
    spec:
      containers:
        - name: postgres
          image: "postgres:{{ image_tags.postgres }}"
          volumeMounts:
            - {name: data, mountPath: /var/lib/postgresql/data}
      volumes:
        - name: data
          persistentVolumeClaim: {claimName: myapp-postgres-data}
---
apiVersion: v1
kind: Service
metadata:
  name: myapp-postgres
spec:
  selector: {app: myapp-postgres}
  ports:
    - port: 5432
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: myapp-postgres-data
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: {{ db_size }}
{%- for tier in ["backend", "frontend"] %}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: myapp-{{ tier }}
spec:
  replicas: {% if tier == "backend" %}{{ backend_replicas }}{% else %}{{ frontend_replicas }}{% endif %}
  selector:
    matchLabels: {app: myapp-{{ tier }}}
  template:
    metadata:
      labels: {app: myapp-{{ tier }}}
    spec:
      containers:
        - name: {{ tier }}
          image: "myapp/{{ tier }}:{{ image_tags[tier] }}"
{%- if tier == "backend" %}
          envFrom:
            - configMapRef: {name: myapp-backend-config}
{%- endif %}
---
apiVersion: v1
kind: Service
metadata:
  name: myapp-{{ tier }}
spec:
  selector: {app: myapp-{{ tier }}}
  ports:
    - port: {% if tier == "backend" %}8080{% else %}80{% endif %}
{%- endfor %}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: myapp-backend-config
data:
  DATABASE_HOST: myapp-postgres
{%- for key, value in backend_env %}
  {{ key }}: {{ value | json_encode() }}
{%- endfor %}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: myapp
spec:
{%- if tls %}
  tls:
    - hosts: [{{ host }}]
      secretName: myapp-tls
{%- endif %}
  rules:
    - host: {{ host }}
      http:
        paths:
          - path: /
            pathType: Prefix
            backend:
              service:
                name: myapp-frontend
                port: {number: 80}
)";

constexpr const char* kThreeTierSchema = R"({
  "type": "object",
  "required": ["db_size", "backend_replicas", "frontend_replicas", "image_tags"],
  "properties": {
    "db_size": {"type": "string", "pattern": "^[0-9]+(Mi|Gi)$"},
    "backend_replicas": {"type": "integer", "minimum": 1},
    "frontend_replicas": {"type": "integer", "minimum": 1},
    "image_tags": {
      "type": "object",
      "required": ["postgres", "backend", "frontend"],
      "additionalProperties": {"type": "string"}
    },
    "backend_env": {"type": "object", "additionalProperties": {"type": "string"}, "default": {}},
    "host": {"type": "string", "default": "myapp.example.com"},
    "tls": {"type": "boolean", "default": true}
  }
})";

// Seed 000, use case 3: an application promoted from dev to prod. Version 1
// sets no memory request; the fix of version 2 does.
constexpr const char* kAppTemplateV1 = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
spec:
  replicas: {{ replicas }}
  selector:
    matchLabels: {app: app}
  template:
    metadata:
      labels: {app: app}
    spec:
      containers:
        - name: app
          image: example/app:1.0
          resources:
            limits: {memory: {{ memory }}}
)";

constexpr const char* kAppTemplateV2 = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
spec:
  replicas: {{ replicas }}
  selector:
    matchLabels: {app: app}
  template:
    metadata:
      labels: {app: app}
    spec:
      containers:
        - name: app
          image: example/app:1.0.1
          resources:
            limits: {memory: {{ memory }}}
            requests: {memory: {{ memory }}}
)";

constexpr const char* kAppSchema = R"({
  "type": "object",
  "required": ["replicas", "memory"],
  "properties": {
    "replicas": {"type": "integer", "minimum": 1},
    "memory": {"type": "string", "pattern": "^[0-9]+(Mi|Gi)$"}
  }
})";

// A ConfigMap named by a parameter: the smallest useful template.
constexpr const char* kConfigMapTemplate = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ name }}\n";
constexpr const char* kConfigMapSchema =
    R"({"type":"object","required":["name"],"properties":{"name":{"type":"string"}}})";

// --- JSON bodies -----------------------------------------------------------

std::string body_of(Object members) { return sindri::to_json(Value(std::move(members))); }

std::string template_body(std::string_view name, std::string_view content, std::string_view schema) {
  return body_of({{"name", name}, {"template_content", content}, {"parameters_schema", schema}});
}

std::string update_body(std::string_view content, std::string_view schema) {
  return body_of({{"template_content", content}, {"parameters_schema", schema}});
}

// `parameters` is JSON text, spliced in as it is.
std::string instantiate_body(std::string_view template_id, std::string_view parameters) {
  return R"({"template_id":)" + json_string(template_id) + R"(,"parameters":)" + std::string(parameters) + "}";
}

std::string render_body(std::string_view parameters, std::string_view stack_id = {}) {
  std::string body = R"({"parameters":)" + std::string(parameters);
  if (!stack_id.empty()) body += R"(,"stack_id":)" + json_string(stack_id);
  return body + "}";
}

Value json(std::string_view text) {
  auto parsed = sindri::parse_json(text);
  if (!parsed.ok()) {
    ADD_FAILURE() << "bad JSON in the test: " << parsed.error().describe();
    return Value();
  }
  return std::move(parsed).value();
}

// --- Reading replies and YAML ----------------------------------------------

const Value& details_of(const Reply& reply) {
  static const Value none;
  const Value* details = reply.json.find("details");
  return details != nullptr ? *details : none;
}

// An ErrorResponse with this status and code, and a message.
::testing::AssertionResult is_error(const Reply& reply, int status, std::string_view code) {
  if (reply.status != status || text_of(reply.json, "code") != code || text_of(reply.json, "message").empty()) {
    return ::testing::AssertionFailure() << "expected " << status << " " << code << ", got " << reply.status << " "
                                         << reply.body;
  }
  return ::testing::AssertionSuccess();
}

std::string text_at(const Value& root, std::string_view pointer) {
  const Value* value = sindri::follow_pointer(root, pointer);
  return value != nullptr && value->is_string() ? std::string(value->get_string())
                                                : "<no string at " + std::string(pointer) + ">";
}

int64_t int_at(const Value& root, std::string_view pointer) {
  const Value* value = sindri::follow_pointer(root, pointer);
  return value != nullptr && value->is_int() ? value->get_int() : -1;
}

int64_t line_in_details(const Reply& reply) { return int_at(details_of(reply), "/line"); }

std::vector<Value> documents_of(std::string_view yaml) {
  auto stream = sindri::parse_yaml_stream(yaml);
  if (!stream.ok()) {
    ADD_FAILURE() << "not YAML: " << stream.error().describe() << "\n" << yaml;
    return {};
  }
  std::vector<Value> documents;
  for (const auto& document : *stream) documents.push_back(document.value);
  return documents;
}

std::vector<std::string> kinds_of(const std::vector<Value>& documents) {
  std::vector<std::string> kinds;
  for (const Value& document : documents) kinds.push_back(text_at(document, "/kind"));
  return kinds;
}

const Value* document_named(const std::vector<Value>& documents, std::string_view kind, std::string_view name) {
  for (const Value& document : documents) {
    if (text_at(document, "/kind") == kind && text_at(document, "/metadata/name") == name) return &document;
  }
  ADD_FAILURE() << "no " << kind << " " << name;
  static const Value none;
  return &none;
}

// The values of `key` in each object of an array.
std::multiset<std::string> texts_of(const Value& array, std::string_view key) {
  std::multiset<std::string> texts;
  for (size_t i = 0; i < array.size(); ++i) texts.insert(text_of(*array.at(i), key));
  return texts;
}

std::multiset<std::string> strings_of(const Value& array) {
  std::multiset<std::string> texts;
  for (size_t i = 0; i < array.size(); ++i) {
    if (array.at(i)->is_string()) texts.insert(std::string(array.at(i)->get_string()));
  }
  return texts;
}

// Annotations {key, value} as "key=value".
std::multiset<std::string> annotations_of(const Value& array) {
  std::multiset<std::string> texts;
  for (size_t i = 0; i < array.size(); ++i) {
    texts.insert(text_of(*array.at(i), "key") + "=" + text_of(*array.at(i), "value"));
  }
  return texts;
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// --- The fixture: a broker, the admin and two generators ---------------------

struct Generator {
  std::string id;
  std::string pak;
  std::unique_ptr<Client> client;
};

class Templates : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    broker_ = std::make_unique<BrokerProcess>(GetParam());
    if (!broker_->usable()) GTEST_FAIL() << "no database for this backend";
    broker_->start();
    admin_ = broker_->client(broker_->admin_pak());
    alice_ = make_generator("alice");
    bob_ = make_generator("bob");
  }

  Generator make_generator(const std::string& name) {
    Reply reply = call(*admin_, "POST", "/api/v1/generators", body_of({{"name", name}}));
    EXPECT_EQ(reply.status, 201) << reply.body;
    const Value* generator = reply.json.find("generator");
    const std::string pak = text_of(reply.json, "pak");
    return {generator != nullptr ? text_of(*generator, "id") : "", pak, broker_->client(pak)};
  }

  // A stack of `owner`, with labels and annotations (key, value).
  std::string make_stack(const Generator& owner, const std::string& name, const std::vector<std::string>& labels = {},
                         const std::vector<std::pair<std::string, std::string>>& annotations = {}) {
    Reply stack = call(*owner.client, "POST", "/api/v1/stacks", body_of({{"name", name}, {"generator_id", owner.id}}));
    EXPECT_EQ(stack.status, 201) << stack.body;
    const std::string id = text_of(stack.json, "id");
    for (const auto& label : labels) {
      Reply added = call(*owner.client, "POST", "/api/v1/stacks/" + id + "/labels", json_string(label));
      EXPECT_EQ(added.status, 201) << added.body;
    }
    for (const auto& [key, value] : annotations) {
      Reply added = call(*owner.client, "POST", "/api/v1/stacks/" + id + "/annotations",
                         body_of({{"key", key}, {"value", value}}));
      EXPECT_EQ(added.status, 201) << added.body;
    }
    return id;
  }

  // Creates a template and returns its id ("" on failure, which is reported).
  std::string make_template(Client& client, std::string_view name, std::string_view content, std::string_view schema,
                            const std::vector<std::string>& labels = {},
                            const std::vector<std::pair<std::string, std::string>>& annotations = {}) {
    Reply created = call(client, "POST", "/api/v1/templates", template_body(name, content, schema));
    EXPECT_EQ(created.status, 201) << created.body;
    const std::string id = text_of(created.json, "id");
    for (const auto& label : labels) {
      Reply added = call(client, "POST", "/api/v1/templates/" + id + "/labels", json_string(label));
      EXPECT_EQ(added.status, 201) << added.body;
    }
    for (const auto& [key, value] : annotations) {
      Reply added =
          call(client, "POST", "/api/v1/templates/" + id + "/annotations", body_of({{"key", key}, {"value", value}}));
      EXPECT_EQ(added.status, 201) << added.body;
    }
    return id;
  }

  Reply instantiate(Client& client, const std::string& stack_id, const std::string& template_id,
                    std::string_view parameters) {
    return call(client, "POST", "/api/v1/stacks/" + stack_id + "/deployment-objects/from-template",
                instantiate_body(template_id, parameters));
  }

  size_t object_count(const std::string& stack_id) {
    Reply objects = call(*admin_, "GET", "/api/v1/stacks/" + stack_id + "/deployment-objects");
    EXPECT_EQ(objects.status, 200) << objects.body;
    return objects.json.size();
  }

  std::set<std::string> target_stacks(Client& client, const std::string& template_id) {
    Reply targets = call(client, "GET", "/api/v1/templates/" + template_id + "/targets");
    EXPECT_EQ(targets.status, 200) << targets.body;
    std::set<std::string> stacks;
    for (size_t i = 0; i < targets.json.size(); ++i) {
      EXPECT_EQ(text_of(*targets.json.at(i), "template_id"), template_id);
      stacks.insert(text_of(*targets.json.at(i), "stack_id"));
    }
    return stacks;
  }

  // The same request from eight threads at once, each with its own client.
  std::vector<Reply> race(const std::string& pak, const std::function<Reply(Client&)>& request) {
    constexpr int kRacers = 8;
    std::vector<Reply> replies(kRacers);
    std::vector<std::thread> racers;
    for (int i = 0; i < kRacers; ++i) {
      racers.emplace_back([&, i] {
        try {
          auto client = broker_->client(pak);
          replies[i] = request(*client);
        } catch (const std::exception& error) {  // status 0: no answer
          replies[i].body = error.what();
        }
      });
    }
    for (auto& racer : racers) racer.join();
    return replies;
  }

  std::unique_ptr<BrokerProcess> broker_;
  std::unique_ptr<Client> admin_;
  Generator alice_, bob_;
};

// --- Seed 000's use cases ----------------------------------------------------

TEST_P(Templates, UseCase1PostgresDatabaseReachesTheAgentWithProvenance) {
  const std::string template_id =
      make_template(*alice_.client, "postgres-db", kPostgresTemplate, kPostgresSchema, {"tier=database"});
  const std::string stack_id = make_stack(alice_, "orders-db", {"tier=database"});

  Reply agent = call(*admin_, "POST", "/api/v1/agents", R"({"name":"db-agent","cluster_name":"prod"})");
  ASSERT_EQ(agent.status, 201) << agent.body;
  const std::string agent_id = text_of(*agent.json.find("agent"), "id");
  auto agent_client = broker_->client(text_of(agent.json, "initial_pak"));
  ASSERT_EQ(call(*admin_, "POST", "/api/v1/agents/" + agent_id + "/labels", R"("tier=database")").status, 201);

  Reply object = instantiate(*alice_.client, stack_id, template_id, kPostgresParameters);
  ASSERT_EQ(object.status, 201) << object.body;
  // The same shape as a manual creation.
  for (const char* field : {"id", "created_at", "updated_at", "yaml_content", "yaml_checksum", "submitted_at"}) {
    EXPECT_FALSE(text_of(object.json, field).empty()) << field << " in " << object.body;
  }
  EXPECT_EQ(text_of(object.json, "stack_id"), stack_id);
  ASSERT_NE(object.json.find("sequence_id"), nullptr);
  EXPECT_TRUE(object.json.find("sequence_id")->is_int());
  ASSERT_NE(object.json.find("is_deletion_marker"), nullptr);
  EXPECT_FALSE(object.json.find("is_deletion_marker")->get_bool());
  const std::string object_id = text_of(object.json, "id");
  const std::string yaml = text_of(object.json, "yaml_content");
  EXPECT_EQ(text_of(object.json, "yaml_checksum"), sindri::sha256_hex(yaml));

  // Byte for byte the template with the parameters put in, replicas from the
  // schema's default.
  std::string expected = kPostgresTemplate;
  expected = replace_all(expected, "{{ database_name }}", "orders");
  expected = replace_all(expected, "{{ storage_size }}", "10Gi");
  expected = replace_all(expected, "{{ cpu_limit }}", "500m");
  expected = replace_all(expected, "{{ memory_limit }}", "1Gi");
  expected = replace_all(expected, "{{ replicas }}", "1");
  EXPECT_EQ(yaml, expected);

  const std::vector<Value> documents = documents_of(yaml);
  EXPECT_EQ(kinds_of(documents), (std::vector<std::string>{"Deployment", "Service", "PersistentVolumeClaim"}));
  const Value& deployment = *document_named(documents, "Deployment", "orders-postgres");
  EXPECT_EQ(int_at(deployment, "/spec/replicas"), 1);
  EXPECT_EQ(text_at(deployment, "/spec/template/spec/containers/0/env/0/value"), "orders");
  EXPECT_EQ(text_at(deployment, "/spec/template/spec/containers/0/resources/limits/cpu"), "500m");
  EXPECT_EQ(text_at(deployment, "/spec/template/spec/containers/0/resources/limits/memory"), "1Gi");
  EXPECT_EQ(text_at(deployment, "/spec/template/spec/volumes/0/persistentVolumeClaim/claimName"), "orders-data");
  EXPECT_EQ(text_at(*document_named(documents, "Service", "orders"), "/spec/selector/app"), "orders");
  EXPECT_EQ(
      text_at(*document_named(documents, "PersistentVolumeClaim", "orders-data"), "/spec/resources/requests/storage"),
      "10Gi");

  // The agent whose labels match the stack has the object in its target state.
  Reply state = call(*agent_client, "GET", "/api/v1/agents/" + agent_id + "/target-state");
  ASSERT_EQ(state.status, 200) << state.body;
  ASSERT_EQ(state.json.size(), 1u) << state.body;
  EXPECT_EQ(text_of(*state.json.at(0), "id"), object_id);
  EXPECT_EQ(text_of(*state.json.at(0), "yaml_content"), yaml);

  // Provenance: the template, its version and the parameters as sent.
  Reply provenance = call(*alice_.client, "GET", "/api/v1/deployment-objects/" + object_id + "/provenance");
  ASSERT_EQ(provenance.status, 200) << provenance.body;
  EXPECT_EQ(text_of(provenance.json, "deployment_object_id"), object_id);
  EXPECT_EQ(text_of(provenance.json, "template_id"), template_id);
  EXPECT_EQ(int_at(provenance.json, "/template_version"), 1);
  ASSERT_NE(provenance.json.find("parameters"), nullptr);
  EXPECT_EQ(*provenance.json.find("parameters"), json(kPostgresParameters));
  EXPECT_FALSE(text_of(provenance.json, "created_at").empty());
  EXPECT_EQ(text_at(provenance.json, "/template/id"), template_id);
  EXPECT_EQ(int_at(provenance.json, "/template/version"), 1);
  EXPECT_EQ(text_at(provenance.json, "/template/template_content"), kPostgresTemplate);
  ASSERT_NE(sindri::follow_pointer(provenance.json, "/template/deleted_at"), nullptr);
  EXPECT_TRUE(sindri::follow_pointer(provenance.json, "/template/deleted_at")->is_null());
}

TEST_P(Templates, UseCase2ThreeTierApplicationIsOneObjectOfNineResources) {
  const std::string template_id =
      make_template(*admin_, "3-tier-app-template", kThreeTierTemplate, kThreeTierSchema, {"app=myapp", "env=prod"});
  const std::string stack_id = make_stack(alice_, "myapp-prod", {"app=myapp", "env=prod"});
  const std::string parameters = R"({"db_size":"20Gi","backend_replicas":3,"frontend_replicas":2,
    "image_tags":{"postgres":"16.2","backend":"1.4.0","frontend":"2.0.1"},
    "backend_env":{"LOG_LEVEL":"info","FEATURE_X":"on"}})";

  Reply object = instantiate(*alice_.client, stack_id, template_id, parameters);
  ASSERT_EQ(object.status, 201) << object.body;
  EXPECT_EQ(object_count(stack_id), 1u);
  const std::vector<Value> documents = documents_of(text_of(object.json, "yaml_content"));
  ASSERT_EQ(documents.size(), 9u) << text_of(object.json, "yaml_content");
  const std::vector<std::string> kinds = kinds_of(documents);
  EXPECT_EQ(std::multiset<std::string>(kinds.begin(), kinds.end()),
            (std::multiset<std::string>{"Deployment", "Deployment", "Deployment", "Service", "Service", "Service",
                                        "PersistentVolumeClaim", "ConfigMap", "Ingress"}));

  EXPECT_EQ(
      text_at(*document_named(documents, "Deployment", "myapp-postgres"), "/spec/template/spec/containers/0/image"),
      "postgres:16.2");
  EXPECT_EQ(text_at(*document_named(documents, "PersistentVolumeClaim", "myapp-postgres-data"),
                    "/spec/resources/requests/storage"),
            "20Gi");
  const Value& backend = *document_named(documents, "Deployment", "myapp-backend");
  EXPECT_EQ(int_at(backend, "/spec/replicas"), 3);
  EXPECT_EQ(text_at(backend, "/spec/template/spec/containers/0/image"), "myapp/backend:1.4.0");
  EXPECT_EQ(text_at(backend, "/spec/template/spec/containers/0/envFrom/0/configMapRef/name"), "myapp-backend-config");
  const Value& frontend = *document_named(documents, "Deployment", "myapp-frontend");
  EXPECT_EQ(int_at(frontend, "/spec/replicas"), 2);
  EXPECT_EQ(text_at(frontend, "/spec/template/spec/containers/0/image"), "myapp/frontend:2.0.1");
  EXPECT_EQ(sindri::follow_pointer(frontend, "/spec/template/spec/containers/0/envFrom"), nullptr);
  EXPECT_EQ(int_at(*document_named(documents, "Service", "myapp-postgres"), "/spec/ports/0/port"), 5432);
  EXPECT_EQ(int_at(*document_named(documents, "Service", "myapp-backend"), "/spec/ports/0/port"), 8080);
  EXPECT_EQ(int_at(*document_named(documents, "Service", "myapp-frontend"), "/spec/ports/0/port"), 80);
  // json_encode kept "on" a string, which plain YAML would have made true.
  EXPECT_EQ(*sindri::follow_pointer(*document_named(documents, "ConfigMap", "myapp-backend-config"), "/data"),
            json(R"({"DATABASE_HOST":"myapp-postgres","FEATURE_X":"on","LOG_LEVEL":"info"})"));
  const Value& ingress = *document_named(documents, "Ingress", "myapp");
  EXPECT_EQ(text_at(ingress, "/spec/tls/0/hosts/0"), "myapp.example.com");  // both from defaults
  EXPECT_EQ(text_at(ingress, "/spec/rules/0/host"), "myapp.example.com");

  // The conditional the other way round, in a dry run.
  Reply without_tls = call(*alice_.client, "POST", "/api/v1/templates/" + template_id + "/render",
                           render_body(R"({"db_size":"1Gi","backend_replicas":1,"frontend_replicas":1,"tls":false,
                             "image_tags":{"postgres":"16","backend":"1","frontend":"1"}})"));
  ASSERT_EQ(without_tls.status, 200) << without_tls.body;
  const std::vector<Value> plain = documents_of(text_of(without_tls.json, "yaml_content"));
  ASSERT_EQ(plain.size(), 9u);
  EXPECT_EQ(sindri::follow_pointer(*document_named(plain, "Ingress", "myapp"), "/spec/tls"), nullptr);
  EXPECT_EQ(*sindri::follow_pointer(*document_named(plain, "ConfigMap", "myapp-backend-config"), "/data"),
            json(R"({"DATABASE_HOST":"myapp-postgres"})"));
}

TEST_P(Templates, UseCase3PromotionAcrossVersionsKeepsEachObjectsProvenance) {
  Client& ci = *alice_.client;
  const std::string v1 = make_template(ci, "app-template", kAppTemplateV1, kAppSchema);
  const std::string dev = make_stack(alice_, "app-dev", {"env=dev"});
  const std::string staging = make_stack(alice_, "app-staging", {"env=staging"});
  const std::string prod = make_stack(alice_, "app-prod", {"env=prod"});
  const std::string dev_parameters = R"({"replicas":1,"memory":"512Mi"})";
  const std::string staging_parameters = R"({"replicas":2,"memory":"1Gi"})";
  const std::string prod_parameters = R"({"replicas":5,"memory":"2Gi"})";

  Reply dev_object = instantiate(ci, dev, v1, dev_parameters);
  ASSERT_EQ(dev_object.status, 201) << dev_object.body;
  Reply staging_object = instantiate(ci, staging, v1, staging_parameters);
  ASSERT_EQ(staging_object.status, 201) << staging_object.body;

  // The fix: version 2, a new row; version 1 is gone for new work.
  Reply fixed = call(ci, "PUT", "/api/v1/templates/" + v1, update_body(kAppTemplateV2, kAppSchema));
  ASSERT_EQ(fixed.status, 200) << fixed.body;
  const std::string v2 = text_of(fixed.json, "id");
  EXPECT_NE(v2, v1);
  EXPECT_EQ(int_at(fixed.json, "/version"), 2);
  EXPECT_EQ(text_of(fixed.json, "name"), "app-template");
  EXPECT_EQ(text_of(fixed.json, "generator_id"), alice_.id);
  EXPECT_EQ(text_of(fixed.json, "checksum"), sindri::sha256_hex(kAppTemplateV2));
  EXPECT_TRUE(is_error(call(ci, "GET", "/api/v1/templates/" + v1), 404, "template_not_found"));
  EXPECT_TRUE(is_error(instantiate(ci, prod, v1, prod_parameters), 404, "template_not_found"));
  EXPECT_EQ(object_count(prod), 0u);

  Reply prod_object = instantiate(ci, prod, v2, prod_parameters);
  ASSERT_EQ(prod_object.status, 201) << prod_object.body;

  struct Expected {
    const Reply* object;
    std::string template_id;
    int64_t version;
    std::string parameters;
    int64_t replicas;
    const char* memory;
    const char* image;
  };
  for (const Expected& expected : {Expected{&dev_object, v1, 1, dev_parameters, 1, "512Mi", "example/app:1.0"},
                                   Expected{&staging_object, v1, 1, staging_parameters, 2, "1Gi", "example/app:1.0"},
                                   Expected{&prod_object, v2, 2, prod_parameters, 5, "2Gi", "example/app:1.0.1"}}) {
    const std::string object_id = text_of(expected.object->json, "id");
    SCOPED_TRACE(expected.parameters);
    // The stored object is what was rendered then, whatever the template became.
    Reply stored = call(ci, "GET", "/api/v1/deployment-objects/" + object_id);
    ASSERT_EQ(stored.status, 200) << stored.body;
    EXPECT_EQ(text_of(stored.json, "yaml_content"), text_of(expected.object->json, "yaml_content"));
    const std::vector<Value> documents = documents_of(text_of(stored.json, "yaml_content"));
    ASSERT_EQ(documents.size(), 1u);
    EXPECT_EQ(int_at(documents[0], "/spec/replicas"), expected.replicas);
    EXPECT_EQ(text_at(documents[0], "/spec/template/spec/containers/0/resources/limits/memory"), expected.memory);
    EXPECT_EQ(text_at(documents[0], "/spec/template/spec/containers/0/image"), expected.image);
    EXPECT_EQ(sindri::follow_pointer(documents[0], "/spec/template/spec/containers/0/resources/requests") != nullptr,
              expected.version == 2);

    Reply provenance = call(ci, "GET", "/api/v1/deployment-objects/" + object_id + "/provenance");
    ASSERT_EQ(provenance.status, 200) << provenance.body;
    EXPECT_EQ(text_of(provenance.json, "template_id"), expected.template_id);
    EXPECT_EQ(int_at(provenance.json, "/template_version"), expected.version);
    ASSERT_NE(provenance.json.find("parameters"), nullptr);
    EXPECT_EQ(*provenance.json.find("parameters"), json(expected.parameters));
    EXPECT_EQ(int_at(provenance.json, "/template/version"), expected.version);
    // Version 1 was superseded by the fix.
    const Value* deleted_at = sindri::follow_pointer(provenance.json, "/template/deleted_at");
    ASSERT_NE(deleted_at, nullptr);
    EXPECT_EQ(deleted_at->is_string(), expected.version == 1) << provenance.body;
  }

  // A superseded version cannot be changed either.
  EXPECT_TRUE(is_error(call(ci, "PUT", "/api/v1/templates/" + v1, update_body(kAppTemplateV2, kAppSchema)), 404,
                       "template_not_found"));
  EXPECT_TRUE(is_error(call(ci, "DELETE", "/api/v1/templates/" + v1), 404, "template_not_found"));

  // The seed's "list versions of a template": by name, superseded ones too.
  Reply versions = call(ci, "GET", "/api/v1/templates?name=app-template");
  ASSERT_EQ(versions.status, 200) << versions.body;
  ASSERT_EQ(versions.json.size(), 2u) << versions.body;
  EXPECT_EQ(text_of(*versions.json.at(0), "id"), v1);
  EXPECT_EQ(int_at(*versions.json.at(0), "/version"), 1);
  EXPECT_EQ(text_of(*versions.json.at(1), "id"), v2);
  EXPECT_EQ(int_at(*versions.json.at(1), "/version"), 2);
  EXPECT_EQ(call(ci, "GET", "/api/v1/templates?name=app-template&all_versions=true").json, versions.json);
  // Without a name, and with all_versions=false, only live versions.
  Reply listed = call(ci, "GET", "/api/v1/templates?generator_id=" + alice_.id);
  ASSERT_EQ(listed.status, 200) << listed.body;
  ASSERT_EQ(listed.json.size(), 1u) << listed.body;
  EXPECT_EQ(text_of(*listed.json.at(0), "id"), v2);
  Reply live = call(ci, "GET", "/api/v1/templates?name=app-template&all_versions=false");
  ASSERT_EQ(live.status, 200) << live.body;
  ASSERT_EQ(live.json.size(), 1u) << live.body;
  EXPECT_EQ(text_of(*live.json.at(0), "id"), v2);
}

// --- Errors of instantiation -------------------------------------------------

TEST_P(Templates, UnknownOrDeletedTemplatesAndStacksAreNotFound) {
  const std::string template_id = make_template(*alice_.client, "cm", kConfigMapTemplate, kConfigMapSchema);
  const std::string stack_id = make_stack(alice_, "s");
  const std::string parameters = R"({"name":"x"})";

  EXPECT_TRUE(is_error(instantiate(*alice_.client, stack_id, kUnknownId, parameters), 404, "template_not_found"));
  EXPECT_TRUE(
      is_error(call(*alice_.client, "GET", std::string("/api/v1/templates/") + kUnknownId), 404, "template_not_found"));
  EXPECT_TRUE(is_error(instantiate(*alice_.client, kUnknownId, template_id, parameters), 404, "stack_not_found"));

  const std::string gone_stack = make_stack(alice_, "gone");
  ASSERT_EQ(call(*alice_.client, "DELETE", "/api/v1/stacks/" + gone_stack).status, 204);
  EXPECT_TRUE(is_error(instantiate(*alice_.client, gone_stack, template_id, parameters), 404, "stack_not_found"));

  ASSERT_EQ(call(*alice_.client, "DELETE", "/api/v1/templates/" + template_id).status, 204);
  EXPECT_TRUE(is_error(call(*alice_.client, "GET", "/api/v1/templates/" + template_id), 404, "template_not_found"));
  EXPECT_TRUE(is_error(instantiate(*alice_.client, stack_id, template_id, parameters), 404, "template_not_found"));
  EXPECT_TRUE(
      is_error(call(*alice_.client, "POST", "/api/v1/templates/" + template_id + "/render", render_body(parameters)),
               404, "template_not_found"));
  EXPECT_EQ(object_count(stack_id), 0u);
}

TEST_P(Templates, LabelAndAnnotationMismatchIs422NamingWhatIsMissing) {
  const std::string template_id = make_template(*alice_.client, "db", kConfigMapTemplate, kConfigMapSchema,
                                                {"env=prod", "tier=db"}, {{"team", "platform"}, {"region", "eu"}});
  const std::string parameters = R"({"name":"x"})";
  struct Case {
    std::vector<std::string> labels;
    std::vector<std::pair<std::string, std::string>> annotations;
    std::multiset<std::string> missing_labels;
    std::multiset<std::string> missing_annotations;
  };
  const std::vector<Case> cases = {
      {{"env=prod"}, {{"region", "eu"}}, {"tier=db"}, {"team=platform"}},
      // An annotation with the right key and another value does not match.
      {{"env=prod", "tier=db"}, {{"team", "platform"}, {"region", "us"}}, {}, {"region=eu"}},
      {{}, {}, {"env=prod", "tier=db"}, {"region=eu", "team=platform"}},
      {{"env=dev", "tier=db"}, {{"team", "platform"}, {"region", "eu"}}, {"env=prod"}, {}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const std::string stack_id = make_stack(alice_, "s" + std::to_string(i), cases[i].labels, cases[i].annotations);
    Reply mismatch = instantiate(*alice_.client, stack_id, template_id, parameters);
    EXPECT_TRUE(is_error(mismatch, 422, "template_stack_mismatch"));
    const Value& details = details_of(mismatch);
    ASSERT_NE(details.find("missing_labels"), nullptr) << mismatch.body;
    ASSERT_NE(details.find("missing_annotations"), nullptr) << mismatch.body;
    EXPECT_EQ(strings_of(*details.find("missing_labels")), cases[i].missing_labels);
    EXPECT_EQ(annotations_of(*details.find("missing_annotations")), cases[i].missing_annotations);
    EXPECT_EQ(object_count(stack_id), 0u);
  }

  // A stack carrying all of them, and more, matches.
  const std::string matching =
      make_stack(alice_, "match", {"env=prod", "tier=db", "zone=a"}, {{"team", "platform"}, {"region", "eu"}});
  EXPECT_EQ(instantiate(*alice_.client, matching, template_id, parameters).status, 201);
  // A template without labels or annotations matches any stack.
  const std::string anywhere = make_template(*alice_.client, "anywhere", kConfigMapTemplate, kConfigMapSchema);
  for (const std::string& stack_id :
       {make_stack(alice_, "bare"), make_stack(alice_, "labelled", {"env=qa"}, {{"team", "x"}})}) {
    EXPECT_EQ(instantiate(*alice_.client, stack_id, anywhere, parameters).status, 201);
  }
}

TEST_P(Templates, EveryParameterViolationIsListedWithItsPointer) {
  const std::string template_id = make_template(*alice_.client, "postgres-db", kPostgresTemplate, kPostgresSchema);
  const std::string stack_id = make_stack(alice_, "s");

  // Two bad fields: two violations, each with its pointer.
  Reply two = instantiate(*alice_.client, stack_id, template_id,
                          R"({"database_name":"orders","storage_size":"10GB","cpu_limit":500,"memory_limit":"1Gi"})");
  EXPECT_TRUE(is_error(two, 400, "invalid_parameters"));
  const Value* violations = details_of(two).find("violations");
  ASSERT_NE(violations, nullptr) << two.body;
  EXPECT_EQ(texts_of(*violations, "pointer"),
            (std::multiset<std::string>{"/parameters/cpu_limit", "/parameters/storage_size"}));
  EXPECT_EQ(texts_of(*violations, "schema_pointer"),
            (std::multiset<std::string>{"/properties/cpu_limit/type", "/properties/storage_size/pattern"}));
  for (size_t i = 0; i < violations->size(); ++i) EXPECT_FALSE(text_of(*violations->at(i), "message").empty());
  // Brokkr's clients read validation_errors: one string per violation.
  const Value* validation_errors = details_of(two).find("validation_errors");
  ASSERT_NE(validation_errors, nullptr) << two.body;
  ASSERT_EQ(validation_errors->size(), 2u);
  for (size_t i = 0; i < validation_errors->size(); ++i) {
    ASSERT_TRUE(validation_errors->at(i)->is_string());
    EXPECT_TRUE(validation_errors->at(i)->get_string().starts_with("/parameters/")) << two.body;
  }

  // Each missing required field is named.
  Reply missing = instantiate(*alice_.client, stack_id, template_id, R"({"database_name":"orders"})");
  EXPECT_TRUE(is_error(missing, 400, "invalid_parameters"));
  std::string messages;
  const Value* missing_violations = details_of(missing).find("violations");
  ASSERT_NE(missing_violations, nullptr) << missing.body;
  for (size_t i = 0; i < missing_violations->size(); ++i) {
    EXPECT_EQ(text_of(*missing_violations->at(i), "pointer"), "/parameters");
    messages += text_of(*missing_violations->at(i), "message") + "\n";
  }
  for (const char* field : {"storage_size", "cpu_limit", "memory_limit"}) {
    EXPECT_NE(messages.find(field), std::string::npos) << field << " in " << missing.body;
  }

  // Parameters that are not an object at all.
  Reply array = instantiate(*alice_.client, stack_id, template_id, "[1,2]");
  EXPECT_TRUE(is_error(array, 400, "invalid_parameters"));
  const Value* array_violations = details_of(array).find("violations");
  ASSERT_NE(array_violations, nullptr) << array.body;
  EXPECT_EQ(texts_of(*array_violations, "pointer"), (std::multiset<std::string>{"/parameters"}));
  // Nor where the schema lets any value through: they are the context.
  const std::string anything = make_template(*alice_.client, "anything", kConfigMapTemplate, "{}");
  for (const char* parameters : {"\"hello\"", "[1]", "null", "5"}) {
    Reply scalar = instantiate(*alice_.client, stack_id, anything, parameters);
    EXPECT_TRUE(is_error(scalar, 400, "invalid_parameters")) << parameters << ": " << scalar.body;
    EXPECT_NE(text_of(scalar.json, "message").find("/parameters: must be an object"), std::string::npos)
        << scalar.body;
  }

  // A default is filled in before validation and rendering; a value sent wins.
  Reply defaulted = instantiate(*alice_.client, stack_id, template_id, kPostgresParameters);
  ASSERT_EQ(defaulted.status, 201) << defaulted.body;
  EXPECT_EQ(int_at(documents_of(text_of(defaulted.json, "yaml_content")).at(0), "/spec/replicas"), 1);
  Reply given = instantiate(*alice_.client, stack_id, template_id,
                            R"({"database_name":"orders","storage_size":"10Gi","cpu_limit":"1","memory_limit":"1Gi",
                                "replicas":3})");
  ASSERT_EQ(given.status, 201) << given.body;
  EXPECT_EQ(int_at(documents_of(text_of(given.json, "yaml_content")).at(0), "/spec/replicas"), 3);
  EXPECT_EQ(object_count(stack_id), 2u);  // only the two that succeeded
}

TEST_P(Templates, SyntaxErrorsAndBadSchemasAreRejectedAtCreation) {
  // `{{ x + }}`: an expression expected where `}}` stands, line 4 column 13.
  Reply syntax = call(*alice_.client, "POST", "/api/v1/templates",
                      template_body("broken", "apiVersion: v1\nkind: ConfigMap\ndata:\n  a: {{ x + }}\n", "{}"));
  EXPECT_TRUE(is_error(syntax, 400, "invalid_template_syntax"));
  EXPECT_EQ(text_of(details_of(syntax), "pointer"), "/template_content") << syntax.body;
  EXPECT_EQ(line_in_details(syntax), 4) << syntax.body;
  EXPECT_EQ(int_at(details_of(syntax), "/column"), 13) << syntax.body;
  EXPECT_NE(text_of(details_of(syntax), "template").find("broken"), std::string::npos) << syntax.body;
  EXPECT_NE(text_of(syntax.json, "message").find("4:13"), std::string::npos) << syntax.body;

  // A schema whose root type leaves objects out could never be satisfied.
  for (const char* root : {R"({"type":"string"})", R"({"type":["array","null"]})"}) {
    Reply never = call(*alice_.client, "POST", "/api/v1/templates", template_body("never", kConfigMapTemplate, root));
    EXPECT_TRUE(is_error(never, 400, "invalid_parameters_schema")) << never.body;
    EXPECT_EQ(text_of(details_of(never), "pointer"), "/parameters_schema/type") << never.body;
  }

  // Tera's grammar takes no string literal in arithmetic: `{{ 1 + 'a' }}`
  // fails at creation, at the string (line 6 column 14), not at rendering.
  Reply math = call(*alice_.client, "POST", "/api/v1/templates",
                    template_body("math", std::string(kConfigMapTemplate) + "data:\n  x: \"{{ 1 + 'a' }}\"\n", "{}"));
  EXPECT_TRUE(is_error(math, 400, "invalid_template_syntax"));
  EXPECT_EQ(line_in_details(math), 6) << math.body;
  EXPECT_EQ(int_at(details_of(math), "/column"), 14) << math.body;

  // An unknown filter is caught at creation too, at the filter's name.
  Reply filter =
      call(*alice_.client, "POST", "/api/v1/templates",
           template_body("shouty", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ name | shout }}\n",
                         kConfigMapSchema));
  EXPECT_TRUE(is_error(filter, 400, "invalid_template_syntax"));
  EXPECT_EQ(text_of(details_of(filter), "pointer"), "/template_content") << filter.body;
  EXPECT_EQ(line_in_details(filter), 4) << filter.body;
  EXPECT_EQ(int_at(details_of(filter), "/column"), 19) << filter.body;
  EXPECT_NE(text_of(filter.json, "message").find("shout"), std::string::npos) << filter.body;

  // A schema that is not JSON: where the JSON breaks.
  Reply not_json = call(*alice_.client, "POST", "/api/v1/templates",
                        template_body("cm", kConfigMapTemplate, "{\"type\": \"object\",\n  oops}"));
  EXPECT_TRUE(is_error(not_json, 400, "invalid_parameters_schema"));
  EXPECT_EQ(text_of(details_of(not_json), "pointer"), "/parameters_schema") << not_json.body;
  EXPECT_EQ(line_in_details(not_json), 2) << not_json.body;
  EXPECT_EQ(int_at(details_of(not_json), "/column"), 3) << not_json.body;
  // A key given twice, as in a request body: the second would replace the first.
  Reply twice = call(*alice_.client, "POST", "/api/v1/templates",
                     template_body("cm", kConfigMapTemplate,
                                   "{\"type\": \"object\",\n \"properties\": {},\n \"properties\": {}}"));
  EXPECT_TRUE(is_error(twice, 400, "invalid_parameters_schema")) << twice.body;
  EXPECT_EQ(line_in_details(twice), 3) << twice.body;
  EXPECT_NE(text_of(twice.json, "message").find("properties"), std::string::npos) << twice.body;

  // JSON that is not a JSON Schema: what in it is wrong.
  for (const auto& [schema, schema_pointer] : std::vector<std::pair<std::string, std::string>>{
           {R"({"type": 12})", "/type"},
           {R"({"type":"object","properties":{"a":{"minimum":"zero"}}})", "/properties/a/minimum"}}) {
    Reply invalid = call(*alice_.client, "POST", "/api/v1/templates", template_body("cm", kConfigMapTemplate, schema));
    EXPECT_TRUE(is_error(invalid, 400, "invalid_parameters_schema"));
    EXPECT_EQ(text_of(details_of(invalid), "pointer"), "/parameters_schema") << invalid.body;
    const Value* violations = details_of(invalid).find("violations");
    ASSERT_NE(violations, nullptr) << invalid.body;
    EXPECT_EQ(texts_of(*violations, "schema_pointer"), (std::multiset<std::string>{schema_pointer})) << invalid.body;
  }

  // Nothing was created, and PUT checks the same.
  Reply listed = call(*admin_, "GET", "/api/v1/templates?all_versions=true");
  ASSERT_EQ(listed.status, 200);
  EXPECT_EQ(listed.json.size(), 0u) << listed.body;
  make_template(*alice_.client, "either", kConfigMapTemplate, R"({"type":["object","null"]})");
  const std::string template_id = make_template(*alice_.client, "cm", kConfigMapTemplate, kConfigMapSchema);
  EXPECT_TRUE(is_error(
      call(*alice_.client, "PUT", "/api/v1/templates/" + template_id, update_body("{% if x %}never closed\n", "{}")),
      400, "invalid_template_syntax"));
  EXPECT_TRUE(is_error(call(*alice_.client, "PUT", "/api/v1/templates/" + template_id,
                            update_body(kConfigMapTemplate, R"({"type": 12})")),
                       400, "invalid_parameters_schema"));
  Reply unchanged = call(*alice_.client, "GET", "/api/v1/templates/" + template_id);
  ASSERT_EQ(unchanged.status, 200) << unchanged.body;
  EXPECT_EQ(int_at(unchanged.json, "/version"), 1);
}

// A template's output must follow from its parameters (reconstruction
// depends on it), and a generator must not read the broker's environment,
// which holds its database URL: now, get_random and get_env are refused at
// creation and update, at the call.
TEST_P(Templates, FunctionsReadingTheClockRandomnessOrTheEnvironmentAreRejected) {
  struct Case {
    std::string call;
    std::string reads;
  };
  const std::vector<Case> cases = {{"get_env(name=\"SINDRI_DATABASE_URL\")", "the process's environment"},
                                   {"now()", "the clock"},
                                   {"get_random(start=0, end=10)", "a random source"}};
  const std::string template_id = make_template(*alice_.client, "cm", kConfigMapTemplate, kConfigMapSchema);
  for (const Case& bad : cases) {
    SCOPED_TRACE(bad.call);
    const std::string content = std::string(kConfigMapTemplate) + "data:\n  leak: \"{{ " + bad.call + " }}\"\n";
    for (const bool update : {false, true}) {
      Reply reply = update ? call(*alice_.client, "PUT", "/api/v1/templates/" + template_id,
                                  update_body(content, kConfigMapSchema))
                           : call(*alice_.client, "POST", "/api/v1/templates",
                                  template_body("leaky", content, kConfigMapSchema));
      EXPECT_TRUE(is_error(reply, 400, "invalid_template_syntax")) << (update ? "PUT" : "POST");
      EXPECT_EQ(text_of(details_of(reply), "pointer"), "/template_content") << reply.body;
      EXPECT_EQ(line_in_details(reply), 6) << reply.body;
      EXPECT_EQ(int_at(details_of(reply), "/column"), 13) << reply.body;
      EXPECT_NE(text_of(reply.json, "message").find("reads " + bad.reads), std::string::npos) << reply.body;
    }
  }
  Reply listed = call(*admin_, "GET", "/api/v1/templates?all_versions=true");
  ASSERT_EQ(listed.status, 200);
  EXPECT_EQ(listed.json.size(), 1u) << listed.body;
}

// The broker renders each template alone: a template naming another (to
// extend, import from or include) could never render, so creation refuses
// it, at the tag. An include with `ignore missing` renders nothing instead.
TEST_P(Templates, TemplatesNamingOtherTemplatesAreRejectedAtCreation) {
  struct Case {
    std::string content;
    int64_t line, column;
    std::string message;
  };
  const std::vector<Case> cases = {
      {std::string("{% extends \"base.html\" %}\n") + kConfigMapTemplate, 1, 1,
       "`base.html` is not a template it can extend"},
      {std::string("\n{% import \"macros.tera\" as m %}\n") + kConfigMapTemplate, 2, 1,
       "`macros.tera` is not a template it can import"},
      {std::string(kConfigMapTemplate) + "data:\n  {% include \"data.yaml\" %}\n", 6, 3,
       "`data.yaml` is not a template it can include"},
      {std::string(kConfigMapTemplate) + "data:\n{% if name %}{% include [\"a.yaml\", \"b.yaml\"] %}{% endif %}\n", 6,
       14, "`a.yaml` is not a template it can include"},
  };
  const std::string template_id = make_template(*alice_.client, "cm", kConfigMapTemplate, kConfigMapSchema);
  for (const Case& bad : cases) {
    SCOPED_TRACE(bad.content);
    for (const bool update : {false, true}) {
      Reply reply = update ? call(*alice_.client, "PUT", "/api/v1/templates/" + template_id,
                                  update_body(bad.content, kConfigMapSchema))
                           : call(*alice_.client, "POST", "/api/v1/templates",
                                  template_body("composed", bad.content, kConfigMapSchema));
      EXPECT_TRUE(is_error(reply, 400, "invalid_template_syntax")) << (update ? "PUT" : "POST");
      const Value& details = details_of(reply);
      EXPECT_EQ(text_of(details, "pointer"), "/template_content") << reply.body;
      EXPECT_NE(text_of(details, "template").find(update ? "cm" : "composed"), std::string::npos) << reply.body;
      EXPECT_EQ(line_in_details(reply), bad.line) << reply.body;
      EXPECT_EQ(int_at(details, "/column"), bad.column) << reply.body;
      const std::string message = text_of(reply.json, "message");
      EXPECT_NE(message.find(bad.message), std::string::npos) << reply.body;
      EXPECT_NE(message.find(std::to_string(bad.line) + ":" + std::to_string(bad.column)), std::string::npos)
          << reply.body;
    }
  }
  Reply listed = call(*admin_, "GET", "/api/v1/templates?all_versions=true");
  ASSERT_EQ(listed.status, 200);
  EXPECT_EQ(listed.json.size(), 1u) << listed.body;  // only "cm", still at version 1

  // `ignore missing`: accepted by POST and PUT, and the include renders
  // nothing.
  const std::string body = std::string(kConfigMapTemplate) + "data:\n  a: \"1\"\n";
  const std::string optional = body + "{% include [\"x.yaml\", \"y.yaml\"] ignore missing %}";
  const std::string created = make_template(*alice_.client, "optional", optional, kConfigMapSchema);
  Reply updated = call(*alice_.client, "PUT", "/api/v1/templates/" + template_id,
                       update_body(body + "{% include \"extra.yaml\" ignore missing %}", kConfigMapSchema));
  ASSERT_EQ(updated.status, 200) << updated.body;
  const std::string stack_id = make_stack(alice_, "s");
  for (const std::string& id : {created, text_of(updated.json, "id")}) {
    Reply object = instantiate(*alice_.client, stack_id, id, R"({"name":"x"})");
    ASSERT_EQ(object.status, 201) << object.body;
    EXPECT_EQ(text_of(object.json, "yaml_content"), replace_all(body, "{{ name }}", "x"));
  }
}

TEST_P(Templates, RenderErrorsAndNonKubernetesOutputAreRejectedAtInstantiation) {
  const std::string stack_id = make_stack(alice_, "s");
  const std::string schema = R"({"type":"object","properties":{"replicas":{"type":"integer"},"name":{"type":"string"},
                                 "text":{"type":"string"}}})";
  const std::string header = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n";

  // Math with a string, line 6.
  const std::string math =
      make_template(*alice_.client, "math", header + "  total: \"{{ replicas * name }}\"\n", schema);
  Reply math_error = instantiate(*alice_.client, stack_id, math, R"({"replicas":2,"name":"a"})");
  EXPECT_TRUE(is_error(math_error, 400, "template_render_failed"));
  EXPECT_EQ(line_in_details(math_error), 6) << math_error.body;
  // The expression named is the failing one or a part of it, where it stands.
  const std::string failing = text_of(details_of(math_error), "expression");
  const size_t offset = std::string_view("replicas * name").find(failing);
  ASSERT_FALSE(failing.empty()) << math_error.body;
  ASSERT_NE(offset, std::string::npos) << math_error.body;
  EXPECT_EQ(int_at(details_of(math_error), "/column"), static_cast<int64_t>(14 + offset)) << math_error.body;
  EXPECT_EQ(text_of(details_of(math_error), "template"), "math v1") << math_error.body;

  // A variable the parameters do not hold, line 7.
  const std::string missing =
      make_template(*alice_.client, "missing", header + "  a: \"1\"\n  owner: {{ owner }}\n", schema);
  Reply missing_error = instantiate(*alice_.client, stack_id, missing, "{}");
  EXPECT_TRUE(is_error(missing_error, 400, "template_render_failed"));
  EXPECT_EQ(line_in_details(missing_error), 7) << missing_error.body;
  EXPECT_NE(text_of(details_of(missing_error), "expression").find("owner"), std::string::npos) << missing_error.body;
  // Messages name the version too (the compiled template is shared by name).
  EXPECT_NE(text_of(missing_error.json, "message").find("while rendering 'missing v1'"), std::string::npos)
      << missing_error.body;

  // Output that is not Kubernetes YAML: broken YAML, a list, no apiVersion.
  const std::string verbatim = make_template(*alice_.client, "verbatim", "{{ text }}\n", schema);
  for (const char* text : {"key: [unclosed", "- a\\n- list", "kind: ConfigMap\\nmetadata:\\n  name: x"}) {
    Reply invalid = instantiate(*alice_.client, stack_id, verbatim, std::string(R"({"text":")") + text + "\"}");
    EXPECT_TRUE(is_error(invalid, 400, "invalid_deployment_object")) << text;
    EXPECT_NE(details_of(invalid).find("line"), nullptr) << invalid.body;
  }
  // A NUL from the parameters, in a comment where YAML would take it:
  // stored text cannot hold one (PostgreSQL would cut the object there).
  const std::string commented = make_template(*alice_.client, "commented", header + "  a: \"1\"\n# {{ text }}\n", schema);
  Reply nul = instantiate(*alice_.client, stack_id, commented, R"({"text":"a\u0000b"})");
  EXPECT_TRUE(is_error(nul, 400, "invalid_deployment_object")) << nul.body;
  EXPECT_EQ(line_in_details(nul), 7) << nul.body;
  EXPECT_EQ(int_at(details_of(nul), "/column"), 4) << nul.body;
  EXPECT_NE(text_of(nul.json, "message").find("NUL"), std::string::npos) << nul.body;
  EXPECT_EQ(object_count(stack_id), 0u);
}

// Several faults at once: the answer is the first in the seed's order
// (404 template or stack, 403, 422 labels, 400 parameters, 400 render),
// for instantiation and for the dry run into a stack alike.
// A few bytes of parameters must not store what a direct creation could not
// send: rendering stops at the request body limit (10 MiB by default).
TEST_P(Templates, RenderedOutputStopsAtTheBodyLimit) {
  const std::string stack_id = make_stack(alice_, "s");
  const std::string schema = R"({"type":"object","properties":{"n":{"type":"integer"}}})";
  const std::string big = make_template(*alice_.client, "big",
                                        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: |\n"
                                        "{% for i in range(end=n) %}    xxxxxxxxxxxxxxx\n{% endfor %}",
                                        schema);
  Reply fits = instantiate(*alice_.client, stack_id, big, R"({"n":1000})");
  EXPECT_EQ(fits.status, 201) << fits.body.substr(0, 300);
  const std::string too_many = R"({"n":600000})";  // 12 MB
  Reply over = instantiate(*alice_.client, stack_id, big, too_many);
  EXPECT_TRUE(is_error(over, 400, "template_render_failed")) << over.body.substr(0, 300);
  EXPECT_NE(text_of(over.json, "message").find("larger than the limit of 10485760 bytes"), std::string::npos)
      << over.body.substr(0, 300);
  Reply dry = call(*alice_.client, "POST", "/api/v1/templates/" + big + "/render",
                   std::string(R"({"parameters":)") + too_many + "}");
  EXPECT_TRUE(is_error(dry, 400, "template_render_failed")) << dry.body.substr(0, 300);
  EXPECT_EQ(object_count(stack_id), 1u);
}

TEST_P(Templates, SeveralFaultsAnswerTheFirstInTheSeedsOrder) {
  const std::string bad_parameters = R"({"database_name":"orders"})";  // three required fields missing
  // Renders only with parameters it can never be given: `name` must be a
  // string, and a string times two is a render error.
  const std::string failing_content = std::string(kConfigMapTemplate) + "data:\n  twice: \"{{ name * 2 }}\"\n";

  const std::string postgres = make_template(*alice_.client, "postgres-db", kPostgresTemplate, kPostgresSchema);
  const std::string deleted = make_template(*alice_.client, "deleted", kPostgresTemplate, kPostgresSchema);
  ASSERT_EQ(call(*alice_.client, "DELETE", "/api/v1/templates/" + deleted).status, 204);
  const std::string database_only =
      make_template(*alice_.client, "db-only", kPostgresTemplate, kPostgresSchema, {"tier=database"});
  const std::string failing = make_template(*alice_.client, "failing", failing_content, kConfigMapSchema);
  const std::string failing_database_only =
      make_template(*alice_.client, "failing-db-only", failing_content, kConfigMapSchema, {"tier=database"});
  const std::string alice_stack = make_stack(alice_, "alice", {"tier=web"});
  const std::string bob_stack = make_stack(bob_, "bob");

  struct Case {
    std::string what;
    Client* client;
    std::string stack_id, template_id, parameters;
    int status;
    std::string code;
  };
  const std::vector<Case> cases = {
      {"deleted template, bad parameters", alice_.client.get(), alice_stack, deleted, bad_parameters, 404,
       "template_not_found"},
      {"unknown template, bad parameters", alice_.client.get(), alice_stack, kUnknownId, bad_parameters, 404,
       "template_not_found"},
      {"deleted template, another generator's stack", alice_.client.get(), bob_stack, deleted, kPostgresParameters,
       404, "template_not_found"},
      {"unknown stack, bad parameters", alice_.client.get(), kUnknownId, postgres, bad_parameters, 404,
       "stack_not_found"},
      {"another generator's stack, bad parameters", alice_.client.get(), bob_stack, postgres, bad_parameters, 403,
       "stack_not_owned"},
      {"another generator's stack, mismatched labels, bad parameters", alice_.client.get(), bob_stack, database_only,
       bad_parameters, 403, "stack_not_owned"},
      {"another generator's stack, a render error", alice_.client.get(), bob_stack, failing, R"({"name":"x"})", 403,
       "stack_not_owned"},
      {"mismatched labels, bad parameters", alice_.client.get(), alice_stack, database_only, bad_parameters, 422,
       "template_stack_mismatch"},
      {"mismatched labels, a render error", alice_.client.get(), alice_stack, failing_database_only,
       R"({"name":"x"})", 422, "template_stack_mismatch"},
      {"mismatched labels, bad parameters, a template that cannot render", alice_.client.get(), alice_stack,
       failing_database_only, R"({"name":5})", 422, "template_stack_mismatch"},
      {"bad parameters, a template that cannot render", alice_.client.get(), alice_stack, failing, R"({"name":5})",
       400, "invalid_parameters"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    EXPECT_TRUE(is_error(instantiate(*c.client, c.stack_id, c.template_id, c.parameters), c.status, c.code));
    EXPECT_TRUE(is_error(call(*c.client, "POST", "/api/v1/templates/" + c.template_id + "/render",
                              render_body(c.parameters, c.stack_id)),
                         c.status, c.code))
        << "the dry run";
  }
  EXPECT_EQ(object_count(alice_stack), 0u);
  EXPECT_EQ(object_count(bob_stack), 0u);
}

TEST_P(Templates, MalformedInstantiationBodiesNameTheField) {
  const std::string template_id = make_template(*alice_.client, "cm", kConfigMapTemplate, kConfigMapSchema);
  const std::string stack_id = make_stack(alice_, "s");
  const std::string path = "/api/v1/stacks/" + stack_id + "/deployment-objects/from-template";
  struct Case {
    std::string body;
    std::string code;
    std::string pointer;
  };
  for (const Case& bad : std::vector<Case>{
           {R"({"parameters":{"name":"x"}})", "missing_field", "/template_id"},
           {R"({"template_id":"not-a-uuid","parameters":{"name":"x"}})", "invalid_field", "/template_id"},
           {R"({"template_id":42,"parameters":{"name":"x"}})", "invalid_field", "/template_id"},
           {instantiate_body(template_id, R"({"name":"x"},"colour":"red")"), "unknown_field", "/colour"},
       }) {
    Reply reply = call(*alice_.client, "POST", path, bad.body);
    EXPECT_TRUE(is_error(reply, 400, bad.code)) << bad.body;
    EXPECT_EQ(text_of(details_of(reply), "pointer"), bad.pointer) << reply.body;
  }
  EXPECT_TRUE(is_error(call(*alice_.client, "POST", path, "{\"template_id\":"), 400, "invalid_json"));
  EXPECT_EQ(object_count(stack_id), 0u);
}

TEST_P(Templates, ProvenanceOnlyForTemplateObjectsAndTheirOwners) {
  const std::string stack_id = make_stack(alice_, "s");
  Reply manual = call(*alice_.client, "POST", "/api/v1/stacks/" + stack_id + "/deployment-objects",
                      body_of({{"yaml_content", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: manual\n"}}));
  ASSERT_EQ(manual.status, 201) << manual.body;
  EXPECT_TRUE(
      is_error(call(*alice_.client, "GET", "/api/v1/deployment-objects/" + text_of(manual.json, "id") + "/provenance"),
               404, "provenance_not_found"));
  EXPECT_TRUE(
      is_error(call(*alice_.client, "GET", std::string("/api/v1/deployment-objects/") + kUnknownId + "/provenance"),
               404, "deployment_object_not_found"));

  const std::string template_id = make_template(*alice_.client, "cm", kConfigMapTemplate, kConfigMapSchema);
  Reply object = instantiate(*alice_.client, stack_id, template_id, R"({"name":"made"})");
  ASSERT_EQ(object.status, 201) << object.body;
  const std::string provenance_path = "/api/v1/deployment-objects/" + text_of(object.json, "id") + "/provenance";
  EXPECT_EQ(call(*admin_, "GET", provenance_path).status, 200);
  EXPECT_EQ(call(*bob_.client, "GET", provenance_path).status, 403);
}

// A stack's provenance in one answer: its objects rendered from a template,
// oldest first, for those who may list the stack's objects.
TEST_P(Templates, AStacksProvenanceListsItsRenderedObjectsOldestFirst) {
  const std::string stack_id = make_stack(alice_, "s");
  const std::string path = "/api/v1/stacks/" + stack_id + "/provenance";
  Reply empty = call(*alice_.client, "GET", path);
  ASSERT_EQ(empty.status, 200) << empty.body;
  EXPECT_EQ(empty.json, json("[]"));

  const std::string template_id = make_template(*alice_.client, "cm", kConfigMapTemplate, kConfigMapSchema);
  Reply first = instantiate(*alice_.client, stack_id, template_id, R"({"name":"first"})");
  ASSERT_EQ(first.status, 201) << first.body;
  Reply manual = call(*alice_.client, "POST", "/api/v1/stacks/" + stack_id + "/deployment-objects",
                      body_of({{"yaml_content", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: manual\n"}}));
  ASSERT_EQ(manual.status, 201) << manual.body;
  Reply second = instantiate(*alice_.client, stack_id, template_id, R"({"name":"second"})");
  ASSERT_EQ(second.status, 201) << second.body;

  Reply listed = call(*alice_.client, "GET", path);
  ASSERT_EQ(listed.status, 200) << listed.body;
  ASSERT_EQ(listed.json.size(), 2u) << listed.body;
  const std::pair<const Reply*, const char*> expected[] = {{&first, R"({"name":"first"})"},
                                                           {&second, R"({"name":"second"})"}};
  for (size_t i = 0; i < 2; ++i) {
    const Value& record = *listed.json.at(i);
    EXPECT_EQ(text_of(record, "deployment_object_id"), text_of(expected[i].first->json, "id")) << listed.body;
    EXPECT_EQ(text_of(record, "template_id"), template_id);
    EXPECT_EQ(text_of(record, "template_name"), "cm");
    EXPECT_EQ(int_at(record, "/template_version"), 1);
    ASSERT_NE(record.find("parameters"), nullptr);
    EXPECT_EQ(*record.find("parameters"), json(expected[i].second));
    EXPECT_FALSE(text_of(record, "created_at").empty());
    EXPECT_EQ(record.find("template"), nullptr) << "one object's provenance alone carries the template's record";
  }
  // The same records as one object's provenance gives.
  Reply one = call(*alice_.client, "GET", "/api/v1/deployment-objects/" + text_of(second.json, "id") + "/provenance");
  ASSERT_EQ(one.status, 200) << one.body;
  EXPECT_EQ(text_of(*listed.json.at(1), "created_at"), text_of(one.json, "created_at"));

  Reply by_admin = call(*admin_, "GET", path);
  EXPECT_EQ(by_admin.status, 200);
  EXPECT_EQ(by_admin.json, listed.json);
  EXPECT_EQ(call(*bob_.client, "GET", path).status, 403);
  EXPECT_TRUE(is_error(call(*alice_.client, "GET", std::string("/api/v1/stacks/") + kUnknownId + "/provenance"), 404,
                       "stack_not_found"));
}

// --- Permissions -------------------------------------------------------------

TEST_P(Templates, SystemTemplatesAreChangedByAdminsOnlyAndUsedByAll) {
  Reply created =
      call(*admin_, "POST", "/api/v1/templates", template_body("system-cm", kConfigMapTemplate, kConfigMapSchema));
  ASSERT_EQ(created.status, 201) << created.body;
  ASSERT_NE(created.json.find("generator_id"), nullptr);
  EXPECT_TRUE(created.json.find("generator_id")->is_null()) << created.body;
  const std::string template_id = text_of(created.json, "id");
  const std::string path = "/api/v1/templates/" + template_id;
  ASSERT_EQ(call(*admin_, "POST", path + "/labels", R"("shared")").status, 201);
  ASSERT_EQ(call(*admin_, "POST", path + "/annotations", R"({"key":"team","value":"platform"})").status, 201);

  Client& generator = *alice_.client;
  EXPECT_EQ(call(generator, "PUT", path, update_body(kConfigMapTemplate, kConfigMapSchema)).status, 403);
  EXPECT_EQ(call(generator, "DELETE", path).status, 403);
  EXPECT_EQ(call(generator, "POST", path + "/labels", R"("mine")").status, 403);
  EXPECT_EQ(call(generator, "DELETE", path + "/labels/shared").status, 403);
  EXPECT_EQ(call(generator, "POST", path + "/annotations", R"({"key":"owner","value":"alice"})").status, 403);
  EXPECT_EQ(call(generator, "DELETE", path + "/annotations/team").status, 403);
  // A generator cannot make a system template either.
  EXPECT_EQ(call(generator, "POST", "/api/v1/templates",
                 body_of({{"name", "sneaky"},
                          {"template_content", kConfigMapTemplate},
                          {"parameters_schema", kConfigMapSchema},
                          {"generator_id", nullptr}}))
                .status,
            403);

  // It reads and instantiates it.
  EXPECT_EQ(call(generator, "GET", path).status, 200);
  EXPECT_EQ(call(generator, "GET", path + "/labels").json.size(), 1u);
  EXPECT_EQ(call(generator, "GET", path + "/annotations").json.size(), 1u);
  EXPECT_EQ(call(generator, "GET", "/api/v1/templates?name=system-cm").json.size(), 1u);
  const std::string stack_id = make_stack(alice_, "s", {"shared"}, {{"team", "platform"}});
  EXPECT_EQ(instantiate(generator, stack_id, template_id, R"({"name":"x"})").status, 201);

  // Unchanged by the refused calls; the admin changes it.
  Reply labels = call(*admin_, "GET", path + "/labels");
  ASSERT_EQ(labels.json.size(), 1u) << labels.body;
  EXPECT_EQ(text_of(*labels.json.at(0), "label"), "shared");
  Reply updated = call(*admin_, "PUT", path, update_body(kConfigMapTemplate, kConfigMapSchema));
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_TRUE(updated.json.find("generator_id")->is_null());
  EXPECT_EQ(call(*admin_, "DELETE", "/api/v1/templates/" + text_of(updated.json, "id")).status, 204);
}

TEST_P(Templates, GeneratorTemplatesAreChangedByTheirOwnerAndUsedByAll) {
  const std::string template_id = make_template(*alice_.client, "alice-cm", kConfigMapTemplate, kConfigMapSchema);
  const std::string path = "/api/v1/templates/" + template_id;
  const std::string alice_stack = make_stack(alice_, "alice-stack");
  const std::string bob_stack = make_stack(bob_, "bob-stack");

  Client& bob = *bob_.client;
  EXPECT_EQ(call(bob, "PUT", path, update_body(kConfigMapTemplate, kConfigMapSchema)).status, 403);
  EXPECT_EQ(call(bob, "DELETE", path).status, 403);
  EXPECT_EQ(call(bob, "POST", path + "/labels", R"("bob")").status, 403);
  EXPECT_EQ(call(bob, "POST", path + "/annotations", R"({"key":"owner","value":"bob"})").status, 403);
  // Nor can bob make a template in alice's name.
  EXPECT_EQ(call(bob, "POST", "/api/v1/templates",
                 body_of({{"name", "forged"},
                          {"template_content", kConfigMapTemplate},
                          {"parameters_schema", kConfigMapSchema},
                          {"generator_id", alice_.id}}))
                .status,
            403);

  // Bob may instantiate alice's template into his own stack, not into hers.
  EXPECT_EQ(call(bob, "GET", path).status, 200);
  EXPECT_EQ(instantiate(bob, bob_stack, template_id, R"({"name":"x"})").status, 201);
  EXPECT_EQ(instantiate(bob, alice_stack, template_id, R"({"name":"x"})").status, 403);
  EXPECT_EQ(call(bob, "POST", path + "/render", render_body(R"({"name":"x"})", alice_stack)).status, 403);
  EXPECT_EQ(object_count(alice_stack), 0u);

  // The admin makes a template for a generator, which that generator owns.
  Reply for_bob = call(*admin_, "POST", "/api/v1/templates",
                       body_of({{"name", "bob-cm"},
                                {"template_content", kConfigMapTemplate},
                                {"parameters_schema", kConfigMapSchema},
                                {"generator_id", bob_.id}}));
  ASSERT_EQ(for_bob.status, 201) << for_bob.body;
  EXPECT_EQ(text_of(for_bob.json, "generator_id"), bob_.id);
  EXPECT_EQ(call(bob, "POST", "/api/v1/templates/" + text_of(for_bob.json, "id") + "/labels", R"("bob")").status, 201);

  // The owner and the admin change alice's template.
  EXPECT_EQ(call(*alice_.client, "POST", path + "/labels", R"("alice")").status, 201);
  Reply updated = call(*admin_, "PUT", path, update_body(kConfigMapTemplate, kConfigMapSchema));
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_EQ(text_of(updated.json, "generator_id"), alice_.id);
  EXPECT_EQ(call(*alice_.client, "DELETE", "/api/v1/templates/" + text_of(updated.json, "id")).status, 204);
}

// Permission comes before the content checks: a forged owner is a 403 even
// when the template would not compile.
TEST_P(Templates, AForgedOwnerIsRefusedBeforeTheContentIsChecked) {
  Reply forged = call(*bob_.client, "POST", "/api/v1/templates",
                      body_of({{"name", "forged"},
                               {"template_content", "{% if %}"},
                               {"parameters_schema", "{\"type\": 12}"},
                               {"generator_id", alice_.id}}));
  EXPECT_EQ(forged.status, 403) << forged.body;
}

// A deleted generator's templates go with it (seed 000: ON DELETE CASCADE).
TEST_P(Templates, DeletingAGeneratorRetiresItsTemplates) {
  const std::string template_id = make_template(*bob_.client, "bob-cm", kConfigMapTemplate, kConfigMapSchema);
  const std::string stack = make_stack(alice_, "alice-stack");
  ASSERT_EQ(target_stacks(*admin_, template_id).count(stack), 1u);
  ASSERT_EQ(call(*admin_, "DELETE", "/api/v1/generators/" + bob_.id).status, 204);
  EXPECT_TRUE(is_error(call(*admin_, "GET", "/api/v1/templates/" + template_id), 404, "template_not_found"));
  EXPECT_TRUE(is_error(instantiate(*alice_.client, stack, template_id, R"({"name":"x"})"), 404, "template_not_found"));
  Reply history = call(*admin_, "GET", "/api/v1/templates?all_versions=true&generator_id=" + bob_.id);
  ASSERT_EQ(history.json.size(), 1u) << history.body;
  EXPECT_FALSE(history.json.at(0)->find("deleted_at")->is_null());
  EXPECT_EQ(object_count(stack), 0u);
}

TEST_P(Templates, AgentsAreForbiddenAndAnonymousCallersUnauthorized) {
  const std::string template_id = make_template(*alice_.client, "cm", kConfigMapTemplate, kConfigMapSchema);
  const std::string stack_id = make_stack(alice_, "s");
  Reply agent = call(*admin_, "POST", "/api/v1/agents", R"({"name":"a","cluster_name":"c"})");
  ASSERT_EQ(agent.status, 201) << agent.body;
  auto agent_client = broker_->client(text_of(agent.json, "initial_pak"));
  auto anonymous = broker_->client("");
  const std::string path = "/api/v1/templates/" + template_id;
  struct Request {
    std::string method, target, body;
  };
  const std::vector<Request> requests = {
      {"GET", "/api/v1/templates", ""},
      {"POST", "/api/v1/templates", template_body("cm", kConfigMapTemplate, kConfigMapSchema)},
      {"GET", path, ""},
      {"PUT", path, update_body(kConfigMapTemplate, kConfigMapSchema)},
      {"DELETE", path, ""},
      {"GET", path + "/labels", ""},
      {"POST", path + "/labels", R"("label")"},
      {"GET", path + "/annotations", ""},
      {"GET", path + "/targets", ""},
      {"POST", path + "/render", render_body(R"({"name":"x"})")},
      {"POST", "/api/v1/stacks/" + stack_id + "/deployment-objects/from-template",
       instantiate_body(template_id, R"({"name":"x"})")},
  };
  for (const Request& request : requests) {
    EXPECT_EQ(call(*agent_client, request.method, request.target, request.body).status, 403)
        << request.method << " " << request.target;
    EXPECT_EQ(call(*anonymous, request.method, request.target, request.body).status, 401)
        << request.method << " " << request.target;
  }
  EXPECT_EQ(call(*admin_, "GET", path).status, 200);  // the refused DELETE did nothing
  EXPECT_EQ(object_count(stack_id), 0u);
}

// --- Versioning --------------------------------------------------------------

TEST_P(Templates, VersionsAreNumberedPerOwnerAndNameAndCarryLabelsOver) {
  Reply first =
      call(*alice_.client, "POST", "/api/v1/templates", template_body("web", kConfigMapTemplate, kConfigMapSchema));
  ASSERT_EQ(first.status, 201) << first.body;
  EXPECT_EQ(int_at(first.json, "/version"), 1);
  EXPECT_EQ(text_of(first.json, "checksum"), sindri::sha256_hex(kConfigMapTemplate));
  EXPECT_EQ(text_of(first.json, "generator_id"), alice_.id);
  EXPECT_EQ(text_of(first.json, "parameters_schema"), kConfigMapSchema);
  EXPECT_EQ(text_of(first.json, "template_content"), kConfigMapTemplate);
  const std::string changed = std::string(kConfigMapTemplate) + "data:\n  changed: \"yes\"\n";
  Reply second = call(*alice_.client, "POST", "/api/v1/templates", template_body("web", changed, kConfigMapSchema));
  ASSERT_EQ(second.status, 201) << second.body;
  EXPECT_EQ(int_at(second.json, "/version"), 2);
  EXPECT_EQ(text_of(second.json, "checksum"), sindri::sha256_hex(changed));
  // Another owner's "web" is counted on its own, and so are system templates.
  Reply bobs =
      call(*bob_.client, "POST", "/api/v1/templates", template_body("web", kConfigMapTemplate, kConfigMapSchema));
  ASSERT_EQ(bobs.status, 201) << bobs.body;
  EXPECT_EQ(int_at(bobs.json, "/version"), 1);
  Reply system = call(*admin_, "POST", "/api/v1/templates", template_body("web", kConfigMapTemplate, kConfigMapSchema));
  ASSERT_EQ(system.status, 201) << system.body;
  EXPECT_EQ(int_at(system.json, "/version"), 1);

  // Labels and annotations go with PUT to the new version.
  const std::string second_id = text_of(second.json, "id");
  const std::string path = "/api/v1/templates/" + second_id;
  Reply label = call(*alice_.client, "POST", path + "/labels", R"("env=prod")");
  ASSERT_EQ(label.status, 201) << label.body;
  EXPECT_EQ(text_of(label.json, "template_id"), second_id);
  EXPECT_EQ(text_of(label.json, "label"), "env=prod");
  ASSERT_EQ(call(*alice_.client, "POST", path + "/labels", R"({"label":"tier=web"})").status, 201);
  EXPECT_EQ(call(*alice_.client, "POST", path + "/labels", R"("env=prod")").status, 409);
  Reply annotation = call(*alice_.client, "POST", path + "/annotations", R"({"key":"team","value":"web"})");
  ASSERT_EQ(annotation.status, 201) << annotation.body;
  EXPECT_EQ(text_of(annotation.json, "template_id"), second_id);
  EXPECT_EQ(call(*alice_.client, "POST", path + "/annotations", R"({"key":"team","value":"web"})").status, 409);

  Reply third = call(*alice_.client, "PUT", path, update_body(kConfigMapTemplate, kConfigMapSchema));
  ASSERT_EQ(third.status, 200) << third.body;
  EXPECT_EQ(int_at(third.json, "/version"), 3);
  EXPECT_EQ(text_of(third.json, "checksum"), sindri::sha256_hex(kConfigMapTemplate));
  const std::string third_path = "/api/v1/templates/" + text_of(third.json, "id");
  Reply labels = call(*alice_.client, "GET", third_path + "/labels");
  ASSERT_EQ(labels.status, 200) << labels.body;
  EXPECT_EQ(texts_of(labels.json, "label"), (std::multiset<std::string>{"env=prod", "tier=web"}));
  EXPECT_EQ(texts_of(labels.json, "template_id"),
            (std::multiset<std::string>{text_of(third.json, "id"), text_of(third.json, "id")}));
  Reply annotations = call(*alice_.client, "GET", third_path + "/annotations");
  ASSERT_EQ(annotations.status, 200) << annotations.body;
  EXPECT_EQ(annotations_of(annotations.json), (std::multiset<std::string>{"team=web"}));

  // Removing a label and an annotation.
  EXPECT_EQ(call(*alice_.client, "DELETE", third_path + "/labels/tier=web").status, 204);
  EXPECT_EQ(texts_of(call(*alice_.client, "GET", third_path + "/labels").json, "label"),
            (std::multiset<std::string>{"env=prod"}));
  EXPECT_EQ(call(*alice_.client, "DELETE", third_path + "/annotations/team").status, 204);
  EXPECT_EQ(call(*alice_.client, "GET", third_path + "/annotations").json.size(), 0u);

  // Numbers are never reused: after deleting the newest, the next is 4.
  ASSERT_EQ(call(*alice_.client, "DELETE", third_path).status, 204);
  Reply fourth =
      call(*alice_.client, "POST", "/api/v1/templates", template_body("web", kConfigMapTemplate, kConfigMapSchema));
  ASSERT_EQ(fourth.status, 201) << fourth.body;
  EXPECT_EQ(int_at(fourth.json, "/version"), 4);

  // Listing by owner and name, all versions in order.
  Reply all = call(*admin_, "GET", "/api/v1/templates?name=web&all_versions=true&generator_id=" + alice_.id);
  ASSERT_EQ(all.status, 200) << all.body;
  ASSERT_EQ(all.json.size(), 4u) << all.body;
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(int_at(*all.json.at(i), "/version"), static_cast<int64_t>(i + 1));
  Reply named = call(*admin_, "GET", "/api/v1/templates?name=web&all_versions=true");
  EXPECT_EQ(named.json.size(), 6u) << named.body;
  Reply bobs_list = call(*alice_.client, "GET", "/api/v1/templates?generator_id=" + bob_.id);
  ASSERT_EQ(bobs_list.json.size(), 1u) << bobs_list.body;
  EXPECT_EQ(text_of(*bobs_list.json.at(0), "id"), text_of(bobs.json, "id"));
}

// Versions are numbered per (owner, name) and unique, also when the
// creations race (several brokers may share one PostgreSQL).
TEST_P(Templates, ConcurrentCreationsOfOneNameGetDistinctVersions) {
  const std::vector<Reply> replies = race(alice_.pak, [](Client& client) {
    return call(client, "POST", "/api/v1/templates", template_body("raced", kConfigMapTemplate, kConfigMapSchema));
  });
  std::set<int64_t> versions;
  for (const Reply& reply : replies) {
    EXPECT_EQ(reply.status, 201) << reply.body;
    versions.insert(int_at(reply.json, "/version"));
  }
  EXPECT_EQ(versions, (std::set<int64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
}

// Racing updates of one version: one makes the next version, the others
// find it superseded; never two live versions. A few rounds, as a race
// does not show every time.
TEST_P(Templates, ConcurrentUpdatesOfOneVersionLeaveOneLiveVersion) {
  for (int round = 0; round < 4; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::string name = "updated-" + std::to_string(round);
    const std::string template_id = make_template(*alice_.client, name, kConfigMapTemplate, kConfigMapSchema);
    const std::vector<Reply> replies = race(alice_.pak, [&](Client& client) {
      return call(client, "PUT", "/api/v1/templates/" + template_id, update_body(kConfigMapTemplate, kConfigMapSchema));
    });
    int updated = 0;
    for (const Reply& reply : replies) {
      if (reply.status == 200) {
        ++updated;
      } else {
        EXPECT_TRUE(is_error(reply, 404, "template_not_found"));
      }
    }
    EXPECT_EQ(updated, 1);
    Reply live = call(*admin_, "GET", "/api/v1/templates?all_versions=false&name=" + name);
    ASSERT_EQ(live.status, 200) << live.body;
    EXPECT_EQ(live.json.size(), 1u) << live.body;
  }
}

// --- Template targets --------------------------------------------------------

TEST_P(Templates, TargetsFollowLabelsOfTemplatesAndStacks) {
  const std::string template_id = make_template(*alice_.client, "cm", kConfigMapTemplate, kConfigMapSchema);
  const std::string path = "/api/v1/templates/" + template_id;
  const std::string a1 = make_stack(alice_, "a1", {"env=prod"});
  const std::string a2 = make_stack(alice_, "a2", {"env=dev"});
  const std::string a3 = make_stack(alice_, "a3");
  const std::string b1 = make_stack(bob_, "b1", {"env=prod"});
  using Stacks = std::set<std::string>;

  // Without labels: every stack; a generator sees only its own.
  EXPECT_EQ(target_stacks(*admin_, template_id), (Stacks{a1, a2, a3, b1}));
  EXPECT_EQ(target_stacks(*alice_.client, template_id), (Stacks{a1, a2, a3}));
  EXPECT_EQ(target_stacks(*bob_.client, template_id), (Stacks{b1}));

  ASSERT_EQ(call(*alice_.client, "POST", path + "/labels", R"("env=prod")").status, 201);
  EXPECT_EQ(target_stacks(*admin_, template_id), (Stacks{a1, b1}));
  EXPECT_EQ(target_stacks(*alice_.client, template_id), (Stacks{a1}));
  // Stack labels added and removed.
  ASSERT_EQ(call(*alice_.client, "POST", "/api/v1/stacks/" + a3 + "/labels", R"("env=prod")").status, 201);
  EXPECT_EQ(target_stacks(*admin_, template_id), (Stacks{a1, a3, b1}));
  ASSERT_EQ(call(*alice_.client, "DELETE", "/api/v1/stacks/" + a1 + "/labels/env=prod").status, 204);
  EXPECT_EQ(target_stacks(*admin_, template_id), (Stacks{a3, b1}));
  // Annotations on both sides.
  ASSERT_EQ(call(*alice_.client, "POST", path + "/annotations", R"({"key":"team","value":"web"})").status, 201);
  EXPECT_EQ(target_stacks(*admin_, template_id), Stacks{});
  ASSERT_EQ(
      call(*bob_.client, "POST", "/api/v1/stacks/" + b1 + "/annotations", R"({"key":"team","value":"web"})").status,
      201);
  EXPECT_EQ(target_stacks(*admin_, template_id), (Stacks{b1}));
  ASSERT_EQ(call(*alice_.client, "DELETE", path + "/annotations/team").status, 204);
  EXPECT_EQ(target_stacks(*admin_, template_id), (Stacks{a3, b1}));
  // A deleted stack is no target.
  ASSERT_EQ(call(*alice_.client, "DELETE", "/api/v1/stacks/" + a3).status, 204);
  EXPECT_EQ(target_stacks(*admin_, template_id), (Stacks{b1}));
  // The template's labels removed: every live stack again, new ones included.
  ASSERT_EQ(call(*alice_.client, "DELETE", path + "/labels/env=prod").status, 204);
  const std::string a4 = make_stack(alice_, "a4", {"anything"});
  EXPECT_EQ(target_stacks(*admin_, template_id), (Stacks{a1, a2, a4, b1}));

  // A new version has the targets its carried-over labels give it.
  ASSERT_EQ(call(*alice_.client, "POST", path + "/labels", R"("env=dev")").status, 201);
  Reply updated = call(*alice_.client, "PUT", path, update_body(kConfigMapTemplate, kConfigMapSchema));
  ASSERT_EQ(updated.status, 200) << updated.body;
  EXPECT_EQ(target_stacks(*admin_, text_of(updated.json, "id")), (Stacks{a2}));
}

// --- Dry run -----------------------------------------------------------------

TEST_P(Templates, DryRunReturnsWhatInstantiationStoresAndStoresNothing) {
  const std::string template_id =
      make_template(*alice_.client, "postgres-db", kPostgresTemplate, kPostgresSchema, {"tier=database"});
  const std::string stack_id = make_stack(alice_, "db", {"tier=database"});
  const std::string other_stack = make_stack(alice_, "web", {"tier=web"});
  const std::string path = "/api/v1/templates/" + template_id + "/render";

  Reply preview = call(*alice_.client, "POST", path, render_body(kPostgresParameters));
  ASSERT_EQ(preview.status, 200) << preview.body;
  EXPECT_EQ(text_of(preview.json, "template_id"), template_id);
  EXPECT_EQ(int_at(preview.json, "/template_version"), 1);
  const std::string yaml = text_of(preview.json, "yaml_content");
  EXPECT_EQ(text_of(preview.json, "checksum"), sindri::sha256_hex(yaml));
  EXPECT_EQ(int_at(documents_of(yaml).at(0), "/spec/replicas"), 1);  // the default applied
  Reply checked = call(*alice_.client, "POST", path, render_body(kPostgresParameters, stack_id));
  ASSERT_EQ(checked.status, 200) << checked.body;
  EXPECT_EQ(text_of(checked.json, "yaml_content"), yaml);
  // Any generator may preview any template.
  EXPECT_EQ(call(*bob_.client, "POST", path, render_body(kPostgresParameters)).status, 200);
  EXPECT_EQ(object_count(stack_id), 0u);

  // Every check of instantiation, and still nothing stored.
  EXPECT_TRUE(is_error(call(*alice_.client, "POST", path, render_body(kPostgresParameters, other_stack)), 422,
                       "template_stack_mismatch"));
  EXPECT_TRUE(is_error(call(*alice_.client, "POST", path, render_body(kPostgresParameters, kUnknownId)), 404,
                       "stack_not_found"));
  EXPECT_TRUE(is_error(call(*alice_.client, "POST", path, render_body(R"({"database_name":"orders"})")), 400,
                       "invalid_parameters"));
  EXPECT_TRUE(is_error(call(*alice_.client, "POST", std::string("/api/v1/templates/") + kUnknownId + "/render",
                            render_body(kPostgresParameters)),
                       404, "template_not_found"));
  EXPECT_EQ(object_count(stack_id), 0u);
  EXPECT_EQ(object_count(other_stack), 0u);

  // Instantiation stores exactly the previewed bytes.
  Reply object = instantiate(*alice_.client, stack_id, template_id, kPostgresParameters);
  ASSERT_EQ(object.status, 201) << object.body;
  EXPECT_EQ(text_of(object.json, "yaml_content"), yaml);
  EXPECT_EQ(text_of(object.json, "yaml_checksum"), text_of(preview.json, "checksum"));
}

INSTANTIATE_TEST_SUITE_P(Backends, Templates, ::testing::Values(Backend::Sqlite, Backend::Postgres), backend_name);

}  // namespace
}  // namespace sindri_test
