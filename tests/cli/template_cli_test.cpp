// The template verbs (template create|list|get|update|delete|label|annotate|
// render), instantiate and reconstruct against a real broker on SQLite:
// each test runs `sindri serve`, drives it with the `sindri` binary and
// checks what the broker holds over its API.

#include <map>
#include <string>
#include <vector>

#include "broker_cli_fixture.hpp"
#include "store/database.hpp"
#include "value/digest.hpp"
#include "value/json.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri_test {
namespace {

using sindri::Value;

constexpr const char* kTemplate =
    "apiVersion: apps/v1\n"
    "kind: Deployment\n"
    "metadata:\n"
    "  name: {{ name }}\n"
    "spec:\n"
    "  replicas: {{ replicas }}\n"
    "  template:\n"
    "    spec:\n"
    "      containers:\n"
    "      - name: app\n"
    "        image: {{ image }}\n";

constexpr const char* kSchemaYaml =
    "# the parameters of the web template\n"
    "type: object\n"
    "required: [name]\n"
    "properties:\n"
    "  name: {type: string}\n"
    "  replicas: {type: integer, default: 1}\n"
    "  image: {type: string, default: \"nginx:1.25\"}\n";

// The same schema as JSON text, laid out as a person would write it.
constexpr const char* kSchemaJson =
    "{\n"
    "  \"type\": \"object\",\n"
    "  \"required\": [\"name\"],\n"
    "  \"properties\": {\n"
    "    \"name\": {\"type\": \"string\"},\n"
    "    \"replicas\": {\"type\": \"integer\", \"default\": 1},\n"
    "    \"image\": {\"type\": \"string\", \"default\": \"nginx:1.25\"}\n"
    "  }\n"
    "}\n";

std::string json_text(const std::string& text) { return sindri::to_json(Value(text)); }

class TemplateCli : public BrokerCli {
 protected:
  void SetUp() override {
    BrokerCli::SetUp();
    template_path_ = file("web.tera", kTemplate).string();
    schema_path_ = file("web.schema.yaml", kSchemaYaml).string();
  }

  // A template made over the API as `client`; the StackTemplate.
  Value make_template(sindri::http::Client& client, const std::string& name, const std::string& content = kTemplate,
                      const std::string& schema = kSchemaJson) {
    Reply made = call(client, "POST", "/api/v1/templates",
                      R"({"name":)" + json_text(name) + R"(,"template_content":)" + json_text(content) +
                          R"(,"parameters_schema":)" + json_text(schema) + "}");
    EXPECT_EQ(made.status, 201) << made.body;
    return made.json;
  }

  Value templates(const std::string& query = "") {
    Reply listed = call(*admin_, "GET", "/api/v1/templates" + query);
    EXPECT_EQ(listed.status, 200) << listed.body;
    return listed.json;
  }

  // Changes the stored YAML of object `id` behind the broker's back: `from`
  // becomes `to`.
  void tamper(const std::string& id, const std::string& from, const std::string& to) {
    std::string yaml = text_of(call(*admin_, "GET", "/api/v1/deployment-objects/" + id).json, "yaml_content");
    ASSERT_NE(yaml.find(from), std::string::npos) << yaml;
    yaml.replace(yaml.find(from), from.size(), to);
    sindri::store::OpenOptions options;
    options.pool_size = 1;
    auto db = sindri::store::Database::open(broker_.database(), options);
    ASSERT_TRUE(db.ok()) << db.error().message;
    auto written = (*db)->write([&](sindri::store::Connection& connection) -> sindri::store::DbStatus {
      auto updated = connection.query("UPDATE deployment_objects SET yaml_content = $1 WHERE id = $2",
                                      {Value(yaml), Value(id)});
      if (!updated.ok()) return std::move(updated).error();
      return sindri::Ok{};
    });
    ASSERT_TRUE(written.ok()) << written.error().message;
  }

  // Instantiation over the API, as the generator; the deployment object.
  Value instantiate(const std::string& stack_id, const std::string& template_id, const std::string& parameters) {
    Reply made = call(*generator_, "POST", "/api/v1/stacks/" + stack_id + "/deployment-objects/from-template",
                      R"({"template_id":")" + template_id + R"(","parameters":)" + parameters + "}");
    EXPECT_EQ(made.status, 201) << made.body;
    return made.json;
  }

  std::string template_path_;
  std::string schema_path_;
};

// --- template create --------------------------------------------------------------

TEST_F(TemplateCli, CreateSendsAYamlSchemaAsJsonAndAddsLabelsAndAnnotations) {
  Outcome r = as_generator({"template", "create", "web", "-f", template_path_, "--schema", schema_path_,
                            "--description", "the web tier", "--label", "env=prod", "--annotation", "region=eu"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  ASSERT_EQ(r.out.rfind("template web v1 created (id ", 0), 0u) << r.out;
  const std::string id = r.out.substr(28, 36);

  Reply tpl = call(*admin_, "GET", "/api/v1/templates/" + id);
  ASSERT_EQ(tpl.status, 200) << tpl.body;
  EXPECT_EQ(text_of(tpl.json, "template_content"), kTemplate);
  EXPECT_EQ(text_of(tpl.json, "description"), "the web tier");
  EXPECT_EQ(text_of(tpl.json, "generator_id"), generator_id_);
  auto sent_schema = sindri::parse_json(text_of(tpl.json, "parameters_schema"));
  ASSERT_TRUE(sent_schema.ok()) << tpl.body;
  EXPECT_EQ(*sent_schema, *sindri::parse_json(kSchemaJson));

  Reply labels = call(*admin_, "GET", "/api/v1/templates/" + id + "/labels");
  ASSERT_EQ(labels.json.size(), 1u) << labels.body;
  EXPECT_EQ(text_of(*labels.json.at(0), "label"), "env=prod");
  Reply annotations = call(*admin_, "GET", "/api/v1/templates/" + id + "/annotations");
  ASSERT_EQ(annotations.json.size(), 1u) << annotations.body;
  EXPECT_EQ(text_of(*annotations.json.at(0), "key"), "region");
  EXPECT_EQ(text_of(*annotations.json.at(0), "value"), "eu");
}

TEST_F(TemplateCli, CreateSendsAJsonSchemaAsWrittenAndJsonPrintsTheTemplate) {
  const std::string schema = file("web.schema.json", kSchemaJson).string();
  Outcome r = as_generator({"template", "create", "web", "-f", template_path_, "--schema", schema, "-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto printed = sindri::parse_json(r.out);
  ASSERT_TRUE(printed.ok()) << r.out;
  EXPECT_EQ(text_of(*printed, "parameters_schema"), kSchemaJson);
  EXPECT_EQ(printed->find("version")->get_int(), 1);
  EXPECT_EQ(*printed, call(*admin_, "GET", "/api/v1/templates/" + text_of(*printed, "id")).json);
}

// The seed's rule: creation adds a version beside the live one, and only
// update supersedes. The user may have meant update, so it is said.
TEST_F(TemplateCli, CreateUnderALiveNameWarnsThatBothStayLive) {
  const std::vector<std::string> create = {"template", "create", "web", "-f", template_path_, "--schema", schema_path_};
  Outcome first = as_generator(create);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  Outcome second = as_generator(create);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(second.out.rfind("template web v2 created (id ", 0), 0u) << second.out;
  EXPECT_EQ(second.err,
            "warning: template web v1 stays live beside v2; `sindri template update` makes a version that "
            "supersedes the live one\n");
  EXPECT_EQ(templates().size(), 2u);

  // Another owner's template of the same name, or a deleted version, is no concern.
  Outcome system = as_admin(create);
  ASSERT_EQ(system.exit_code, 0) << system.err;
  EXPECT_EQ(system.err, "");
  for (const Outcome* made : {&first, &second}) {
    ASSERT_EQ(as_generator({"template", "delete", made->out.substr(28, 36)}).exit_code, 0) << made->out;
  }
  Outcome third = as_generator(create);
  ASSERT_EQ(third.exit_code, 0) << third.err;
  EXPECT_EQ(third.out.rfind("template web v3 created (id ", 0), 0u) << third.out;
  EXPECT_EQ(third.err, "");
}

TEST_F(TemplateCli, AnAdminCreatesSystemTemplates) {
  Outcome r = as_admin({"template", "create", "base", "-f", template_path_, "--schema", schema_path_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Outcome listed = as_admin({"template", "list"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const auto lines = lines_of(listed.out);
  ASSERT_EQ(lines.size(), 2u) << listed.out;
  EXPECT_NE(lines[1].find("  <system>  "), std::string::npos) << listed.out;
}

TEST_F(TemplateCli, CreateNamesTheFileThatCannotBeRead) {
  const std::string missing = (dir_ / "missing.tera").string();
  Outcome no_template = as_generator({"template", "create", "web", "-f", missing, "--schema", schema_path_});
  EXPECT_EQ(no_template.exit_code, 1);
  EXPECT_EQ(no_template.err, "error: cannot read template file " + missing + ": No such file or directory\n");

  const std::string no_such_schema = (dir_ / "missing.json").string();
  Outcome no_schema = as_generator({"template", "create", "web", "-f", template_path_, "--schema", no_such_schema});
  EXPECT_EQ(no_schema.exit_code, 1);
  EXPECT_EQ(no_schema.err, "error: cannot read schema file " + no_such_schema + ": No such file or directory\n");

  const std::string broken = file("broken.json", "{\n  \"type\": \"object\",\n}\n").string();
  Outcome not_json = as_generator({"template", "create", "web", "-f", template_path_, "--schema", broken});
  EXPECT_EQ(not_json.exit_code, 1);
  EXPECT_EQ(not_json.err.rfind("error: " + broken + ":3:", 0), 0u) << not_json.err;

  const std::string invalid = file("invalid.yaml", "type: object\nproperties:\n  name: {type: 12}\n").string();
  Outcome not_a_schema = as_generator({"template", "create", "web", "-f", template_path_, "--schema", invalid});
  EXPECT_EQ(not_a_schema.exit_code, 1);
  EXPECT_EQ(not_a_schema.err.rfind("error: " + invalid + " is not a valid JSON Schema:\n  " + invalid +
                                       ": /properties/name/type: ",
                                   0),
            0u)
      << not_a_schema.err;

  // Tera reads UTF-8 only, and so does the broker's JSON: the file is named.
  const std::string latin1 = file("latin1.tera", "a: 1\nb: caf\xe9 {{ x }}\n").string();
  Outcome not_utf8 = as_generator({"template", "create", "web", "-f", latin1, "--schema", schema_path_});
  EXPECT_EQ(not_utf8.exit_code, 1);
  EXPECT_EQ(not_utf8.err, "error: " + latin1 + ":2:7: invalid UTF-8: byte 0xE9\n");

  EXPECT_EQ(templates("?all_versions=true").size(), 0u);
}

TEST_F(TemplateCli, ATemplateSyntaxErrorIsTheBrokers400) {
  const std::string bad = file("bad.tera", "kind: {{ name | no_such_filter }}\n").string();
  Outcome r = as_generator({"template", "create", "web", "-f", bad, "--schema", schema_path_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("no_such_filter"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(HTTP 400 invalid_template_syntax)"), std::string::npos) << r.err;
}

TEST_F(TemplateCli, CreateUsageErrorsExit2) {
  Outcome no_schema = as_generator({"template", "create", "web", "-f", template_path_});
  EXPECT_EQ(no_schema.exit_code, 2);
  EXPECT_NE(no_schema.err.find("--schema is required"), std::string::npos) << no_schema.err;
  Outcome no_file = as_generator({"template", "create", "web", "--schema", schema_path_});
  EXPECT_EQ(no_file.exit_code, 2);
  Outcome annotation = as_generator(
      {"template", "create", "web", "-f", template_path_, "--schema", schema_path_, "--annotation", "region"});
  EXPECT_EQ(annotation.exit_code, 2);
  EXPECT_NE(annotation.err.find("expected KEY=VALUE, got \"region\""), std::string::npos) << annotation.err;
  Outcome no_pak = sindri({"template", "list", "--broker", broker_.url()});
  EXPECT_EQ(no_pak.exit_code, 2);
  EXPECT_EQ(no_pak.err, "error: no PAK given: pass --pak or set SINDRI_PAK\n");
  EXPECT_EQ(templates("?all_versions=true").size(), 0u);
}

TEST_F(TemplateCli, ARejectedLabelLeavesNoTemplateBehind) {
  Outcome r = as_generator(
      {"template", "create", "web", "-f", template_path_, "--schema", schema_path_, "--label", "not ok"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot add label \"not ok\""), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(HTTP 400"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("template web was not kept"), std::string::npos) << r.err;
  EXPECT_EQ(templates().size(), 0u);
}

// --- template list / get ------------------------------------------------------------

TEST_F(TemplateCli, ListPrintsATableAndFilters) {
  const Value web = make_template(*generator_, "web");
  const Value db = make_template(*generator_, "db");
  const Value system = make_template(*admin_, "web");
  Outcome r = as_admin({"template", "list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 4u) << r.out;
  // The owner by name: the generator "ci".
  EXPECT_EQ(lines[0].rfind("NAME  VERSION  LIVE VERSIONS  ID" + std::string(36, ' ') + "GENERATOR  CREATED", 0), 0u)
      << r.out;
  // By name, then generator (a system template first), then version.
  const std::string one_live = "1        1" + std::string(14, ' ');
  EXPECT_EQ(lines[1].rfind("db    " + one_live + text_of(db, "id") + "  ci         20", 0), 0u) << r.out;
  EXPECT_EQ(lines[2].rfind("web   " + one_live + text_of(system, "id") + "  <system>   20", 0), 0u) << r.out;
  EXPECT_EQ(lines[3].rfind("web   " + one_live + text_of(web, "id") + "  ci         20", 0), 0u) << r.out;
  Outcome wide = as_admin({"template", "list", "-o", "wide"});
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  EXPECT_NE(lines_of(wide.out)[1].find(generator_id_), std::string::npos) << wide.out;

  Outcome named = as_admin({"template", "list", "--name", "web", "--generator-id", generator_id_, "-o", "json"});
  ASSERT_EQ(named.exit_code, 0) << named.err;
  auto only = sindri::parse_json(named.out);
  ASSERT_TRUE(only.ok()) << named.out;
  ASSERT_EQ(only->size(), 1u) << named.out;
  EXPECT_EQ(*only->at(0), web);

  Outcome none = as_admin({"template", "list", "--name", "nope"});
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_EQ(none.err, "No templates found.\n");
}

TEST_F(TemplateCli, ListAllVersionsShowsSupersededOnes) {
  make_template(*generator_, "web");
  ASSERT_EQ(as_generator({"template", "update", "web", "-f", template_path_, "--schema", schema_path_}).exit_code, 0);
  Outcome live = as_generator({"template", "list"});
  EXPECT_EQ(lines_of(live.out).size(), 2u) << live.out;
  Outcome all = as_generator({"template", "list", "--all-versions"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const auto lines = lines_of(all.out);
  ASSERT_EQ(lines.size(), 3u) << all.out;
  EXPECT_NE(lines[0].find("  CREATED" + std::string(22, ' ') + "DELETED"), std::string::npos) << all.out;
  EXPECT_EQ(lines[1].rfind("web   1  ", 0), 0u) << all.out;
  EXPECT_EQ(lines[1].back(), 'Z') << all.out;  // deleted at a timestamp
  EXPECT_EQ(lines[2].rfind("web   2  ", 0), 0u) << all.out;
  EXPECT_NE(lines[2].find("<none>"), std::string::npos) << all.out;

  // By name too: the API's listing by name has every version unless told.
  Outcome by_name = as_generator({"template", "list", "--name", "web"});
  ASSERT_EQ(by_name.exit_code, 0) << by_name.err;
  ASSERT_EQ(lines_of(by_name.out).size(), 2u) << by_name.out;
  EXPECT_EQ(lines_of(by_name.out)[1].rfind("web   2  ", 0), 0u) << by_name.out;
  Outcome all_by_name = as_generator({"template", "list", "--name", "web", "--all-versions"});
  EXPECT_EQ(lines_of(all_by_name.out).size(), 3u) << all_by_name.out;
}

TEST_F(TemplateCli, GetFindsATemplateByNameOrIdWithItsTargeting) {
  const Value web = make_template(*generator_, "web");
  const std::string id = text_of(web, "id");
  call(*generator_, "POST", "/api/v1/templates/" + id + "/labels", R"("env=prod")");
  call(*generator_, "POST", "/api/v1/templates/" + id + "/labels", R"("tier")");
  call(*generator_, "POST", "/api/v1/templates/" + id + "/annotations", R"({"key":"region","value":"eu"})");

  Outcome by_name = as_admin({"template", "get", "web"});
  ASSERT_EQ(by_name.exit_code, 0) << by_name.err;
  const auto lines = lines_of(by_name.out);
  ASSERT_EQ(lines.size(), 2u) << by_name.out;
  EXPECT_EQ(lines[0].rfind("NAME  VERSION  ID", 0), 0u) << by_name.out;
  EXPECT_NE(lines[0].find("  LABELS          ANNOTATIONS"), std::string::npos) << by_name.out;
  EXPECT_EQ(lines[1].rfind("web   1        " + id + "  ci  ", 0), 0u) << by_name.out;
  EXPECT_NE(lines[1].find("  env=prod, tier  region=eu"), std::string::npos) << by_name.out;

  Outcome by_id = as_generator({"template", "get", id, "-o", "yaml"});
  ASSERT_EQ(by_id.exit_code, 0) << by_id.err;
  auto read_back = sindri::parse_yaml(by_id.out);
  ASSERT_TRUE(read_back.ok()) << by_id.out;
  // The API's template, and what the table shows besides: as in kubectl,
  // -o yaml holds everything the table does.
  Value expected = web;
  expected.set("labels", *sindri::parse_json(R"(["env=prod","tier"])"));
  expected.set("annotations", *sindri::parse_json(R"({"region":"eu"})"));
  EXPECT_EQ(*read_back, expected) << by_id.out;
}

TEST_F(TemplateCli, ANameMeansItsNewestLiveVersion) {
  make_template(*generator_, "web");
  const Value second = make_template(*generator_, "web");  // a POST under a name in use makes v2; v1 stays live
  ASSERT_EQ(second.find("version")->get_int(), 2);
  Outcome got = as_admin({"template", "get", "web", "-o", "json"});
  ASSERT_EQ(got.exit_code, 0) << got.err;
  auto read_back = sindri::parse_json(got.out);
  ASSERT_TRUE(read_back.ok()) << got.out;
  EXPECT_EQ(text_of(*read_back, "id"), text_of(second, "id"));
}

TEST_F(TemplateCli, UnknownAndAmbiguousNamesAreNamed) {
  Outcome unknown = as_admin({"template", "get", "nope"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.err, "error: template \"nope\" not found\n");

  const Value mine = make_template(*generator_, "web");
  const Value system = make_template(*admin_, "web");
  Outcome ambiguous = as_admin({"template", "delete", "web"});
  EXPECT_EQ(ambiguous.exit_code, 1);
  EXPECT_EQ(ambiguous.err, "error: template name \"web\" is ambiguous: templates " + text_of(system, "id") +
                               " (system), " + text_of(mine, "id") + " (generator " + generator_id_ +
                               ") have it; give an id\n");
  EXPECT_EQ(templates().size(), 2u);

  Outcome unknown_id = as_admin({"template", "get", "00000000-0000-4000-8000-000000000000"});
  EXPECT_EQ(unknown_id.exit_code, 1);
  EXPECT_EQ(unknown_id.err, "error: template \"00000000-0000-4000-8000-000000000000\" not found\n");
}

// --- template update / delete -------------------------------------------------------

TEST_F(TemplateCli, UpdateMakesTheNextVersionAndKeepsLabels) {
  Outcome created = as_generator({"template", "create", "web", "-f", template_path_, "--schema", schema_path_,
                                  "--description", "first", "--label", "env=prod"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  const std::string first_id = created.out.substr(28, 36);
  const std::string fixed = file("fixed.tera", std::string(kTemplate) + "  revisionHistoryLimit: 3\n").string();

  Outcome r = as_generator({"template", "update", "web", "-f", fixed, "--schema", schema_path_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Value live = templates("?name=web&all_versions=false");
  ASSERT_EQ(live.size(), 1u);
  const std::string second_id = text_of(*live.at(0), "id");
  EXPECT_EQ(r.out, "template web updated to v2 (id " + second_id + "; v1 is superseded)\n");
  EXPECT_EQ(live.at(0)->find("version")->get_int(), 2);
  EXPECT_EQ(text_of(*live.at(0), "description"), "first");
  EXPECT_EQ(text_of(*live.at(0), "template_content"), std::string(kTemplate) + "  revisionHistoryLimit: 3\n");
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/templates/" + first_id).status, 404);
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/templates/" + second_id + "/labels").json.size(), 1u);

  Outcome described = as_generator({"template", "update", second_id, "-f", fixed, "--schema", schema_path_,
                                    "--description", "third", "-o", "json"});
  ASSERT_EQ(described.exit_code, 0) << described.err;
  auto third = sindri::parse_json(described.out);
  ASSERT_TRUE(third.ok()) << described.out;
  EXPECT_EQ(third->find("version")->get_int(), 3);
  EXPECT_EQ(text_of(*third, "description"), "third");
}

TEST_F(TemplateCli, UpdateOfASystemTemplateByAGeneratorIsForbidden) {
  make_template(*admin_, "base");
  Outcome r = as_generator({"template", "update", "base", "-f", template_path_, "--schema", schema_path_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("(HTTP 403 template_not_owned)"), std::string::npos) << r.err;
  EXPECT_EQ(templates("?all_versions=true").size(), 1u);
}

TEST_F(TemplateCli, DeleteRemovesTheLiveVersion) {
  const Value web = make_template(*generator_, "web");
  Outcome r = as_generator({"template", "delete", "web"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "template web v1 deleted (id " + text_of(web, "id") + ")\n");
  EXPECT_EQ(templates().size(), 0u);
  Outcome again = as_generator({"template", "delete", "web"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_EQ(again.err, "error: template \"web\" not found\n");
}

TEST_F(TemplateCli, DeleteOfANameDeletesEveryLiveVersion) {
  const Value first = make_template(*generator_, "web");
  const Value second = make_template(*generator_, "web");  // v2 beside v1, both live
  const Value other = make_template(*generator_, "db");
  Outcome listed = as_generator({"template", "list", "--name", "web"});
  ASSERT_EQ(lines_of(listed.out).size(), 3u) << listed.out;
  EXPECT_EQ(lines_of(listed.out)[1].rfind("web   1        1, 2           " + text_of(first, "id"), 0), 0u)
      << listed.out;

  Outcome r = as_generator({"template", "delete", "web"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "template web: 2 versions deleted (v1 id " + text_of(first, "id") + ", v2 id " +
                       text_of(second, "id") + ")\n");
  const Value live = templates();
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(text_of(*live.at(0), "id"), text_of(other, "id"));
}

TEST_F(TemplateCli, DeleteVersionPicksOneAndAnIdDeletesThatOne) {
  const Value first = make_template(*generator_, "web");
  const Value second = make_template(*generator_, "web");
  const Value third = make_template(*generator_, "web");
  Outcome picked = as_generator({"template", "delete", "web", "--version", "2"});
  ASSERT_EQ(picked.exit_code, 0) << picked.err;
  EXPECT_EQ(picked.out, "template web v2 deleted (id " + text_of(second, "id") + ")\n");

  Outcome gone = as_generator({"template", "delete", "web", "--version", "2"});
  EXPECT_EQ(gone.exit_code, 1);
  EXPECT_EQ(gone.err, "error: template web has no live version 2 (live: v1, v3)\n");
  Outcome unknown = as_generator({"template", "delete", "nope", "--version", "1"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.err, "error: template \"nope\" not found\n");

  const std::string first_id = text_of(first, "id");
  Outcome by_id = as_generator({"template", "delete", first_id});
  ASSERT_EQ(by_id.exit_code, 0) << by_id.err;
  EXPECT_EQ(by_id.out, "template web v1 deleted (id " + first_id + ")\n");
  Outcome id_and_version = as_generator({"template", "delete", text_of(third, "id"), "--version", "3"});
  EXPECT_EQ(id_and_version.exit_code, 2);
  EXPECT_EQ(id_and_version.err, "error: --version picks among the live versions of a name; " + text_of(third, "id") +
                                    " is shaped as a template id: delete a version by its id alone\n");
  const Value live = templates();
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(text_of(*live.at(0), "id"), text_of(third, "id"));
}

// An id with --version is a usage error before any request: no broker needed.
TEST_F(TemplateCli, DeleteOfAnIdWithAVersionIsAUsageErrorWithoutABroker) {
  const std::string id = "0F8FAD5B-D9CB-469F-A165-70867728950E";
  Outcome r = sindri({"template", "delete", id, "--version", "1", "--broker", "http://127.0.0.1:1", "--pak", "x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: --version picks among the live versions of a name; " + id +
                       " is shaped as a template id: delete a version by its id alone\n");
}

TEST_F(TemplateCli, ListWideShowsDescriptionAndChecksum) {
  const Value web = make_template(*generator_, "web");
  Outcome r = as_generator({"template", "list", "-o", "wide"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  EXPECT_NE(lines[0].find("  CREATED" + std::string(22, ' ') + "DESCRIPTION  CHECKSUM"), std::string::npos) << r.out;
  EXPECT_NE(lines[1].find("  <none>       " + text_of(web, "checksum")), std::string::npos) << r.out;
}

// --- template label / annotate --------------------------------------------------------

TEST_F(TemplateCli, LabelAndAnnotateAddAndRemove) {
  const std::string id = text_of(make_template(*generator_, "web"), "id");
  const std::string labels_path = "/api/v1/templates/" + id + "/labels";
  const std::string annotations_path = "/api/v1/templates/" + id + "/annotations";

  Outcome labeled = as_generator({"template", "label", "web", "env=prod", "tier"});
  ASSERT_EQ(labeled.exit_code, 0) << labeled.err;
  EXPECT_EQ(labeled.out, "template web v1: label env=prod added\ntemplate web v1: label tier added\n");
  EXPECT_EQ(call(*admin_, "GET", labels_path).json.size(), 2u);

  Outcome unlabeled = as_generator({"template", "label", "web", "env=prod", "--remove"});
  ASSERT_EQ(unlabeled.exit_code, 0) << unlabeled.err;
  EXPECT_EQ(unlabeled.out, "template web v1: label env=prod removed\n");
  const Value left = call(*admin_, "GET", labels_path).json;
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(text_of(*left.at(0), "label"), "tier");

  Outcome annotated = as_generator({"template", "annotate", "web", "region=eu", "owner=team=a"});
  ASSERT_EQ(annotated.exit_code, 0) << annotated.err;
  const Value annotations = call(*admin_, "GET", annotations_path).json;
  ASSERT_EQ(annotations.size(), 2u) << sindri::to_json(annotations);
  EXPECT_EQ(text_of(*annotations.at(0), "key"), "owner");
  EXPECT_EQ(text_of(*annotations.at(0), "value"), "team=a");

  Outcome unannotated = as_generator({"template", "annotate", "web", "--remove", "owner"});
  ASSERT_EQ(unannotated.exit_code, 0) << unannotated.err;
  EXPECT_EQ(unannotated.out, "template web v1: annotation owner removed\n");
  EXPECT_EQ(call(*admin_, "GET", annotations_path).json.size(), 1u);
}

TEST_F(TemplateCli, LabelErrorsAreNamed) {
  make_template(*generator_, "web");
  Outcome bad_label = as_generator({"template", "label", "web", "tier", "bad label"});
  EXPECT_EQ(bad_label.exit_code, 1);
  EXPECT_EQ(bad_label.out, "template web v1: label tier added\n");
  EXPECT_EQ(bad_label.err.rfind("error: cannot add label \"bad label\": ", 0), 0u) << bad_label.err;
  EXPECT_NE(bad_label.err.find("(HTTP 400"), std::string::npos) << bad_label.err;

  Outcome no_equals = as_generator({"template", "annotate", "web", "region"});
  EXPECT_EQ(no_equals.exit_code, 2);
  EXPECT_EQ(no_equals.err,
            "error: expected KEY=VALUE, got \"region\" (to remove an annotation: --remove KEY)\n");
  Outcome nothing = as_generator({"template", "label", "web"});
  EXPECT_EQ(nothing.exit_code, 2);
  Outcome unknown = as_generator({"template", "label", "nope", "tier"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.err, "error: template \"nope\" not found\n");
}

// --- template targets -----------------------------------------------------------------

TEST_F(TemplateCli, TargetsListTheStacksTheTemplateMatches) {
  const std::string id = text_of(make_template(*generator_, "web"), "id");
  ASSERT_EQ(call(*generator_, "POST", "/api/v1/templates/" + id + "/labels", R"("env=prod")").status, 201);
  const std::string prod = make_stack("prod");
  make_stack("dev");
  ASSERT_EQ(call(*generator_, "POST", "/api/v1/stacks/" + prod + "/labels", R"("env=prod")").status, 201);

  Outcome table = as_generator({"template", "targets", "web"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  const auto lines = lines_of(table.out);
  ASSERT_EQ(lines.size(), 2u) << table.out;
  EXPECT_EQ(lines[1], "prod  " + prod + "  ci");  // the generator by name

  Outcome json = as_generator({"template", "targets", "web", "-o", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(*sindri::parse_json(json.out), call(*generator_, "GET", "/api/v1/templates/" + id + "/targets").json);

  ASSERT_EQ(as_generator({"template", "label", "web", "tier"}).exit_code, 0);
  Outcome none = as_generator({"template", "targets", "web"});
  EXPECT_EQ(none.exit_code, 0) << none.err;
  EXPECT_EQ(none.err, "No stacks matching template web v1 found.\n");
}

// --- template render ------------------------------------------------------------------

TEST_F(TemplateCli, RenderPrintsTheBrokersYamlExactly) {
  make_template(*generator_, "web");
  const std::string stack_id = make_stack("dev");
  const std::string values = file("values.yaml", "name: shop\nreplicas: 2\nimage: nginx:1.27\n").string();
  Outcome r = as_generator({"template", "render", "web", "-f", values, "--set", "replicas=3", "--set-string",
                            "image=1.5", "--stack", "dev"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string expected = kTemplate;
  expected.replace(expected.find("{{ name }}"), 10, "shop");
  expected.replace(expected.find("{{ replicas }}"), 14, "3");
  expected.replace(expected.find("{{ image }}"), 11, "1.5");
  EXPECT_EQ(r.out, expected);
  EXPECT_EQ(deployment_objects(stack_id).size(), 0u);  // a dry run stores nothing
}

// -o and --output-dir as `sindri render` has them.
TEST_F(TemplateCli, RenderPrintsManifestsAsYamlJsonOrFiles) {
  make_template(*generator_, "web");
  const std::vector<std::string> values = {"--set", "name=shop,replicas=2"};
  auto render = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"template", "render", "web"};
    args.insert(args.end(), values.begin(), values.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return as_generator(args);
  };
  Outcome json = render({"-o", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto manifest = sindri::parse_json(json.out);
  ASSERT_TRUE(manifest.ok()) << json.out;
  EXPECT_EQ(text_of(*manifest, "kind"), "Deployment");
  EXPECT_EQ(manifest->find("spec")->find("replicas")->get_int(), 2);

  Outcome yaml = render({"-o", "yaml"});
  ASSERT_EQ(yaml.exit_code, 0) << yaml.err;
  EXPECT_EQ(sindri::parse_yaml(yaml.out).value(), manifest.value());

  const fs::path out = dir_ / "out";
  Outcome files = render({"--output-dir", out.string()});
  ASSERT_EQ(files.exit_code, 0) << files.err;
  EXPECT_EQ(files.out, (out / "deployment-shop.yaml").string() + "\n");
  EXPECT_EQ(sindri::parse_yaml(read_all(out / "deployment-shop.yaml")).value(), manifest.value());

  Outcome both = render({"-o", "json", "--output-dir", out.string()});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_EQ(both.err, "error: --output-dir writes YAML files; it cannot be combined with -o json\n");
}

TEST_F(TemplateCli, RenderShowsEveryViolationWithItsPointer) {
  make_template(*generator_, "web");
  Outcome r = as_generator({"template", "render", "web", "--set", "replicas=many"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("(HTTP 400 invalid_parameters)"), std::string::npos) << r.err;
  // As `sindri render --schema` words them: these values came from --set.
  EXPECT_NE(r.err.find("\n  values (root): missing required property `name`"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\n  values /replicas: must be integer"), std::string::npos) << r.err;
}

TEST_F(TemplateCli, RenderForAStackChecksItsLabels) {
  const std::string id = text_of(make_template(*generator_, "web"), "id");
  call(*generator_, "POST", "/api/v1/templates/" + id + "/labels", R"("env=prod")");
  const std::string stack_id = make_stack("dev");
  Outcome r = as_generator({"template", "render", "web", "--set", "name=shop", "--stack", "dev"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: template web v1 (" + id + ") does not match stack dev (" + stack_id +
                       "): the stack lacks label \"env=prod\" (HTTP 422 template_stack_mismatch)\n");
  Outcome unknown = as_generator({"template", "render", "web", "--set", "name=shop", "--stack", "nope"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.err, "error: stack \"nope\" not found\n");
}

// --- instantiate ----------------------------------------------------------------------

TEST_F(TemplateCli, InstantiateRendersAsSindriRenderDoes) {
  const std::string stack_id = make_stack("web");
  ASSERT_EQ(as_generator({"template", "create", "web", "-f", template_path_, "--schema", schema_path_}).exit_code, 0);
  const std::string base = file("base.yaml", "name: shop\nreplicas: 2\n").string();
  const std::string prod = file("prod.json", R"({"replicas": 4})").string();
  const std::vector<std::string> values = {"-f", base, "-f", prod, "--set", "replicas=5", "--set-string", "image=7"};

  std::vector<std::string> args = {"instantiate", "web", "web"};
  args.insert(args.end(), values.begin(), values.end());
  Outcome r = as_generator(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Value objects = deployment_objects(stack_id);
  ASSERT_EQ(objects.size(), 1u);
  const Value& object = *objects.at(0);
  EXPECT_EQ(r.out, "deployment object " + text_of(object, "id") +
                       " created in stack web from template web v1 (sequence " +
                       std::to_string(object.find("sequence_id")->get_int()) + ")\n");

  std::vector<std::string> offline = {"render", template_path_, "--schema", schema_path_};
  offline.insert(offline.end(), values.begin(), values.end());
  Outcome rendered = sindri(offline);
  ASSERT_EQ(rendered.exit_code, 0) << rendered.err;
  EXPECT_EQ(text_of(object, "yaml_content"), rendered.out);
  EXPECT_NE(rendered.out.find("replicas: 5\n"), std::string::npos) << rendered.out;
  EXPECT_NE(rendered.out.find("image: 7\n"), std::string::npos) << rendered.out;

  Reply provenance = call(*admin_, "GET", "/api/v1/deployment-objects/" + text_of(object, "id") + "/provenance");
  ASSERT_EQ(provenance.status, 200) << provenance.body;
  EXPECT_EQ(*provenance.json.find("parameters"),
            *sindri::parse_json(R"({"name": "shop", "replicas": 5, "image": "7"})"));
}

TEST_F(TemplateCli, InstantiateAsJsonPrintsTheDeploymentObject) {
  const std::string stack_id = make_stack("web");
  const std::string template_id = text_of(make_template(*generator_, "web"), "id");
  Outcome r = as_generator({"instantiate", stack_id, template_id, "--set", "name=shop", "-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto printed = sindri::parse_json(r.out);
  ASSERT_TRUE(printed.ok()) << r.out;
  EXPECT_EQ(*printed, *deployment_objects(stack_id).at(0));
}

TEST_F(TemplateCli, InstantiateTurnsTheBrokersErrorsIntoMessages) {
  const std::string stack_id = make_stack("dev");
  const std::string id = text_of(make_template(*generator_, "web"), "id");

  Outcome unknown_stack = as_generator({"instantiate", "nope", "web", "--set", "name=shop"});
  EXPECT_EQ(unknown_stack.exit_code, 1);
  EXPECT_EQ(unknown_stack.err, "error: stack \"nope\" not found\n");
  Outcome unknown_template = as_generator({"instantiate", "dev", "nope", "--set", "name=shop"});
  EXPECT_EQ(unknown_template.exit_code, 1);
  EXPECT_EQ(unknown_template.err, "error: template \"nope\" not found\n");

  // The broker's violations are placed where the values came from, as
  // `sindri render --schema` places them: --set, or a file's line and column.
  Outcome invalid = as_generator({"instantiate", "dev", "web", "--set", "name=shop,replicas=-x"});
  EXPECT_EQ(invalid.exit_code, 1);
  EXPECT_EQ(invalid.err.rfind("error: the parameters do not satisfy the template's schema (HTTP 400 "
                              "invalid_parameters):\n  values /replicas: ",
                              0),
            0u)
      << invalid.err;
  const std::string values = file("values.yaml", "name: shop\nreplicas: three\n").string();
  for (std::vector<std::string> verb : {std::vector<std::string>{"instantiate", "dev", "web"},
                                        {"template", "render", "web"}}) {
    verb.insert(verb.end(), {"-f", values});
    Outcome located = as_generator(verb);
    EXPECT_EQ(located.exit_code, 1);
    EXPECT_NE(located.err.find("\n  " + values + ":2:11: /replicas: must be integer, got string"), std::string::npos)
        << located.err;
  }

  call(*generator_, "POST", "/api/v1/templates/" + id + "/labels", R"("env=prod")");
  call(*generator_, "POST", "/api/v1/templates/" + id + "/annotations", R"({"key":"region","value":"eu"})");
  Outcome mismatch = as_generator({"instantiate", "dev", "web", "--set", "name=shop"});
  EXPECT_EQ(mismatch.exit_code, 1);
  EXPECT_EQ(mismatch.err, "error: template web v1 (" + id + ") does not match stack dev (" + stack_id +
                              "): the stack lacks label \"env=prod\", annotation region=eu (HTTP 422 "
                              "template_stack_mismatch)\n");

  const std::string broken = file("broken.tera", "kind: {{ missing_variable }}\n").string();
  ASSERT_EQ(as_admin({"template", "create", "broken", "-f", broken, "--schema", schema_path_}).exit_code, 0);
  Outcome render_error = as_generator({"instantiate", "dev", "broken", "--set", "name=shop"});
  EXPECT_EQ(render_error.exit_code, 1);
  EXPECT_NE(render_error.err.find("missing_variable"), std::string::npos) << render_error.err;
  EXPECT_NE(render_error.err.find("(HTTP 400 template_render_failed)"), std::string::npos) << render_error.err;

  EXPECT_EQ(deployment_objects(stack_id).size(), 0u);
}

TEST_F(TemplateCli, InstantiateChecksItsValuesBeforeAnyRequest) {
  make_stack("dev");
  make_template(*generator_, "web");
  const std::string missing = (dir_ / "missing.yaml").string();
  Outcome no_file = as_generator({"instantiate", "dev", "web", "-f", missing});
  EXPECT_EQ(no_file.exit_code, 1);
  EXPECT_EQ(no_file.err, "error: cannot read values file " + missing + ": No such file or directory\n");
  Outcome bad_set = as_generator({"instantiate", "dev", "web", "--set", "a[x]=1"});
  EXPECT_EQ(bad_set.exit_code, 2);
  EXPECT_EQ(bad_set.err.rfind("--set: `a[x]=1` at column 3: index `x` is not a number\n", 0), 0u) << bad_set.err;
  Outcome usage = as_generator({"instantiate", "dev"});
  EXPECT_EQ(usage.exit_code, 2);
}

// --- reconstruct ----------------------------------------------------------------------

TEST_F(TemplateCli, ReconstructFindsTheObjectIdentical) {
  const std::string stack_id = make_stack("web");
  const std::string template_id = text_of(make_template(*generator_, "web"), "id");
  const Value object = instantiate(stack_id, template_id, R"({"name": "shop"})");
  const std::string id = text_of(object, "id");
  Outcome r = as_generator({"reconstruct", id});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "deployment object " + id +
                       ": identical to template web v1 rendered with its recorded parameters (sha256 " +
                       sindri::sha256_hex(text_of(object, "yaml_content")) + ")\n");
}

TEST_F(TemplateCli, ReconstructReportsTheFirstDifference) {
  const std::string stack_id = make_stack("web");
  const std::string template_id = text_of(make_template(*generator_, "web"), "id");
  const std::string id = text_of(instantiate(stack_id, template_id, R"({"name": "shop", "replicas": 3})"), "id");
  tamper(id, "replicas: 3", "replicas: 30");

  Outcome r = as_generator({"reconstruct", id});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, "deployment object " + id +
                       ": differs from template web v1 rendered with its recorded parameters\n"
                       "--- rendered from template web v1\n"
                       "+++ stored yaml_content\n"
                       "@@ line 6 @@\n"
                       "-  replicas: 3\n"
                       "+  replicas: 30\n");
}

// For a pipeline: one JSON report, an entry per id in order.
TEST_F(TemplateCli, ReconstructAsJsonReportsEveryObject) {
  const std::string stack_id = make_stack("web");
  const std::string template_id = text_of(make_template(*generator_, "web"), "id");
  const Value same = instantiate(stack_id, template_id, R"({"name": "a"})");
  const std::string changed = text_of(instantiate(stack_id, template_id, R"({"name": "b"})"), "id");
  tamper(changed, "image: nginx:1.25\n", "image: nginx:1.25\n# extra\n");
  const std::string unknown = "00000000-0000-4000-8000-000000000000";

  Outcome r = as_generator({"reconstruct", text_of(same, "id"), changed, unknown, "-o", "json"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "");
  auto report = sindri::parse_json(r.out);
  ASSERT_TRUE(report.ok()) << r.out;
  ASSERT_EQ(report->size(), 3u) << r.out;
  const Value& identical = *report->at(0);
  EXPECT_EQ(text_of(identical, "id"), text_of(same, "id"));
  EXPECT_TRUE(identical.find("identical")->get_bool());
  EXPECT_EQ(text_of(identical, "sha256"), sindri::sha256_hex(text_of(same, "yaml_content")));
  EXPECT_EQ(text_of(*identical.find("template"), "name"), "web");
  EXPECT_EQ(identical.find("template")->find("version")->get_int(), 1);
  EXPECT_EQ(identical.find("first_difference"), nullptr);

  const Value& differs = *report->at(1);
  EXPECT_FALSE(differs.find("identical")->get_bool());
  const Value* where = differs.find("first_difference");
  ASSERT_NE(where, nullptr) << r.out;
  EXPECT_EQ(where->find("line")->get_int(), 12);
  EXPECT_EQ(text_of(*where, "rendered"), "");  // the rendered text ends with its newline
  EXPECT_EQ(text_of(*where, "stored"), "# extra");

  const Value& missing = *report->at(2);
  EXPECT_TRUE(missing.find("identical")->is_null());
  EXPECT_NE(text_of(missing, "error").find("(HTTP 404 deployment_object_not_found)"), std::string::npos) << r.out;
}

TEST_F(TemplateCli, ReconstructWithoutProvenanceFails) {
  const std::string stack_id = make_stack("web");
  Reply direct = call(*generator_, "POST", "/api/v1/stacks/" + stack_id + "/deployment-objects",
                      R"({"yaml_content": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"})");
  ASSERT_EQ(direct.status, 201) << direct.body;
  const std::string id = text_of(direct.json, "id");
  Outcome r = as_generator({"reconstruct", id});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  // Named once: the broker's message names the object already.
  EXPECT_EQ(r.err, "error: deployment object " + id +
                       " was not rendered from a template (HTTP 404 provenance_not_found)\n");

  const std::string unknown = "00000000-0000-4000-8000-000000000000";
  Outcome missing = as_generator({"reconstruct", unknown});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("(HTTP 404 deployment_object_not_found)\n"), std::string::npos) << missing.err;

  Outcome usage = as_generator({"reconstruct"});
  EXPECT_EQ(usage.exit_code, 2);
}

TEST_F(TemplateCli, ReconstructChecksEveryIdAndFailsIfAnyFails) {
  const std::string stack_id = make_stack("web");
  const std::string template_id = text_of(make_template(*generator_, "web"), "id");
  const std::string first = text_of(instantiate(stack_id, template_id, R"({"name": "a"})"), "id");
  const std::string second = text_of(instantiate(stack_id, template_id, R"({"name": "b"})"), "id");
  const std::string unknown = "00000000-0000-4000-8000-000000000000";
  Outcome r = as_generator({"reconstruct", first, unknown, second});
  EXPECT_EQ(r.exit_code, 1);
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  EXPECT_EQ(lines[0].rfind("deployment object " + first + ": identical to", 0), 0u);
  EXPECT_EQ(lines[1].rfind("deployment object " + second + ": identical to", 0), 0u);
  EXPECT_EQ(r.err.rfind("error: deployment object " + unknown + ": ", 0), 0u) << r.err;
}

// Seed 000's promise: every object made from a template can be traced back
// to it. Three versions with different content and schema defaults, a
// hundred instantiations of each with varied parameters, every one
// re-rendered by `sindri reconstruct` byte for byte.
TEST_F(TemplateCli, ReconstructionOfHundredsOfObjectsAcrossVersionsIsByteIdentical) {
  const std::string versions[] = {
      kTemplate,
      // v2: labels, a loop and filters
      "apiVersion: apps/v1\n"
      "kind: Deployment\n"
      "metadata:\n"
      "  name: {{ name | replace(from=\"app\", to=\"web\") }}\n"
      "  labels:\n"
      "{%- for key, value in labels %}\n"
      "    {{ key }}: {{ value | json_encode }}\n"
      "{%- endfor %}\n"
      "spec:\n"
      "  replicas: {{ replicas }}\n"
      "  template:\n"
      "    spec:\n"
      "      containers:\n"
      "      - name: app\n"
      "        image: {{ image }}\n",
      // v3: a Service beside it, ports from a list
      "apiVersion: apps/v1\n"
      "kind: Deployment\n"
      "metadata:\n"
      "  name: {{ name }}\n"
      "spec:\n"
      "  replicas: {{ replicas * 2 }}\n"
      "  template:\n"
      "    spec:\n"
      "      containers:\n"
      "      - name: app\n"
      "        image: {{ image }}\n"
      "---\n"
      "apiVersion: v1\n"
      "kind: Service\n"
      "metadata:\n"
      "  name: {{ name }}-svc\n"
      "spec:\n"
      "  ports:\n"
      "{%- for port in ports %}\n"
      "  - port: {{ port }}{% if loop.last %}  # last{% endif %}\n"
      "{%- endfor %}\n",
  };
  const std::string schemas[] = {
      kSchemaJson,
      R"({"type": "object", "required": ["name"], "properties": {"name": {"type": "string"},)"
      R"( "replicas": {"type": "integer", "default": 2}, "image": {"type": "string", "default": "nginx:1.26"},)"
      R"( "labels": {"type": "object", "default": {"app": "web", "tier": "front"}}}})",
      R"({"type": "object", "required": ["name"], "properties": {"name": {"type": "string"},)"
      R"( "replicas": {"type": "integer", "default": 3}, "image": {"type": "string", "default": "nginx:1.27"},)"
      R"( "ports": {"type": "array", "items": {"type": "integer"}, "default": [80, 443]}}})",
  };
  const std::string stacks[] = {make_stack("dev"), make_stack("staging"), make_stack("prod")};
  constexpr int kPerVersion = 100;

  std::string template_id = text_of(make_template(*generator_, "web", versions[0], schemas[0]), "id");
  std::vector<std::string> ids;
  std::map<std::string, int> version_of;
  for (int version = 1; version <= 3; ++version) {
    if (version > 1) {
      Reply updated = call(*generator_, "PUT", "/api/v1/templates/" + template_id,
                           R"({"template_content":)" + json_text(versions[version - 1]) +
                               R"(,"parameters_schema":)" + json_text(schemas[version - 1]) + "}");
      ASSERT_EQ(updated.status, 200) << updated.body;
      template_id = text_of(updated.json, "id");
    }
    for (int i = 0; i < kPerVersion; ++i) {
      // Some parameters given, others left to the version's defaults.
      std::string parameters = R"({"name": "app-)" + std::to_string(version) + "-" + std::to_string(i) + "\"";
      if (i % 2 == 0) parameters += R"(, "replicas": )" + std::to_string(i % 7);
      if (i % 3 == 0) parameters += R"(, "image": "registry.example/app:)" + std::to_string(i) + "\"";
      if (version == 2 && i % 5 == 0) parameters += R"(, "labels": {"team": "t)" + std::to_string(i) + "\"}";
      if (version == 3 && i % 4 == 0) parameters += R"(, "ports": [)" + std::to_string(8000 + i) + ", 9090]";
      parameters += "}";
      const Value object = instantiate(stacks[i % 3], template_id, parameters);
      ASSERT_FALSE(text_of(object, "id").empty()) << parameters;
      ids.push_back(text_of(object, "id"));
      version_of[ids.back()] = version;
    }
  }

  std::vector<std::string> args = {"reconstruct"};
  args.insert(args.end(), ids.begin(), ids.end());
  Outcome r = as_generator(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), ids.size()) << r.out;
  for (size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(lines[i].rfind("deployment object " + ids[i] + ": identical to template web v" +
                                 std::to_string(version_of[ids[i]]) + " rendered with its recorded parameters",
                             0),
              0u)
        << lines[i];
  }
}

}  // namespace
}  // namespace sindri_test
