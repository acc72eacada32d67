// What was deployed, against a real broker on SQLite: a stack's deployment
// objects (`stack objects`, `stack object`), an agent's target state and
// events (`agent state`, `agent events`), as an admin, a generator and the
// agent itself.

#include <string>
#include <vector>

#include "broker_cli_fixture.hpp"
#include "store/database.hpp"
#include "value/json.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri_test {
namespace {

using sindri::Value;

constexpr const char* kConfigMap =
    "# settings\n"
    "apiVersion: v1\n"
    "kind: ConfigMap\n"
    "metadata:\n"
    "  name: web-config\n"
    "data:\n"
    "  greeting: hello\n";

constexpr const char* kTemplate =
    "apiVersion: v1\n"
    "kind: ConfigMap\n"
    "metadata:\n"
    "  name: {{ name }}\n";

constexpr const char* kSchema = R"({"type":"object","required":["name"],"properties":{"name":{"type":"string"}}})";

std::string json_text(const std::string& text) { return sindri::to_json(Value(text)); }

class DeployedCli : public BrokerCli {
 protected:
  // A deployment object posted over the API as the generator; the object.
  Value post_object(const std::string& stack_id, const std::string& yaml, bool deletion_marker = false) {
    Reply made = call(*generator_, "POST", "/api/v1/stacks/" + stack_id + "/deployment-objects",
                      R"({"yaml_content":)" + json_text(yaml) +
                          (deletion_marker ? R"(,"is_deletion_marker":true})" : "}"));
    EXPECT_EQ(made.status, 201) << made.body;
    return made.json;
  }

  // The template `web` of the generator rendered into `stack_id` with
  // {"name": `name`}; the object.
  Value instantiate(const std::string& stack_id, const std::string& name) {
    if (template_id_.empty()) {
      Reply made = call(*generator_, "POST", "/api/v1/templates",
                        R"({"name":"web","template_content":)" + json_text(kTemplate) +
                            R"(,"parameters_schema":)" + json_text(kSchema) + "}");
      EXPECT_EQ(made.status, 201) << made.body;
      template_id_ = text_of(made.json, "id");
    }
    Reply made = call(*generator_, "POST", "/api/v1/stacks/" + stack_id + "/deployment-objects/from-template",
                      R"({"template_id":")" + template_id_ + R"(","parameters":{"name":)" + json_text(name) + "}}");
    EXPECT_EQ(made.status, 201) << made.body;
    return made.json;
  }

  // A stack labelled env=prod, which an agent labelled so targets.
  std::string targeted_stack(const std::string& name) {
    const std::string id = make_stack(name);
    EXPECT_EQ(call(*generator_, "POST", "/api/v1/stacks/" + id + "/labels", R"("env=prod")").status, 201);
    return id;
  }

  // The requests the broker has answered, from its metrics: every series of
  // sindri_http_requests_total but /metrics' own.
  int64_t requests_answered() {
    const Reply metrics = call(*broker_.client(""), "GET", "/metrics");
    EXPECT_EQ(metrics.status, 200);
    int64_t total = 0;
    for (const std::string& line : lines_of(metrics.body)) {
      if (!line.starts_with("sindri_http_requests_total{") || line.find(R"(route="/metrics")") != std::string::npos) {
        continue;
      }
      total += std::stoll(line.substr(line.rfind(' ') + 1));
    }
    return total;
  }

  // The requests `sindri_as(pak, args)` makes; it must succeed.
  int64_t requests_of(const std::string& pak, const std::vector<std::string>& args) {
    const int64_t before = requests_answered();
    const Outcome r = sindri_as(pak, args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return requests_answered() - before;
  }

  // An event the agent reports on `object_id`; the event.
  Value report(const Agent& agent, const std::string& object_id, const std::string& status = "SUCCESS") {
    Reply reported = call(*broker_.client(agent.pak), "POST", "/api/v1/agents/" + agent.id + "/events",
                          R"({"agent_id":")" + agent.id + R"(","deployment_object_id":")" + object_id +
                              R"(","event_type":"DEPLOY","status":")" + status + R"(","message":"m"})");
    EXPECT_EQ(reported.status, 201) << reported.body;
    return reported.json;
  }

  // Runs `sql` on the broker's database, as a fault the broker did not make.
  void change_behind_the_brokers_back(const std::string& sql) {
    sindri::store::OpenOptions options;
    options.pool_size = 1;
    auto db = sindri::store::Database::open(broker_.database(), options);
    ASSERT_TRUE(db.ok()) << db.error().message;
    auto changed = (*db)->write([&](sindri::store::Connection& connection) -> sindri::store::DbStatus {
      auto done = connection.query(sql, {});
      if (!done.ok()) return std::move(done).error();
      return sindri::Ok{};
    });
    ASSERT_TRUE(changed.ok()) << changed.error().message;
  }

  std::string template_id_;
};

// --- stack objects / stack object ---------------------------------------------------

TEST_F(DeployedCli, ObjectsListsEachWithItsTemplate) {
  const std::string stack_id = make_stack("web");
  const Value plain = post_object(stack_id, kConfigMap);
  const Value rendered = instantiate(stack_id, "from-template");
  const Value marker = post_object(stack_id, kConfigMap, true);

  for (const std::string& pak : {broker_.admin_pak(), generator_pak_}) {
    Outcome r = sindri_as(pak, {"stack", "objects", "web"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 4u) << r.out;
    EXPECT_EQ(lines[0], "SEQUENCE  ID" + std::string(36, ' ') + "CHECKSUM      TEMPLATE" + std::string(11, ' ') +
                            "VERSION  CREATED");
    auto row = [](const Value& object, const std::string& tpl, const std::string& version) {
      std::string sequence = sindri::to_json(*object.find("sequence_id"));
      return sequence + std::string(10 - sequence.size(), ' ') + text_of(object, "id") + "  " +
             text_of(object, "yaml_checksum").substr(0, 12) + "  " + tpl + std::string(19 - tpl.size(), ' ') + version +
             std::string(9 - version.size(), ' ') + text_of(object, "created_at");
    };
    EXPECT_EQ(lines[1], row(plain, "<none>", "<none>"));
    EXPECT_EQ(lines[2], row(rendered, "web", "1"));
    EXPECT_EQ(lines[3], row(marker, "<deletion marker>", "<none>"));
  }

  Outcome wide = as_generator({"stack", "objects", "web", "-o", "wide"});
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  const auto wide_lines = lines_of(wide.out);
  ASSERT_EQ(wide_lines.size(), 4u) << wide.out;
  EXPECT_NE(wide_lines[0].find("  CREATED  "), std::string::npos) << wide.out;
  EXPECT_NE(wide_lines[0].find("  SIZE  SUBMITTED  "), std::string::npos) << wide.out;
  EXPECT_NE(wide_lines[0].find("  PARAMETERS"), std::string::npos) << wide.out;
  EXPECT_NE(wide_lines[2].find(R"({"name":"from-template"})"), std::string::npos) << wide.out;
  EXPECT_NE(wide_lines[1].find("  " + std::to_string(std::string(kConfigMap).size()) + "  "), std::string::npos)
      << wide.out;

  Outcome json = as_generator({"stack", "objects", stack_id, "-o", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(*sindri::parse_json(json.out), deployment_objects(stack_id));
  Outcome yaml = as_admin({"stack", "objects", "web", "-o", "yaml"});
  ASSERT_EQ(yaml.exit_code, 0) << yaml.err;
  EXPECT_EQ(yaml.out, sindri::to_yaml(deployment_objects(stack_id)));
}

// The templates of a stack's objects come in one request, whatever their
// number: finding the stack, listing its objects, their provenance.
TEST_F(DeployedCli, ObjectsReadsAStacksProvenanceInOneRequest) {
  const std::string stack_id = make_stack("web");
  instantiate(stack_id, "a");
  post_object(stack_id, kConfigMap);
  instantiate(stack_id, "b");
  const int64_t few = requests_of(generator_pak_, {"stack", "objects", "web"});
  EXPECT_EQ(few, 3);
  for (int i = 0; i < 6; ++i) instantiate(stack_id, "more-" + std::to_string(i));
  EXPECT_EQ(requests_of(generator_pak_, {"stack", "objects", "web"}), few);
  EXPECT_EQ(requests_of(broker_.admin_pak(), {"stack", "objects", stack_id}), few);

  Outcome r = as_generator({"stack", "objects", "web"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 10u) << r.out;
  EXPECT_NE(lines[2].find("  <none>  "), std::string::npos) << r.out;
  for (size_t row : {1u, 3u, 9u}) EXPECT_NE(lines[row].find("  web  "), std::string::npos) << r.out;
}

// The broker's failure to answer the provenance is the verb's, naming the
// call: no table with every template shown as none.
TEST_F(DeployedCli, ObjectsFailWhenTheProvenanceCannotBeRead) {
  const std::string stack_id = make_stack("web");
  instantiate(stack_id, "a");
  change_behind_the_brokers_back("UPDATE rendered_deployment_objects SET template_parameters = 'not json'");
  Outcome r = as_generator({"stack", "objects", "web"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  const std::string call_named =
      "error: cannot read the stack's provenance (GET /stacks/" + stack_id + "/provenance): ";
  EXPECT_TRUE(r.err.starts_with(call_named)) << r.err;
  EXPECT_NE(r.err.find("(HTTP 500 corrupt_provenance)"), std::string::npos) << r.err;
}

TEST_F(DeployedCli, ObjectsOfAnEmptyOrUnknownStack) {
  make_stack("web");
  Outcome empty = as_generator({"stack", "objects", "web"});
  EXPECT_EQ(empty.exit_code, 0) << empty.err;
  EXPECT_EQ(empty.out, "");
  EXPECT_EQ(empty.err, "No deployment objects in stack web found.\n");
  Outcome empty_json = as_generator({"stack", "objects", "web", "-o", "json"});
  EXPECT_EQ(empty_json.out, "[]\n");

  Outcome unknown = as_generator({"stack", "objects", "nope"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.err, "error: stack \"nope\" not found\n");
  Outcome near_miss = as_generator({"stack", "objects", "WEB"});
  EXPECT_EQ(near_miss.exit_code, 1);
  EXPECT_EQ(near_miss.err, "error: no stack named \"WEB\"; did you mean \"web\"?\n");
  const Agent agent = make_agent("edge-1");
  Outcome by_agent = sindri_as(agent.pak, {"stack", "objects", "web"});
  EXPECT_EQ(by_agent.exit_code, 1);
  EXPECT_NE(by_agent.err.find("(HTTP 403"), std::string::npos) << by_agent.err;
}

TEST_F(DeployedCli, ObjectPrintsTheStoredYamlAsIs) {
  const std::string stack_id = make_stack("web");
  const Value object = post_object(stack_id, kConfigMap);
  const std::string id = text_of(object, "id");
  Outcome r = as_generator({"stack", "object", id});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, kConfigMap);

  Outcome json = as_admin({"stack", "object", id, "-o", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(*sindri::parse_json(json.out), call(*admin_, "GET", "/api/v1/deployment-objects/" + id).json);
  Outcome yaml = as_admin({"stack", "object", id, "-o", "yaml"});
  ASSERT_EQ(yaml.exit_code, 0) << yaml.err;
  EXPECT_EQ(text_of(*sindri::parse_yaml(yaml.out), "yaml_content"), kConfigMap);

  Outcome not_an_id = as_admin({"stack", "object", "web"});
  EXPECT_EQ(not_an_id.exit_code, 2);
  EXPECT_EQ(not_an_id.err,
            "error: \"web\" is not a deployment object's id (sindri stack objects STACK lists them)\n");
  Outcome unknown = as_admin({"stack", "object", "00000000-0000-4000-8000-000000000000"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("00000000-0000-4000-8000-000000000000"), std::string::npos) << unknown.err;
  EXPECT_NE(unknown.err.find("(HTTP 404"), std::string::npos) << unknown.err;
}

// --- agent state ----------------------------------------------------------------------

TEST_F(DeployedCli, StateIsTheYamlTheAgentApplies) {
  const std::string web = targeted_stack("web");
  const std::string db = targeted_stack("db");
  post_object(web, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: old\n");
  const Value newest = post_object(web, kConfigMap);
  const Value rendered = instantiate(db, "db-config");
  const Agent agent = make_agent("edge-1", "env=prod");

  const std::string expected = "# stack web, object " + text_of(newest, "id") + "\n" + kConfigMap +
                               "---\n# stack db, object " + text_of(rendered, "id") + "\n" +
                               text_of(rendered, "yaml_content");
  // As the admin, and as the agent itself by its name or id.
  for (const Outcome& r : {as_admin({"agent", "state", "edge-1"}), sindri_as(agent.pak, {"agent", "state", "edge-1"}),
                           sindri_as(agent.pak, {"agent", "state", agent.id})}) {
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, expected);
    auto documents = sindri::parse_yaml_stream(r.out);
    ASSERT_TRUE(documents.ok()) << r.out;
    EXPECT_EQ(documents->size(), 2u);
  }

  Outcome json = as_admin({"agent", "state", "edge-1", "-o", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(*sindri::parse_json(json.out),
            call(*admin_, "GET", "/api/v1/agents/" + agent.id + "/target-state?mode=full").json);

  // Once the agent reports web's object applied, only db's is left to apply.
  Reply reported = call(*broker_.client(agent.pak), "POST", "/api/v1/agents/" + agent.id + "/events",
                        R"({"agent_id":")" + agent.id + R"(","deployment_object_id":")" + text_of(newest, "id") +
                            R"(","event_type":"DEPLOY","status":"SUCCESS","message":"applied"})");
  ASSERT_EQ(reported.status, 201) << reported.body;
  Outcome pending = as_admin({"agent", "state", "edge-1", "--incremental"});
  ASSERT_EQ(pending.exit_code, 0) << pending.err;
  EXPECT_EQ(pending.out, "# stack db, object " + text_of(rendered, "id") + "\n" + text_of(rendered, "yaml_content"));
  EXPECT_EQ(as_admin({"agent", "state", "edge-1"}).out, expected);
}

TEST_F(DeployedCli, StateShowsADeletedStacksMarker) {
  const std::string web = targeted_stack("web");
  post_object(web, kConfigMap);
  const Agent agent = make_agent("edge-1", "env=prod");
  ASSERT_EQ(as_generator({"stack", "delete", "web"}).exit_code, 0);
  const Value state = call(*admin_, "GET", "/api/v1/agents/" + agent.id + "/target-state?mode=full").json;
  ASSERT_EQ(state.size(), 1u);
  const std::string marker_id = text_of(*state.at(0), "id");

  Outcome r = as_admin({"agent", "state", "edge-1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "# stack web (deleted), object " + marker_id +
                       " (deletion marker: the agent deletes what these documents name)\n" + kConfigMap);
  Outcome own = sindri_as(agent.pak, {"agent", "state", "edge-1"});
  ASSERT_EQ(own.exit_code, 0) << own.err;
  EXPECT_EQ(lines_of(own.out).at(0), "# stack <deleted or not visible: " + web + ">, object " + marker_id +
                                         " (deletion marker: the agent deletes what these documents name)");
}

// A name that cannot be read for another reason than the PAK's rights (the
// broker's audit log gone from under it: a 500) fails the verb, naming the
// call, instead of showing the stack as deleted or not visible.
TEST_F(DeployedCli, StateFailsWhenANameCannotBeRead) {
  const std::string web = targeted_stack("web");
  post_object(web, kConfigMap);
  make_agent("edge-1", "env=prod");
  ASSERT_EQ(as_generator({"stack", "delete", "web"}).exit_code, 0);
  change_behind_the_brokers_back("DROP TABLE audit_logs");

  Outcome r = as_admin({"agent", "state", "edge-1"});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(r.err.starts_with("error: cannot read the name of stack " + web + " (GET /admin/audit-logs?")) << r.err;
  EXPECT_NE(r.err.find("(HTTP 500"), std::string::npos) << r.err;
  // Output that names nothing does not read names.
  EXPECT_EQ(as_admin({"agent", "state", "edge-1", "-o", "json"}).exit_code, 0);
}

// The same for the tables of targets and templates: a stack or a generator
// the API no longer lists, whose name the audit log cannot give (a 500),
// fails the verb instead of showing as deleted.
TEST_F(DeployedCli, TargetsAndTemplatesFailWhenANameCannotBeRead) {
  const std::string web = targeted_stack("web");
  make_agent("edge-1", "env=prod");
  Reply other = call(*admin_, "POST", "/api/v1/generators", R"({"name":"other"})");
  ASSERT_EQ(other.status, 201) << other.body;
  const std::string other_pak = text_of(other.json, "pak");
  const auto tpl = file("t.tera", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t\n");
  const auto schema = file("t.schema.json", R"({"type": "object"})");
  Outcome created = sindri_as(other_pak, {"template", "create", "t", "-f", tpl.string(), "--schema", schema.string()});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  change_behind_the_brokers_back("UPDATE stacks SET deleted_at = '2026-01-01T00:00:00Z' WHERE id = '" + web + "'");
  change_behind_the_brokers_back("UPDATE generators SET deleted_at = '2026-01-01T00:00:00Z' WHERE name = 'other'");
  change_behind_the_brokers_back("DROP TABLE audit_logs");

  Outcome targets = as_admin({"agent", "targets", "edge-1"});
  EXPECT_EQ(targets.exit_code, 1) << targets.out;
  EXPECT_EQ(targets.out, "");
  EXPECT_NE(targets.err.find("(GET /admin/audit-logs?"), std::string::npos) << targets.err;
  Outcome templates = as_admin({"template", "list"});
  EXPECT_EQ(templates.exit_code, 1) << templates.out;
  EXPECT_EQ(templates.out, "");
  EXPECT_NE(templates.err.find("(GET /admin/audit-logs?"), std::string::npos) << templates.err;
}

TEST_F(DeployedCli, StateErrors) {
  const Agent agent = make_agent("edge-1");
  Outcome empty = as_admin({"agent", "state", "edge-1"});
  EXPECT_EQ(empty.exit_code, 0) << empty.err;
  EXPECT_EQ(empty.out, "");
  EXPECT_EQ(empty.err, "note: agent edge-1 has nothing to apply: it targets no stack with an object\n");
  EXPECT_EQ(as_admin({"agent", "state", "edge-1", "-o", "json"}).out, "[]\n");

  Outcome near_miss = as_admin({"agent", "state", "Edge-1"});
  EXPECT_EQ(near_miss.exit_code, 1);
  EXPECT_EQ(near_miss.err, "error: no agent named \"Edge-1\"; did you mean \"edge-1\"?\n");

  // An agent's PAK sees only its own agent.
  const Agent other = make_agent("edge-2");
  Outcome not_own = sindri_as(agent.pak, {"agent", "state", "edge-2"});
  EXPECT_EQ(not_own.exit_code, 1);
  EXPECT_EQ(not_own.err, "error: agent \"edge-2\" not found (this PAK is agent edge-1's and may see no other agent)\n");
  Outcome not_own_id = sindri_as(agent.pak, {"agent", "state", other.id});
  EXPECT_EQ(not_own_id.exit_code, 1);
  EXPECT_EQ(not_own_id.err, "error: agent " + other.id +
                                " not found (this PAK is agent edge-1's and may see no other agent)\n");

  // A generator sees the agents registered with it, not their state.
  ASSERT_EQ(as_admin({"agent", "create", "edge-3", "--cluster", "c", "--generator-id", generator_id_}).exit_code, 0);
  Outcome by_generator = as_generator({"agent", "state", "edge-3"});
  EXPECT_EQ(by_generator.exit_code, 1);
  EXPECT_NE(by_generator.err.find("(HTTP 403"), std::string::npos) << by_generator.err;
}

// --- agent events ---------------------------------------------------------------------

TEST_F(DeployedCli, EventsListWhatTheAgentReported) {
  const std::string web = targeted_stack("web");
  const Value object = post_object(web, kConfigMap);
  const std::string object_id = text_of(object, "id");
  const Agent agent = make_agent("edge-1", "env=prod");

  Outcome none = as_admin({"agent", "events", "edge-1"});
  EXPECT_EQ(none.exit_code, 0) << none.err;
  EXPECT_EQ(none.out, "");
  EXPECT_EQ(none.err, "No events of agent edge-1 found.\n");

  auto report = [&](const std::string& status, const std::string& message) {
    Reply reported = call(*broker_.client(agent.pak), "POST", "/api/v1/agents/" + agent.id + "/events",
                          R"({"agent_id":")" + agent.id + R"(","deployment_object_id":")" + object_id +
                              R"(","event_type":"DEPLOY","status":")" + status + R"(","message":")" + message + "\"}");
    EXPECT_EQ(reported.status, 201) << reported.body;
    return reported.json;
  };
  const Value started = report("IN_PROGRESS", "applying 1 document");
  const Value done = report("SUCCESS", "applied");

  for (const Outcome& r :
       {as_admin({"agent", "events", "edge-1"}), sindri_as(agent.pak, {"agent", "events", "edge-1"})}) {
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 3u) << r.out;
    const std::string time_pad(text_of(started, "created_at").size() - 4 + 2, ' ');
    EXPECT_EQ(lines[0], "TIME" + time_pad + "STACK  OBJECT" + std::string(32, ' ') + "TYPE    STATUS       MESSAGE");
    EXPECT_EQ(lines[1],
              text_of(started, "created_at") + "  web    " + object_id + "  DEPLOY  IN_PROGRESS  applying 1 document");
    EXPECT_EQ(lines[2], text_of(done, "created_at") + "  web    " + object_id + "  DEPLOY  SUCCESS      applied");
  }
  Outcome wide = as_admin({"agent", "events", "edge-1", "-o", "wide"});
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  const auto wide_lines = lines_of(wide.out);
  ASSERT_EQ(wide_lines.size(), 3u) << wide.out;
  EXPECT_TRUE(wide_lines[0].ends_with("  MESSAGE" + std::string(12, ' ') + "  ID")) << wide.out;
  EXPECT_TRUE(wide_lines[2].ends_with("  applied" + std::string(12, ' ') + "  " + text_of(done, "id"))) << wide.out;

  Outcome json = as_admin({"agent", "events", "edge-1", "-o", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(*sindri::parse_json(json.out), call(*admin_, "GET", "/api/v1/agents/" + agent.id + "/events").json);

  // A generator may read no agent's events, even one registered with it;
  // another agent's PAK sees only itself.
  ASSERT_EQ(as_admin({"agent", "create", "edge-3", "--cluster", "c", "--generator-id", generator_id_}).exit_code, 0);
  Outcome by_generator = as_generator({"agent", "events", "edge-3"});
  EXPECT_EQ(by_generator.exit_code, 1);
  EXPECT_NE(by_generator.err.find("(HTTP 403"), std::string::npos) << by_generator.err;
  const Agent other = make_agent("edge-2");
  Outcome by_other = sindri_as(other.pak, {"agent", "events", "edge-1"});
  EXPECT_EQ(by_other.exit_code, 1);
  EXPECT_EQ(by_other.err,
            "error: agent \"edge-1\" not found (this PAK is agent edge-2's and may see no other agent)\n");
}

// An event's stack is found with requests bounded by the agent's stacks,
// not by its events: the target state places each stack's newest object, a
// stack's listing (for an admin) its older ones.
TEST_F(DeployedCli, EventsFindStacksWithoutAReadPerObject) {
  const std::string web = targeted_stack("web");
  const std::string db = targeted_stack("db");
  const Agent agent = make_agent("edge-1", "env=prod");
  auto deploy = [&](const std::string& stack_id) { report(agent, text_of(post_object(stack_id, kConfigMap), "id")); };
  for (int i = 0; i < 2; ++i) {
    deploy(web);
    deploy(db);
  }
  const int64_t few = requests_of(broker_.admin_pak(), {"agent", "events", "edge-1"});
  for (int i = 0; i < 5; ++i) {
    deploy(web);
    deploy(db);
  }
  EXPECT_EQ(requests_of(broker_.admin_pak(), {"agent", "events", "edge-1"}), few);

  Outcome r = as_admin({"agent", "events", "edge-1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 15u) << r.out;
  for (size_t row = 1; row < lines.size(); ++row) {
    EXPECT_NE(lines[row].find(row % 2 == 1 ? "  web  " : "  db   "), std::string::npos) << r.out;
  }
}

// An agent's PAK may not list a stack's objects: the older ones are read one
// by one, at most 20 of them; the rest show that their stack was not read.
TEST_F(DeployedCli, EventsReadAtMostTwentyObjectsAlone) {
  const std::string web = targeted_stack("web");
  const Agent agent = make_agent("edge-1", "env=prod");
  for (int i = 0; i < 23; ++i) report(agent, text_of(post_object(web, kConfigMap), "id"));

  Outcome r = sindri_as(agent.pak, {"agent", "events", "edge-1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 24u) << r.out;
  size_t named = 0, not_read = 0;
  for (size_t row = 1; row < lines.size(); ++row) {
    if (lines[row].find("  web  ") != std::string::npos) ++named;
    if (lines[row].find("  <stack not read>  ") != std::string::npos) ++not_read;
  }
  EXPECT_EQ(named, 21u) << r.out;  // the newest, from the target state, and 20 read alone
  EXPECT_EQ(not_read, 2u) << r.out;
}

// Only a refusal (403) or a 404 makes an object "not visible": an agent
// that no longer targets the stack may not read its objects; the admin
// still sees where they were.
TEST_F(DeployedCli, EventsOfObjectsNoLongerVisible) {
  const std::string web = targeted_stack("web");
  const Agent agent = make_agent("edge-1", "env=prod");
  const std::string object_id = text_of(post_object(web, kConfigMap), "id");
  report(agent, object_id);
  ASSERT_EQ(call(*generator_, "DELETE", "/api/v1/stacks/" + web + "/labels/env=prod").status, 204);

  Outcome own = sindri_as(agent.pak, {"agent", "events", "edge-1"});
  ASSERT_EQ(own.exit_code, 0) << own.err;
  ASSERT_EQ(lines_of(own.out).size(), 2u) << own.out;
  EXPECT_NE(lines_of(own.out)[1].find("  <object not visible>  " + object_id), std::string::npos) << own.out;
  Outcome by_admin = as_admin({"agent", "events", "edge-1"});
  ASSERT_EQ(by_admin.exit_code, 0) << by_admin.err;
  EXPECT_NE(lines_of(by_admin.out).at(1).find("  web    " + object_id), std::string::npos) << by_admin.out;
}

// --- templates' names -----------------------------------------------------------------

TEST_F(DeployedCli, ATemplateNameIsExactToo) {
  const std::string stack_id = make_stack("web");
  instantiate(stack_id, "x");
  Outcome near_miss = as_generator({"template", "get", "Web"});
  EXPECT_EQ(near_miss.exit_code, 1);
  EXPECT_EQ(near_miss.err, "error: no template named \"Web\"; did you mean \"web\"?\n");
  Outcome unknown = as_generator({"template", "get", "nope"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.err, "error: template \"nope\" not found\n");
}

}  // namespace
}  // namespace sindri_test
