// Bad input never gets a 500 or a crash: each is a 4xx with a JSON error
// that says what is wrong and, for a body field, names it by JSON pointer.

#include "broker_process.hpp"
#include "support/raw_connection.hpp"

namespace sindri_test {
namespace {

using sindri::Value;

std::string pointer_of(const Reply& reply) {
  const Value* details = reply.json.find("details");
  return details != nullptr ? text_of(*details, "pointer") : std::string("<none>");
}

std::string upper_case(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

class BadInput : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    broker_ = std::make_unique<BrokerProcess>(GetParam());
    if (!broker_->usable()) GTEST_FAIL() << "no database for this backend";
    broker_->start({"--body-limit", "4096"});
    admin_ = broker_->client(broker_->admin_pak());
    Reply generator = call(*admin_, "POST", "/api/v1/generators", R"({"name":"g"})");
    ASSERT_EQ(generator.status, 201) << generator.body;
    generator_id_ = text_of(*generator.json.find("generator"), "id");
    generator_pak_ = text_of(generator.json, "pak");
    Reply stack = call(*admin_, "POST", "/api/v1/stacks", R"({"name":"s","generator_id":")" + generator_id_ + R"("})");
    stack_id_ = text_of(stack.json, "id");
  }

  // A 4xx with the ErrorResponse shape; returns the reply for more checks.
  Reply expect_client_error(const std::string& method, const std::string& path, const std::string& body,
                            int status, const std::string& code = {}) {
    Reply reply = call(*admin_, method, path, body);
    EXPECT_EQ(reply.status, status) << method << " " << path << " " << body << " -> " << reply.body;
    EXPECT_FALSE(text_of(reply.json, "code").empty()) << reply.body;
    EXPECT_FALSE(text_of(reply.json, "message").empty()) << reply.body;
    if (!code.empty()) {
      EXPECT_EQ(text_of(reply.json, "code"), code) << reply.body;
    }
    return reply;
  }

  std::unique_ptr<BrokerProcess> broker_;
  std::unique_ptr<sindri::http::Client> admin_;
  std::string generator_id_, generator_pak_, stack_id_;
};

TEST_P(BadInput, MalformedJsonNamesLineAndColumn) {
  Reply reply = expect_client_error("POST", "/api/v1/generators", "{\"name\": \"x\",\n  oops}", 400, "invalid_json");
  EXPECT_NE(text_of(reply.json, "message").find("line 2 column 3"), std::string::npos) << reply.body;
  expect_client_error("POST", "/api/v1/generators", "", 400, "invalid_body");
  expect_client_error("POST", "/api/v1/generators", "[1,2]", 400, "invalid_body");
  // JSON is UTF-8: stored, such a name would make every listing that holds
  // it invalid JSON. Neither is a raw byte echoed into the message.
  Reply not_utf8 = expect_client_error("POST", "/api/v1/stacks", "{\"name\":\"st\xff\"}", 400, "invalid_json");
  EXPECT_NE(text_of(not_utf8.json, "message").find("line 1 column 12: invalid UTF-8: byte 0xFF"), std::string::npos)
      << not_utf8.body;
  // A field given twice, which Brokkr's structs refuse too.
  Reply twice = expect_client_error("POST", "/api/v1/generators", "{\"name\":\"a\",\n \"name\":\"b\"}", 400,
                                    "invalid_json");
  EXPECT_NE(text_of(twice.json, "message").find("line 2 column 2: duplicate key \"name\" (first at line 1 column 2)"),
            std::string::npos)
      << twice.body;
  Reply stray = expect_client_error("POST", "/api/v1/stacks", "{\"name\":\xfe}", 400, "invalid_json");
  EXPECT_NE(text_of(stray.json, "message").find("unexpected byte that is not UTF-8 (invalid UTF-8: byte 0xFE)"),
            std::string::npos)
      << stray.body;
}

TEST_P(BadInput, WrongTypesMissingAndUnknownFieldsNameThePointer) {
  Reply wrong = expect_client_error("POST", "/api/v1/generators", R"({"name":42})", 400, "invalid_field");
  EXPECT_EQ(pointer_of(wrong), "/name");
  Reply missing = expect_client_error("POST", "/api/v1/agents", R"({"name":"a"})", 400, "missing_field");
  EXPECT_EQ(pointer_of(missing), "/cluster_name");
  Reply unknown = expect_client_error("POST", "/api/v1/stacks",
                                      R"({"name":"s2","generator_id":")" + generator_id_ + R"(","colour":"red"})", 400,
                                      "unknown_field");
  EXPECT_EQ(pointer_of(unknown), "/colour");
  Reply item = expect_client_error("POST", "/api/v1/agents",
                                   R"({"name":"a","cluster_name":"c","generator_ids":["not-a-uuid"]})", 400);
  EXPECT_EQ(pointer_of(item), "/generator_ids/0");
  Reply spaces = expect_client_error("POST", "/api/v1/stacks/" + stack_id_ + "/annotations",
                                     R"({"key":"a b","value":"v"})", 400);
  EXPECT_EQ(pointer_of(spaces), "/key");
  Reply long_label = expect_client_error("POST", "/api/v1/stacks/" + stack_id_ + "/labels",
                                         "\"" + std::string(65, 'x') + "\"", 400);
  EXPECT_NE(text_of(long_label.json, "message").find("at most 64"), std::string::npos);
  Reply heartbeat_type = call(*admin_, "POST", "/api/v1/stacks/" + stack_id_ + "/deployment-objects",
                              R"({"yaml_content":"apiVersion: v1\nkind: X\n","is_deletion_marker":"yes"})");
  EXPECT_EQ(heartbeat_type.status, 400);
  EXPECT_EQ(pointer_of(heartbeat_type), "/is_deletion_marker");
  // Names sit in one table cell: one line, not only spaces.
  for (const char* body : {R"({"name":"a\nb"})", R"({"name":"a\tb"})", R"({"name":"   "})"}) {
    Reply name = expect_client_error("POST", "/api/v1/generators", body, 400, "invalid_field");
    EXPECT_EQ(pointer_of(name), "/name") << body;
  }
  Reply line_break = expect_client_error("POST", "/api/v1/generators", R"({"name":"a\nb"})", 400, "invalid_field");
  EXPECT_NE(text_of(line_break.json, "message").find("control character U+000A at byte 1"), std::string::npos)
      << line_break.body;
  EXPECT_EQ(call(*admin_, "POST", "/api/v1/generators", R"({"name":"two words"})").status, 201);
}

// PostgreSQL's text ends at a NUL byte: a string holding one would be
// stored cut short (its checksum still that of the whole), so every text
// field refuses it, on both databases alike, and so does the query string.
TEST_P(BadInput, NulCharactersInTextAreRefused) {
  Reply name = expect_client_error("POST", "/api/v1/generators", R"({"name":"g1\u0000other"})", 400, "invalid_field");
  EXPECT_EQ(pointer_of(name), "/name");
  EXPECT_NE(text_of(name.json, "message").find("NUL"), std::string::npos) << name.body;
  Reply yaml = expect_client_error("POST", "/api/v1/stacks/" + stack_id_ + "/deployment-objects",
                                   R"({"yaml_content":"apiVersion: v1\nkind: A\n# c\u0000d\n"})", 400, "invalid_field");
  EXPECT_EQ(pointer_of(yaml), "/yaml_content");
  expect_client_error("POST", "/api/v1/stacks/" + stack_id_ + "/labels", R"("a\u0000b")", 400, "invalid_field");
  Reply annotation = expect_client_error("POST", "/api/v1/stacks/" + stack_id_ + "/annotations",
                                         R"({"key":"k","value":"v\u0000"})", 400, "invalid_field");
  EXPECT_EQ(pointer_of(annotation), "/value");
  Reply query = call(*admin_, "GET", "/api/v1/templates?name=a%00b");
  EXPECT_EQ(query.status, 400) << query.body;
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/stacks/" + stack_id_ + "/deployment-objects").json.size(), 0u);
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/generators").json.size(), 2u);  // the system generator and g
}

// What is stored is served to agents as JSON, which is UTF-8: a deletion
// marker's raw text, not read as manifests, is checked as text. And an
// error quoting a client's bytes is JSON all the same.
TEST_P(BadInput, TextThatIsNotUtf8IsRefusedAndNeverEchoedRaw) {
  const std::string objects = "/api/v1/stacks/" + stack_id_ + "/deployment-objects";
  Reply marker = call(*admin_, "POST", objects + "?deletion_marker=true", std::string("\xff\xfe\0garbage", 10),
                      "application/yaml");
  EXPECT_EQ(marker.status, 400) << marker.body;
  EXPECT_NE(text_of(marker.json, "message").find("NUL"), std::string::npos) << marker.body;
  Reply not_utf8 = call(*admin_, "POST", objects + "?deletion_marker=true", "kind: A\n# \xc3\n", "application/yaml");
  EXPECT_EQ(not_utf8.status, 400) << not_utf8.body;
  EXPECT_NE(text_of(not_utf8.json, "message").find("not UTF-8: byte 10"), std::string::npos) << not_utf8.body;
  EXPECT_EQ(call(*admin_, "GET", objects).json.size(), 0u);
  EXPECT_EQ(call(*admin_, "POST", objects + "?deletion_marker=true", "gone: true\n", "application/yaml").status, 201);

  for (const std::string& path : {std::string("/api/v1/stacks/%ff%fe"), std::string("/api/v1/templates?generator_id=%ff"),
                                 "/api/v1/stacks/" + stack_id_ + "/labels/%c3"}) {
    Reply echoed = call(*admin_, path.find("labels") != std::string::npos ? "DELETE" : "GET", path);
    EXPECT_GE(echoed.status, 400) << path;
    EXPECT_LT(echoed.status, 500) << path;
    ASSERT_TRUE(echoed.json.is_object()) << path << " answered what is not JSON: " << echoed.body;
    EXPECT_FALSE(text_of(echoed.json, "message").empty()) << echoed.body;
  }
}

TEST_P(BadInput, YamlErrorsNameDocumentLineAndColumn) {
  Reply syntax = expect_client_error("POST", "/api/v1/stacks/" + stack_id_ + "/deployment-objects",
                                     R"({"yaml_content":"apiVersion: v1\nkind: A\n---\nkey: [1, 2\n"})", 400,
                                     "invalid_yaml");
  EXPECT_EQ(pointer_of(syntax), "/yaml_content");
  EXPECT_EQ(syntax.json.find("details")->find("document")->get_int(), 2);
  EXPECT_NE(text_of(syntax.json, "message").find("document 2 line"), std::string::npos) << syntax.body;
  Reply not_object = expect_client_error("POST", "/api/v1/stacks/" + stack_id_ + "/deployment-objects",
                                         R"({"yaml_content":"- a\n- b\n"})", 400, "invalid_yaml");
  EXPECT_NE(text_of(not_object.json, "message").find("mapping"), std::string::npos);
  Reply no_kind = expect_client_error("POST", "/api/v1/stacks/" + stack_id_ + "/deployment-objects",
                                      R"({"yaml_content":"apiVersion: v1\nmetadata: {}\n"})", 400, "invalid_yaml");
  EXPECT_NE(text_of(no_kind.json, "message").find("kind"), std::string::npos);
  Reply raw = call(*admin_, "POST", "/api/v1/stacks/" + stack_id_ + "/deployment-objects", "a: b: c\n",
                   "application/yaml");
  EXPECT_EQ(raw.status, 400) << raw.body;
  // libfyaml 0.7.12 crashed (a double free) on a tab before an indicator
  // after the `:` of a key inside a complex key: the broker must answer.
  Reply complex_key = expect_client_error("POST", "/api/v1/stacks/" + stack_id_ + "/deployment-objects",
                                          R"({"yaml_content":"apiVersion: v1\nkind: A\n? k:\t|\n"})", 400,
                                          "invalid_yaml");
  EXPECT_NE(text_of(complex_key.json, "message").find("map key"), std::string::npos) << complex_key.body;
  EXPECT_EQ(call(*admin_, "GET", "/healthz").status, 200);
  // Nothing was stored by any of them.
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/stacks/" + stack_id_ + "/deployment-objects").json.size(), 0u);
}

TEST_P(BadInput, UnknownAndMalformedIds) {
  const std::string unknown = "123e4567-e89b-42d3-a456-426614174000";
  expect_client_error("GET", "/api/v1/stacks/" + unknown, "", 404, "stack_not_found");
  expect_client_error("GET", "/api/v1/agents/" + unknown, "", 404, "agent_not_found");
  expect_client_error("GET", "/api/v1/generators/" + unknown, "", 404, "generator_not_found");
  expect_client_error("GET", "/api/v1/deployment-objects/" + unknown, "", 404, "deployment_object_not_found");
  expect_client_error("POST", "/api/v1/stacks/" + unknown + "/deployment-objects",
                      R"({"yaml_content":"apiVersion: v1\nkind: A\n"})", 404, "stack_not_found");
  expect_client_error("GET", "/api/v1/stacks/not-a-uuid", "", 400, "invalid_path_parameter");
  // Ids are compared lower-case, as Brokkr's UUID parser reads either case.
  Reply by_upper = call(*admin_, "GET", "/api/v1/stacks/" + upper_case(stack_id_));
  EXPECT_EQ(by_upper.status, 200) << by_upper.body;
  EXPECT_EQ(text_of(by_upper.json, "id"), stack_id_);
  Reply in_body = call(*admin_, "POST", "/api/v1/stacks",
                       R"({"name":"upper","generator_id":")" + upper_case(generator_id_) + R"("})");
  EXPECT_EQ(in_body.status, 201) << in_body.body;
  EXPECT_EQ(text_of(in_body.json, "generator_id"), generator_id_);
  expect_client_error("DELETE", "/api/v1/stacks/" + stack_id_ + "/labels/none", "", 404, "label_not_found");
  Reply bad_stack = expect_client_error("POST", "/api/v1/stacks", R"({"name":"x","generator_id":")" + unknown + R"("})",
                                        400);
  EXPECT_EQ(pointer_of(bad_stack), "/generator_id");
  expect_client_error("GET", "/api/v1/nowhere", "", 404, "not_found");
  Reply wrong_method = expect_client_error("PATCH", "/api/v1/stacks", "", 405, "method_not_allowed");
  EXPECT_EQ(wrong_method.header_allow, "GET, POST");
  expect_client_error("GET", "/api/v1/agents/" + unknown + "/target-state?mode=sideways", "", 400);
}

TEST_P(BadInput, BodiesOverTheLimitGet413) {
  const std::string huge = R"({"name":")" + std::string(8192, 'x') + R"("})";
  Reply reply = expect_client_error("POST", "/api/v1/generators", huge, 413, "payload_too_large");
  // The broker is still there.
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/generators").status, 200);
}

TEST_P(BadInput, MissingMalformedAndRevokedPaks) {
  auto anonymous = broker_->client("");
  Reply none = call(*anonymous, "GET", "/api/v1/stacks");
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(text_of(none.json, "code"), "unauthorized");
  for (const std::string& header : {std::string("Bearer nonsense"), std::string("brokkr_BRshort_x"),
                                    std::string("Basic dXNlcjpwYXNz"),
                                    std::string("brokkr_BRAAAAAAAA_AAAAAAAAAAAAAAAAAAAAAAAA")}) {
    sindri::http::Client client(broker_->url());
    client.set_authorization(header);
    Reply reply = call(client, "GET", "/api/v1/stacks");
    EXPECT_EQ(reply.status, 401) << header;
    EXPECT_EQ(text_of(reply.json, "code"), "unauthorized");
  }
  // Without "Bearer " the PAK works too, and the scheme's name is case-insensitive.
  for (const std::string& scheme : {std::string("bearer "), std::string("BEARER "), std::string("Bearer ")}) {
    sindri::http::Client client(broker_->url());
    client.set_authorization(scheme + generator_pak_);
    EXPECT_EQ(call(client, "GET", "/api/v1/stacks").status, 200) << scheme;
  }
  sindri::http::Client plain(broker_->url());
  plain.set_authorization(generator_pak_);
  EXPECT_EQ(call(plain, "GET", "/api/v1/stacks").status, 200);
  // Revoked by deletion.
  ASSERT_EQ(call(*admin_, "DELETE", "/api/v1/generators/" + generator_id_).status, 204);
  EXPECT_EQ(call(plain, "GET", "/api/v1/stacks").status, 401);
}

// A client without a valid PAK cannot make the broker hold request bodies:
// it is answered from the headers, before its body is read.
TEST_P(BadInput, AnUnauthenticatedBodyIsRefusedBeforeItIsRead) {
  const std::string head = "POST /api/v1/generators HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                           "Content-Length: 4000\r\n";
  const std::string unknown_pak = "Authorization: Bearer brokkr_BRAAAAAAAA_AAAAAAAAAAAAAAAAAAAAAAAA\r\n";
  for (const std::string& credentials : {std::string(), unknown_pak}) {
    RawConnection raw(broker_->port());
    raw.send(head + credentials + "\r\n");  // and never the body
    const std::string answer = raw.read_all();
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 401 ")) << credentials << ": " << answer;
    EXPECT_NE(answer.find("Connection: close\r\n"), std::string::npos) << answer;
    EXPECT_NE(answer.find("\"code\":\"unauthorized\""), std::string::npos) << answer;
  }
  {
    RawConnection raw(broker_->port());
    raw.send(head + "Expect: 100-continue\r\n\r\n");
    const std::string answer = raw.read_all();
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 401 ")) << "no 100 Continue for a body that would be refused: " << answer;
  }
  {
    RawConnection raw(broker_->port());
    raw.send("POST /api/v1/nowhere HTTP/1.1\r\nHost: x\r\nContent-Length: 4000\r\n\r\n");
    const std::string answer = raw.read_all();
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 404 ")) << "a path nothing answers, from its headers: " << answer;
  }
  RawConnection allowed(broker_->port());
  allowed.send(head + "Authorization: " + broker_->admin_pak() + "\r\nExpect: 100-continue\r\n\r\n");
  EXPECT_EQ(allowed.read_until("\r\n\r\n"), "HTTP/1.1 100 Continue\r\n\r\n");
}

// A sweep of junk bodies at every write endpoint: all 4xx, never 5xx.
TEST_P(BadInput, JunkBodiesAreAlwaysClientErrors) {
  Reply agent = call(*admin_, "POST", "/api/v1/agents", R"({"name":"a","cluster_name":"c"})");
  const std::string agent_id = text_of(*agent.json.find("agent"), "id");
  Reply created = call(*admin_, "POST", "/api/v1/templates",
                       R"({"name":"t","template_content":"apiVersion: v1\nkind: ConfigMap\n","parameters_schema":"{}"})");
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string template_id = text_of(created.json, "id");
  const std::vector<std::pair<std::string, std::string>> endpoints = {
      {"POST", "/api/v1/generators"},
      {"PUT", "/api/v1/generators/" + generator_id_},
      {"POST", "/api/v1/stacks"},
      {"PUT", "/api/v1/stacks/" + stack_id_},
      {"POST", "/api/v1/stacks/" + stack_id_ + "/labels"},
      {"POST", "/api/v1/stacks/" + stack_id_ + "/annotations"},
      {"POST", "/api/v1/stacks/" + stack_id_ + "/deployment-objects"},
      {"POST", "/api/v1/agents"},
      {"PUT", "/api/v1/agents/" + agent_id},
      {"POST", "/api/v1/agents/" + agent_id + "/labels"},
      {"POST", "/api/v1/agents/" + agent_id + "/annotations"},
      {"POST", "/api/v1/agents/" + agent_id + "/targets"},
      {"POST", "/api/v1/agents/" + agent_id + "/events"},
      {"POST", "/api/v1/generators/" + generator_id_ + "/register"},
      {"DELETE", "/api/v1/generators/" + generator_id_ + "/register"},
      {"POST", "/api/v1/templates"},
      {"PUT", "/api/v1/templates/" + template_id},
      {"POST", "/api/v1/templates/" + template_id + "/labels"},
      {"POST", "/api/v1/templates/" + template_id + "/annotations"},
      {"POST", "/api/v1/templates/" + template_id + "/render"},
      {"POST", "/api/v1/stacks/" + stack_id_ + "/deployment-objects/from-template"},
  };
  const std::vector<std::string> junk = {
      "", "null", "true", "42", "\"\"", "[]", "{", "{}", "{\"name\":null}", "{\"name\":[]}", "{\"name\":{}}",
      "{\"name\":\"\"}", "{\"id\":\"x\"}", "{\"yaml_content\":5}", "{\"label\":\"\"}", "\xff\xfe",
      "{\"name\":\"a\",\"name\":1e999}", std::string(3000, '['), "{\"stack_id\":\"123\"}",
  };
  for (const auto& [method, path] : endpoints) {
    for (const std::string& body : junk) {
      // Brokkr's PUT /agents/{id} takes any part of an Agent: {} changes nothing.
      if (method == "PUT" && body == "{}" && path.starts_with("/api/v1/agents/")) continue;
      Reply reply = call(*admin_, method, path, body);
      EXPECT_GE(reply.status, 400) << method << " " << path << " " << body.substr(0, 40) << " -> " << reply.body;
      EXPECT_LT(reply.status, 500) << method << " " << path << " " << body.substr(0, 40) << " -> " << reply.body;
      EXPECT_FALSE(text_of(reply.json, "message").empty()) << reply.body;
    }
  }
  EXPECT_EQ(call(*admin_, "GET", "/healthz").status, 200);
}

INSTANTIATE_TEST_SUITE_P(Backends, BadInput, ::testing::Values(Backend::Sqlite, Backend::Postgres), backend_name);

}  // namespace
}  // namespace sindri_test
