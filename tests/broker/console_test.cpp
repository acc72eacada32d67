// The console's side of the broker (issue 31), black box over HTTP on
// SQLite: its static files at /ui/ from ui.directory or the copy embedded at
// build time, the check-only POST /api/v1/templates/check its editor calls
// as one types, and POST /api/v1/deployment-objects/{id}/reconstruct behind
// its "re-render and compare".

#include <fstream>
#include <regex>

#include "broker_process.hpp"
#include "store/database.hpp"

namespace sindri_test {
namespace {

using sindri::http::ClientResponse;
using sindri::http::Header;

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

class ConsoleFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    broker_ = std::make_unique<BrokerProcess>(Backend::Sqlite);
    site_ = broker_->dir() / "site";
    write_file(site_ / "index.html", "<!doctype html><title>console</title><script src=\"/ui/assets/app-1a2b.js\">");
    // Large and repetitive enough that gzip pays.
    std::string script;
    for (int i = 0; i < 400; ++i) script += "console.log('line " + std::to_string(i % 7) + "');\n";
    write_file(site_ / "assets" / "app-1a2b.js", script);
    write_file(site_ / "favicon.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>");
  }

  ClientResponse get(const std::string& path, std::vector<Header> headers = {}, const std::string& method = "GET",
                     bool accept_gzip = false) {
    sindri::http::Client client(broker_->url());
    client.set_headers(std::move(headers));
    client.set_accept_gzip(accept_gzip);
    auto response = client.request(method, path, "");
    if (!response.ok()) throw std::runtime_error(response.error().message);
    return std::move(response).value();
  }

  std::string slurp_site(const std::string& relative) const { return slurp(site_ / relative); }

  std::unique_ptr<BrokerProcess> broker_;
  fs::path site_;
};

TEST_F(ConsoleFiles, TheDirectorysFilesAreServedWithoutAPak) {
  broker_->start({"--ui-directory", site_.string()});
  ClientResponse root = get("/ui");
  EXPECT_EQ(root.status, 301);
  EXPECT_EQ(root.header("Location"), "/ui/");

  ClientResponse index = get("/ui/");
  ASSERT_EQ(index.status, 200) << index.body;
  EXPECT_EQ(index.body, slurp_site("index.html"));
  EXPECT_EQ(index.header("Content-Type"), "text/html; charset=utf-8");
  EXPECT_EQ(index.header("Cache-Control"), "no-cache");
  EXPECT_NE(index.header("Content-Security-Policy").find("default-src 'self'"), std::string::npos);
  EXPECT_EQ(index.header("X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(get("/ui/index.html").body, index.body);

  ClientResponse script = get("/ui/assets/app-1a2b.js");
  ASSERT_EQ(script.status, 200) << script.body;
  EXPECT_EQ(script.body, slurp_site("assets/app-1a2b.js"));
  EXPECT_EQ(script.header("Content-Type"), "text/javascript; charset=utf-8");
  EXPECT_EQ(script.header("Cache-Control"), "public, max-age=31536000, immutable");
  EXPECT_EQ(get("/ui/favicon.svg").header("Content-Type"), "image/svg+xml");
}

TEST_F(ConsoleFiles, AnUnchangedFileIsNotSentAgainAndTextIsCompressed) {
  broker_->start({"--ui-directory", site_.string()});
  ClientResponse first = get("/ui/assets/app-1a2b.js");
  const std::string etag(first.header("ETag"));
  ASSERT_FALSE(etag.empty());
  ClientResponse again = get("/ui/assets/app-1a2b.js", {{"If-None-Match", etag}});
  EXPECT_EQ(again.status, 304);
  EXPECT_EQ(again.body, "");
  EXPECT_EQ(get("/ui/assets/app-1a2b.js", {{"If-None-Match", "\"other\""}}).status, 200);

  EXPECT_EQ(get("/ui/assets/app-1a2b.js", {{"If-None-Match", "W/\"other\", " + etag}}).status, 304);
  EXPECT_EQ(get("/ui/assets/app-1a2b.js", {{"If-None-Match", "*"}}).status, 304);

  ClientResponse gzipped = get("/ui/assets/app-1a2b.js", {}, "GET", true);
  EXPECT_EQ(gzipped.header("Content-Encoding"), "gzip");
  EXPECT_EQ(gzipped.header("Vary"), "Accept-Encoding");
  EXPECT_EQ(gzipped.body, slurp_site("assets/app-1a2b.js"));
  EXPECT_EQ(first.header("Content-Encoding"), "");
  // Another representation, another tag: a cache never answers one with the other.
  const std::string gzip_etag(gzipped.header("ETag"));
  EXPECT_NE(gzip_etag, etag);
  EXPECT_EQ(get("/ui/assets/app-1a2b.js", {{"If-None-Match", gzip_etag}}).status, 200);
  EXPECT_EQ(get("/ui/assets/app-1a2b.js", {{"If-None-Match", gzip_etag}}, "GET", true).status, 304);
  EXPECT_EQ(get("/ui/assets/app-1a2b.js", {{"If-None-Match", etag}}, "GET", true).status, 200);

  ClientResponse head = get("/ui/assets/app-1a2b.js", {}, "HEAD");
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.body, "");
}

TEST_F(ConsoleFiles, AChangedFileIsReadAgain) {
  broker_->start({"--ui-directory", site_.string()});
  ASSERT_EQ(get("/ui/").body, slurp_site("index.html"));
  write_file(site_ / "index.html", "<!doctype html><title>a newer console, and longer</title>");
  EXPECT_EQ(get("/ui/").body, "<!doctype html><title>a newer console, and longer</title>");
}

TEST_F(ConsoleFiles, NothingOutsideTheDirectoryOrMissingIsServed) {
  write_file(broker_->dir() / "secret.txt", "not for the web");
  broker_->start({"--ui-directory", site_.string()});
  for (const std::string path : {"/ui/../secret.txt", "/ui/%2e%2e/secret.txt", "/ui/assets/%2e%2e/%2e%2e/secret.txt",
                                 "/ui/./index.html", "/ui//index.html", "/ui/assets/", "/ui/missing.js",
                                 "/ui/assets", "/ui/a%5c..%5csecret.txt"}) {
    ClientResponse answer = get(path);
    EXPECT_EQ(answer.status, 404) << path << ": " << answer.body;
    EXPECT_EQ(answer.body.find("not for the web"), std::string::npos) << path;
  }
  EXPECT_EQ(get("/uix").status, 404);
}

TEST_F(ConsoleFiles, OnlyGetAndHeadAreAnswered) {
  broker_->start({"--ui-directory", site_.string()});
  sindri::http::Client client(broker_->url());
  for (const std::string method : {"POST", "PUT", "DELETE"}) {
    Reply reply = call(client, method, "/ui/", "{}");
    EXPECT_EQ(reply.status, 405) << method << ": " << reply.body;
    EXPECT_EQ(reply.header_allow, "GET, HEAD") << method;
  }
}

TEST_F(ConsoleFiles, ADirectoryWithoutAConsoleIsRefusedAtStart) {
  const auto ran = broker_->run_serve_command({"--ui-directory", (broker_->dir() / "nothing-here").string()});
  EXPECT_NE(ran.status, 0);
  EXPECT_NE(ran.output.find("ui.directory"), std::string::npos) << ran.output;
  EXPECT_NE(ran.output.find("index.html"), std::string::npos) << ran.output;
}

// The copy built into this binary: every script and stylesheet its
// index.html names is served too, or, for a binary built without a console,
// /ui/ says so.
TEST_F(ConsoleFiles, TheEmbeddedCopyIsWhole) {
  broker_->start();
  ClientResponse index = get("/ui/");
  if (SINDRI_CONSOLE_EMBEDDED_FILES == 0) {
    EXPECT_EQ(index.status, 404);
    EXPECT_NE(index.body.find("built without the console"), std::string::npos) << index.body;
    return;
  }
  ASSERT_EQ(index.status, 200) << index.body;
  EXPECT_EQ(index.header("Content-Type"), "text/html; charset=utf-8");
  const std::regex asset(R"re((?:src|href)="(/ui/assets/[^"]+)")re");
  int assets = 0;
  for (auto it = std::sregex_iterator(index.body.begin(), index.body.end(), asset); it != std::sregex_iterator(); ++it) {
    const std::string path = (*it)[1];
    ClientResponse file = get(path);
    EXPECT_EQ(file.status, 200) << path;
    EXPECT_FALSE(file.body.empty()) << path;
    ++assets;
  }
  EXPECT_GE(assets, 1) << index.body;
}

// POST /api/v1/templates/check.
class TemplateCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    broker_ = std::make_unique<BrokerProcess>(Backend::Sqlite);
    broker_->start();
    admin_ = broker_->client(broker_->admin_pak());
  }

  Reply check(const std::string& body) { return call(*admin_, "POST", "/api/v1/templates/check", body); }

  static const sindri::Value& problems_of(const Reply& reply) {
    static const sindri::Value none;
    const sindri::Value* problems = reply.json.find("problems");
    return problems != nullptr ? *problems : none;
  }

  static int64_t integer(const sindri::Value& object, std::string_view key) {
    const sindri::Value* value = object.find(key);
    return value != nullptr && value->is_int() ? value->get_int() : -1;
  }

  std::unique_ptr<BrokerProcess> broker_;
  std::unique_ptr<sindri::http::Client> admin_;
};

constexpr const char* kSchema = R"({"type": "object", "properties": {"replicas": {"type": "integer"}}})";

TEST_F(TemplateCheck, AGoodTemplateAndSchemaHaveNoProblems) {
  Reply reply = check(R"({"template_content": "replicas: {{ replicas }}\n", "parameters_schema": )" +
                      json_string(kSchema) + "}");
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_TRUE(reply.json.find("valid")->get_bool());
  EXPECT_EQ(problems_of(reply).get_array().size(), 0u);
}

TEST_F(TemplateCheck, ASyntaxErrorIsWhereCreatingTheTemplateSaysItIs) {
  const std::string content = "a: 1\nb: 2\nc: {{ replicas + }}\n";
  Reply reply = check(R"({"name": "web", "template_content": )" + json_string(content) + "}");
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_FALSE(reply.json.find("valid")->get_bool());
  ASSERT_EQ(problems_of(reply).get_array().size(), 1u) << reply.body;
  const sindri::Value& problem = problems_of(reply).get_array()[0];
  EXPECT_EQ(text_of(problem, "field"), "template_content");
  EXPECT_EQ(text_of(problem, "code"), "invalid_template_syntax");
  EXPECT_EQ(integer(problem, "line"), 3);

  Reply created = call(*admin_, "POST", "/api/v1/templates",
                       R"({"name": "web", "template_content": )" + json_string(content) +
                           R"(, "parameters_schema": )" + json_string(kSchema) + "}");
  ASSERT_EQ(created.status, 400) << created.body;
  const sindri::Value& details = *created.json.find("details");
  EXPECT_EQ(integer(details, "line"), integer(problem, "line"));
  EXPECT_EQ(integer(details, "column"), integer(problem, "column"));
  EXPECT_EQ(text_of(created.json, "message").find(text_of(problem, "message")) != std::string::npos, true)
      << created.body << "\n" << reply.body;
}

TEST_F(TemplateCheck, EveryProblemOfAParsedTemplateIsListed) {
  const std::string content = "a: {{ now() }}\nb: 1\nc: {{ get_env(name=\"HOME\") }}\n{% include \"other\" %}\n";
  Reply reply = check(R"({"template_content": )" + json_string(content) + "}");
  ASSERT_EQ(reply.status, 200) << reply.body;
  const auto& problems = problems_of(reply).get_array();
  ASSERT_EQ(problems.size(), 3u) << reply.body;
  EXPECT_EQ(integer(problems[0], "line"), 1);
  EXPECT_EQ(integer(problems[1], "line"), 3);
  EXPECT_EQ(integer(problems[2], "line"), 4);
  EXPECT_NE(text_of(problems[2], "message").find("other"), std::string::npos) << reply.body;
}

TEST_F(TemplateCheck, ASchemaProblemNamesItsPointerAndLine) {
  const std::string schema = "{\n  \"type\": \"object\",\n  \"properties\": {\n    \"replicas\": {\"type\": \"integr\"},\n"
                             "    \"name\": {\"minLength\": -1}\n  }\n}";
  Reply reply = check(R"({"parameters_schema": )" + json_string(schema) + "}");
  ASSERT_EQ(reply.status, 200) << reply.body;
  const auto& problems = problems_of(reply).get_array();
  ASSERT_EQ(problems.size(), 2u) << reply.body;
  std::map<std::string, int64_t> lines;
  for (const auto& problem : problems) {
    EXPECT_EQ(text_of(problem, "field"), "parameters_schema");
    EXPECT_EQ(text_of(problem, "code"), "invalid_parameters_schema");
    lines[text_of(problem, "pointer")] = integer(problem, "line");
  }
  EXPECT_EQ(lines["/properties/replicas/type"], 4) << reply.body;
  EXPECT_EQ(lines["/properties/name/minLength"], 5) << reply.body;
}

TEST_F(TemplateCheck, ASchemaThatIsNotJsonOrNotAnObjectsIsPlaced) {
  Reply broken = check(R"({"parameters_schema": "{\n  \"type\": \"object\",,\n}"})");
  ASSERT_EQ(broken.status, 200) << broken.body;
  ASSERT_EQ(problems_of(broken).get_array().size(), 1u) << broken.body;
  const sindri::Value& syntax = problems_of(broken).get_array()[0];
  EXPECT_EQ(integer(syntax, "line"), 2) << broken.body;
  EXPECT_NE(text_of(syntax, "message").find("not JSON"), std::string::npos) << broken.body;

  Reply array = check(R"({"parameters_schema": "{\n  \"type\": \"array\"\n}"})");
  ASSERT_EQ(problems_of(array).get_array().size(), 1u) << array.body;
  const sindri::Value& root = problems_of(array).get_array()[0];
  EXPECT_EQ(text_of(root, "pointer"), "/type");
  EXPECT_EQ(integer(root, "line"), 2) << array.body;
}

TEST_F(TemplateCheck, BothTextsProblemsComeTogetherAndNothingIsStored) {
  Reply reply = check(R"({"template_content": "{{ x", "parameters_schema": "{\"type\": 5}"})");
  ASSERT_EQ(reply.status, 200) << reply.body;
  const auto& problems = problems_of(reply).get_array();
  ASSERT_EQ(problems.size(), 2u) << reply.body;
  EXPECT_EQ(text_of(problems[0], "field"), "template_content");
  EXPECT_EQ(text_of(problems[1], "field"), "parameters_schema");
  Reply templates = call(*admin_, "GET", "/api/v1/templates");
  EXPECT_EQ(templates.json.get_array().size(), 0u) << templates.body;
}

TEST_F(TemplateCheck, AnEmptyTextIsAProblemAndTheOtherIsStillChecked) {
  Reply reply = check(R"({"template_content": "", "parameters_schema": "{\"type\": 5}"})");
  ASSERT_EQ(reply.status, 200) << reply.body;
  const auto& problems = problems_of(reply).get_array();
  ASSERT_EQ(problems.size(), 2u) << reply.body;
  EXPECT_EQ(text_of(problems[0], "field"), "template_content");
  EXPECT_EQ(text_of(problems[0], "code"), "empty");
  EXPECT_EQ(problems[0].find("line"), nullptr) << reply.body;
  EXPECT_EQ(text_of(problems[1], "field"), "parameters_schema");
  EXPECT_EQ(text_of(problems[1], "code"), "invalid_parameters_schema");

  Reply schema = check(R"({"template_content": "a: 1", "parameters_schema": ""})");
  ASSERT_EQ(problems_of(schema).get_array().size(), 1u) << schema.body;
  EXPECT_EQ(text_of(problems_of(schema).get_array()[0], "code"), "empty");
}

TEST_F(TemplateCheck, ABadRequestIsRefusedWithItsPlace) {
  Reply neither = check("{}");
  EXPECT_EQ(neither.status, 400) << neither.body;
  EXPECT_EQ(text_of(neither.json, "code"), "missing_field") << neither.body;

  Reply wrong_type = check(R"({"template_content": 5})");
  EXPECT_EQ(wrong_type.status, 400) << wrong_type.body;
  EXPECT_EQ(text_of(*wrong_type.json.find("details"), "pointer"), "/template_content") << wrong_type.body;

  Reply unknown = check(R"({"template_content": "x", "schema": "{}"})");
  EXPECT_EQ(unknown.status, 400) << unknown.body;
  EXPECT_NE(unknown.body.find("/schema"), std::string::npos) << unknown.body;

  EXPECT_EQ(check("{not json").status, 400);
  EXPECT_EQ(check("[]").status, 400);
}

TEST_F(TemplateCheck, OnlyAdminsAndGeneratorsMayAsk) {
  sindri::http::Client anonymous(broker_->url());
  EXPECT_EQ(call(anonymous, "POST", "/api/v1/templates/check", R"({"template_content": "x"})").status, 401);

  Reply generator = call(*admin_, "POST", "/api/v1/generators", R"({"name": "ci"})");
  ASSERT_EQ(generator.status, 201) << generator.body;
  auto ci = broker_->client(text_of(generator.json, "pak"));
  EXPECT_EQ(call(*ci, "POST", "/api/v1/templates/check", R"({"template_content": "x"})").status, 200);

  Reply agent = call(*admin_, "POST", "/api/v1/agents", R"({"name": "a1", "cluster_name": "c1"})");
  ASSERT_EQ(agent.status, 201) << agent.body;
  auto agent_client = broker_->client(text_of(agent.json, "initial_pak"));
  Reply refused = call(*agent_client, "POST", "/api/v1/templates/check", R"({"template_content": "x"})");
  EXPECT_EQ(refused.status, 403) << refused.body;
}

// POST /api/v1/deployment-objects/{id}/reconstruct: the console's
// "re-render and compare", for an object of a retired version too.
class Reconstruct : public TemplateCheck {
 protected:
  struct Made {
    std::string stack_id;
    std::string template_id;
    std::unique_ptr<sindri::http::Client> owner;
  };

  Made make_stack_and_template(const std::string& name) {
    Reply generator = call(*admin_, "POST", "/api/v1/generators", R"({"name": ")" + name + R"("})");
    EXPECT_EQ(generator.status, 201) << generator.body;
    Made made;
    made.owner = broker_->client(text_of(generator.json, "pak"));
    const std::string generator_id = text_of(*generator.json.find("generator"), "id");
    Reply stack = call(*made.owner, "POST", "/api/v1/stacks",
                       R"({"name": ")" + name + R"(", "generator_id": ")" + generator_id + R"("})");
    EXPECT_EQ(stack.status, 201) << stack.body;
    made.stack_id = text_of(stack.json, "id");
    Reply tpl = call(*made.owner, "POST", "/api/v1/templates",
                     R"({"name": "web", "template_content": )" + json_string(kContent) +
                         R"(, "parameters_schema": )" + json_string(kSchema) + "}");
    EXPECT_EQ(tpl.status, 201) << tpl.body;
    made.template_id = text_of(tpl.json, "id");
    return made;
  }

  static constexpr const char* kContent =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  replicas: \"{{ replicas }}\"\n";
};

TEST_F(Reconstruct, AnObjectOfARetiredVersionIsRenderedAgainIdentical) {
  Made made = make_stack_and_template("team-a");
  Reply object = call(*made.owner, "POST", "/api/v1/stacks/" + made.stack_id + "/deployment-objects/from-template",
                      R"({"template_id": ")" + made.template_id + R"(", "parameters": {"replicas": 3}})");
  ASSERT_EQ(object.status, 201) << object.body;
  const std::string object_id = text_of(object.json, "id");
  Reply newer = call(*made.owner, "PUT", "/api/v1/templates/" + made.template_id,
                     R"({"template_content": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n", )"
                     R"("parameters_schema": )" + json_string(kSchema) + "}");
  ASSERT_EQ(newer.status, 200) << newer.body;

  Reply reply = call(*made.owner, "POST", "/api/v1/deployment-objects/" + object_id + "/reconstruct");
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_TRUE(reply.json.find("identical")->get_bool()) << reply.body;
  EXPECT_EQ(text_of(reply.json, "template_id"), made.template_id);
  EXPECT_EQ(integer(reply.json, "template_version"), 1);
  EXPECT_EQ(text_of(reply.json, "yaml_content"), text_of(object.json, "yaml_content"));
  EXPECT_EQ(text_of(reply.json, "stored_checksum"), text_of(object.json, "yaml_checksum"));
  EXPECT_EQ(text_of(reply.json, "rendered_checksum"), text_of(object.json, "yaml_checksum"));
  EXPECT_NE(text_of(reply.json, "yaml_content").find("replicas: \"3\""), std::string::npos) << reply.body;
}

// The stored YAML changed behind the broker's back: the render is the
// template's, the verdict says they differ, the stored checksum is as
// recorded.
TEST_F(Reconstruct, AnObjectChangedSinceItWasStoredIsNotIdentical) {
  Made made = make_stack_and_template("team-d");
  Reply object = call(*made.owner, "POST", "/api/v1/stacks/" + made.stack_id + "/deployment-objects/from-template",
                      R"({"template_id": ")" + made.template_id + R"(", "parameters": {"replicas": 2}})");
  ASSERT_EQ(object.status, 201) << object.body;
  const std::string object_id = text_of(object.json, "id");
  const std::string rendered = text_of(object.json, "yaml_content");
  std::string tampered = rendered;
  tampered.replace(tampered.find("\"2\""), 3, "\"9\"");
  {
    sindri::store::OpenOptions options;
    options.pool_size = 1;
    auto db = sindri::store::Database::open(broker_->database(), options);
    ASSERT_TRUE(db.ok()) << db.error().message;
    auto written = (*db)->write([&](sindri::store::Connection& connection) -> sindri::store::DbStatus {
      auto updated = connection.query("UPDATE deployment_objects SET yaml_content = $1 WHERE id = $2",
                                      {sindri::Value(tampered), sindri::Value(object_id)});
      if (!updated.ok()) return std::move(updated).error();
      return sindri::Ok{};
    });
    ASSERT_TRUE(written.ok()) << written.error().message;
  }
  Reply reply = call(*made.owner, "POST", "/api/v1/deployment-objects/" + object_id + "/reconstruct");
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_FALSE(reply.json.find("identical")->get_bool()) << reply.body;
  EXPECT_EQ(text_of(reply.json, "yaml_content"), rendered);
  EXPECT_EQ(text_of(reply.json, "stored_checksum"), text_of(object.json, "yaml_checksum"));
  EXPECT_EQ(text_of(reply.json, "rendered_checksum"), text_of(object.json, "yaml_checksum"));
}

TEST_F(Reconstruct, OnlyAnObjectMadeFromATemplateByAReaderOfItsStack) {
  Made made = make_stack_and_template("team-b");
  Reply plain = call(*made.owner, "POST", "/api/v1/stacks/" + made.stack_id + "/deployment-objects",
                     R"({"yaml_content": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"})");
  ASSERT_EQ(plain.status, 201) << plain.body;
  Reply without = call(*made.owner, "POST", "/api/v1/deployment-objects/" + text_of(plain.json, "id") + "/reconstruct");
  EXPECT_EQ(without.status, 404) << without.body;
  EXPECT_EQ(text_of(without.json, "code"), "provenance_not_found");

  Reply object = call(*made.owner, "POST", "/api/v1/stacks/" + made.stack_id + "/deployment-objects/from-template",
                      R"({"template_id": ")" + made.template_id + R"(", "parameters": {"replicas": 1}})");
  ASSERT_EQ(object.status, 201) << object.body;
  const std::string path = "/api/v1/deployment-objects/" + text_of(object.json, "id") + "/reconstruct";
  Made stranger = make_stack_and_template("team-c");
  EXPECT_EQ(call(*stranger.owner, "POST", path).status, 403);
  Reply with_body = call(*made.owner, "POST", path, "{}");
  EXPECT_EQ(with_body.status, 400) << with_body.body;
  EXPECT_EQ(text_of(with_body.json, "code"), "body_not_allowed") << with_body.body;
  EXPECT_EQ(call(*made.owner, "POST", "/api/v1/deployment-objects/00000000-0000-0000-0000-000000000001/reconstruct")
                .status,
            404);
  EXPECT_EQ(call(*admin_, "POST", path).status, 200);
}

}  // namespace
}  // namespace sindri_test
