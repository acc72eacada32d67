// The generator verbs (create, list, get, delete, rotate-pak) against a
// real broker on SQLite, as an admin, as a generator's own PAK and as an
// agent's; and the names of generators where tables show them.

#include <string>
#include <vector>

#include "broker_cli_fixture.hpp"
#include "value/json.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri_test {
namespace {

using sindri::Value;

class GeneratorCli : public BrokerCli {
 protected:
  // Who the broker takes `pak` for, or the status when it refuses it.
  std::string whoami(const std::string& pak) {
    Reply reply = call(*broker_.client(pak), "POST", "/api/v1/auth/pak");
    if (reply.status != 200) return "HTTP " + std::to_string(reply.status);
    return sindri::to_json(reply.json);
  }
};

TEST_F(GeneratorCli, CreatePrintsThePakOnce) {
  Outcome r = as_admin({"generator", "create", "deploy-bot", "--description", "the release pipeline"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  ASSERT_EQ(r.out.rfind("generator deploy-bot created (id ", 0), 0u) << r.out;
  const std::string id = r.out.substr(33, 36);
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 2u) << r.out;
  EXPECT_EQ(lines[0], "generator deploy-bot created (id " + id + ")");
  const std::string pak = printed_pak(r.out);
  ASSERT_FALSE(pak.empty()) << r.out;
  EXPECT_EQ(lines[1], "PAK (shown only now; the generator authenticates with it): " + pak);
  EXPECT_NE(whoami(pak).find("\"generator\":\"" + id + "\""), std::string::npos) << whoami(pak);

  Reply stored = call(*admin_, "GET", "/api/v1/generators/" + id);
  ASSERT_EQ(stored.status, 200) << stored.body;
  EXPECT_EQ(text_of(stored.json, "description"), "the release pipeline");

  // The new PAK works at once: a stack for itself.
  Outcome stack = sindri_as(pak, {"stack", "create", "web"});
  EXPECT_EQ(stack.exit_code, 0) << stack.err;
}

TEST_F(GeneratorCli, CreateAsJsonOrYamlIsTheApiAnswer) {
  Outcome json = as_admin({"generator", "create", "one", "-o", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto answer = sindri::parse_json(json.out);
  ASSERT_TRUE(answer.ok()) << json.out;
  EXPECT_EQ(text_of(*answer->find("generator"), "name"), "one");
  EXPECT_NE(whoami(text_of(*answer, "pak")).find(text_of(*answer->find("generator"), "id")), std::string::npos);

  Outcome yaml = as_admin({"generator", "create", "two", "-o", "yaml"});
  ASSERT_EQ(yaml.exit_code, 0) << yaml.err;
  auto read_back = sindri::parse_yaml(yaml.out);
  ASSERT_TRUE(read_back.ok()) << yaml.out;
  EXPECT_EQ(text_of(*read_back->find("generator"), "name"), "two");
  EXPECT_FALSE(text_of(*read_back, "pak").empty());
}

TEST_F(GeneratorCli, CreateErrorsAreTheBrokers) {
  Outcome taken = as_admin({"generator", "create", "ci"});
  EXPECT_EQ(taken.exit_code, 1);
  EXPECT_EQ(taken.err, "error: a generator named \"ci\" already exists (HTTP 409 generator_exists)\n");
  Outcome by_generator = as_generator({"generator", "create", "mine"});
  EXPECT_EQ(by_generator.exit_code, 1);
  EXPECT_NE(by_generator.err.find("(HTTP 403"), std::string::npos) << by_generator.err;
  Outcome no_name = as_admin({"generator", "create"});
  EXPECT_EQ(no_name.exit_code, 2);
  EXPECT_NE(no_name.err.find("NAME is required"), std::string::npos) << no_name.err;
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/generators").json.size(), 2u);  // the system generator and ci
}

TEST_F(GeneratorCli, ListShowsEveryGeneratorAndWideShowsMore) {
  Outcome table = as_admin({"generator", "list"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  const auto lines = lines_of(table.out);
  ASSERT_EQ(lines.size(), 3u) << table.out;  // the system generator and ci
  EXPECT_EQ(lines[0].rfind("NAME", 0), 0u) << table.out;
  EXPECT_NE(lines[0].find("  ID" + std::string(36, ' ') + "CREATED"), std::string::npos) << table.out;
  EXPECT_EQ(lines[0].find("DESCRIPTION"), std::string::npos) << table.out;
  EXPECT_EQ(lines[2].rfind("ci ", 0), 0u) << table.out;
  EXPECT_NE(lines[2].find("  " + generator_id_ + "  20"), std::string::npos) << table.out;

  Outcome wide = as_admin({"generator", "list", "-o", "wide"});
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  const auto wide_lines = lines_of(wide.out);
  ASSERT_EQ(wide_lines.size(), 3u) << wide.out;
  EXPECT_NE(wide_lines[0].find("  CREATED  "), std::string::npos) << wide.out;
  EXPECT_NE(wide_lines[0].find("  DESCRIPTION  "), std::string::npos) << wide.out;
  EXPECT_TRUE(wide_lines[0].ends_with("  ACTIVE  SYSTEM  LAST ACTIVE")) << wide.out;
  EXPECT_NE(wide_lines[1].find("  true    true    "), std::string::npos) << wide.out;
  EXPECT_NE(wide_lines[2].find("  true    false   "), std::string::npos) << wide.out;

  Outcome json = as_admin({"generator", "list", "-o", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(*sindri::parse_json(json.out), call(*admin_, "GET", "/api/v1/generators").json);
}

TEST_F(GeneratorCli, GetFindsByNameOrIdAndNamesAreExact) {
  for (const std::string& generator : {std::string("ci"), generator_id_}) {
    Outcome r = as_admin({"generator", "get", generator});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 2u) << r.out;
    EXPECT_EQ(lines[0], "NAME  ID" + std::string(36, ' ') + "CREATED");
    EXPECT_EQ(lines[1].rfind("ci    " + generator_id_ + "  20", 0), 0u) << r.out;
  }
  Outcome yaml = as_admin({"generator", "get", "ci", "-o", "yaml"});
  ASSERT_EQ(yaml.exit_code, 0) << yaml.err;
  EXPECT_EQ(*sindri::parse_yaml(yaml.out), call(*admin_, "GET", "/api/v1/generators/" + generator_id_).json);

  Outcome near_miss = as_admin({"generator", "get", "CI"});
  EXPECT_EQ(near_miss.exit_code, 1);
  EXPECT_EQ(near_miss.err, "error: no generator named \"CI\"; did you mean \"ci\"?\n");
  Outcome unknown = as_admin({"generator", "get", "nope"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.err, "error: generator \"nope\" not found\n");
  Outcome unknown_id = as_admin({"generator", "get", "00000000-0000-4000-8000-000000000000"});
  EXPECT_EQ(unknown_id.exit_code, 1);
  EXPECT_EQ(unknown_id.err, "error: generator 00000000-0000-4000-8000-000000000000 not found\n");
  Outcome missing = as_admin({"generator", "get"});
  EXPECT_EQ(missing.exit_code, 2);
}

// A generator's PAK lists no generators but finds, gets and rotates its own.
TEST_F(GeneratorCli, AGeneratorSeesOnlyItself) {
  Outcome own = as_generator({"generator", "get", "ci"});
  ASSERT_EQ(own.exit_code, 0) << own.err;
  EXPECT_EQ(lines_of(own.out).at(1).rfind("ci    " + generator_id_, 0), 0u) << own.out;
  Outcome near_miss = as_generator({"generator", "get", "Ci"});
  EXPECT_EQ(near_miss.exit_code, 1);
  EXPECT_EQ(near_miss.err, "error: no generator named \"Ci\"; did you mean \"ci\"? (this PAK is generator ci's and may "
                           "see no other generator)\n");

  ASSERT_EQ(as_admin({"generator", "create", "other"}).exit_code, 0);
  Outcome other = as_generator({"generator", "get", "other"});
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_EQ(other.err, "error: generator \"other\" not found (this PAK is generator ci's and may see no other "
                       "generator)\n");

  Outcome list = as_generator({"generator", "list"});
  EXPECT_EQ(list.exit_code, 1);
  EXPECT_NE(list.err.find("(HTTP 403"), std::string::npos) << list.err;
  EXPECT_NE(list.err.find("; a generator's PAK shows its own generator: sindri generator get NAME\n"),
            std::string::npos)
      << list.err;
}

TEST_F(GeneratorCli, RotatePakRetiresTheOldOne) {
  Outcome rotated = as_generator({"generator", "rotate-pak", "ci"});
  ASSERT_EQ(rotated.exit_code, 0) << rotated.err;
  EXPECT_EQ(lines_of(rotated.out).at(0), "generator ci: PAK rotated; the old one no longer works");
  const std::string new_pak = printed_pak(rotated.out);
  ASSERT_FALSE(new_pak.empty()) << rotated.out;
  EXPECT_EQ(whoami(generator_pak_), "HTTP 401");
  EXPECT_NE(whoami(new_pak).find(generator_id_), std::string::npos);

  Outcome by_admin = as_admin({"generator", "rotate-pak", generator_id_, "-o", "json"});
  ASSERT_EQ(by_admin.exit_code, 0) << by_admin.err;
  const std::string newest = text_of(*sindri::parse_json(by_admin.out), "pak");
  EXPECT_EQ(whoami(new_pak), "HTTP 401");
  EXPECT_NE(whoami(newest).find(generator_id_), std::string::npos);
}

TEST_F(GeneratorCli, DeleteTakesItsStacksAlong) {
  make_stack("web");
  ASSERT_EQ(as_admin({"generator", "create", "other"}).exit_code, 0);
  Outcome r = as_admin({"generator", "delete", "ci"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "generator ci deleted (id " + generator_id_ + "), with its stacks and templates\n");
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/stacks").json.size(), 0u);
  EXPECT_EQ(whoami(generator_pak_), "HTTP 401");
  Outcome again = as_admin({"generator", "delete", "ci"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_EQ(again.err, "error: generator \"ci\" not found\n");

  // The system generator stays.
  Outcome listed = as_admin({"generator", "list", "-o", "json"});
  auto generators = sindri::parse_json(listed.out);
  ASSERT_TRUE(generators.ok()) << listed.out;
  ASSERT_EQ(generators->size(), 2u) << listed.out;
  const std::string system = text_of(*generators->at(0), "name");
  Outcome system_delete = as_admin({"generator", "delete", system});
  EXPECT_EQ(system_delete.exit_code, 1);
  EXPECT_NE(system_delete.err.find("cannot_delete_system_generator"), std::string::npos) << system_delete.err;
}

// An agent's PAK may read no generator: a name cannot be looked up, and the
// error says to give the id (which the broker then refuses on its own terms).
TEST_F(GeneratorCli, AnAgentsPakReadsNoGenerator) {
  const Agent agent = make_agent("edge-1");
  Outcome by_name = sindri_as(agent.pak, {"generator", "get", "ci"});
  EXPECT_EQ(by_name.exit_code, 1);
  EXPECT_NE(by_name.err.find("(HTTP 403"), std::string::npos) << by_name.err;
  EXPECT_NE(by_name.err.find("; this PAK cannot look generators up by name: give the generator's id\n"),
            std::string::npos)
      << by_name.err;
  Outcome by_id = sindri_as(agent.pak, {"generator", "get", generator_id_});
  EXPECT_EQ(by_id.exit_code, 1);
  EXPECT_NE(by_id.err.find("(HTTP 403"), std::string::npos) << by_id.err;
  Outcome create = sindri_as(agent.pak, {"generator", "create", "mine"});
  EXPECT_EQ(create.exit_code, 1);
  EXPECT_NE(create.err.find("(HTTP 403"), std::string::npos) << create.err;
}

// Tables name a deleted stack or generator, as the audit log knows it, for
// an admin; an agent's PAK, which reads no audit log, says it cannot tell.
TEST_F(GeneratorCli, DeletedStacksAreMarkedInTargets) {
  const std::string stack_id = make_stack("web");
  ASSERT_EQ(call(*generator_, "POST", "/api/v1/stacks/" + stack_id + "/labels", R"("env=prod")").status, 201);
  const Agent agent = make_agent("edge-1", "env=prod");
  ASSERT_EQ(as_generator({"stack", "delete", "web"}).exit_code, 0);
  ASSERT_EQ(call(*admin_, "GET", "/api/v1/agents/" + agent.id + "/targets").json.size(), 1u);

  Outcome admin = as_admin({"agent", "targets", "edge-1"});
  ASSERT_EQ(admin.exit_code, 0) << admin.err;
  const auto lines = lines_of(admin.out);
  ASSERT_EQ(lines.size(), 2u) << admin.out;
  EXPECT_EQ(lines[1], "web (deleted)  " + stack_id + "  ci");
  Outcome own = sindri_as(agent.pak, {"agent", "targets", "edge-1"});
  ASSERT_EQ(own.exit_code, 0) << own.err;
  EXPECT_EQ(lines_of(own.out).at(1), "<deleted or not visible: " + stack_id + ">  " + stack_id + "  <none>");

  ASSERT_EQ(as_admin({"generator", "delete", "ci"}).exit_code, 0);
  Outcome gone = as_admin({"agent", "targets", "edge-1"});
  ASSERT_EQ(gone.exit_code, 0) << gone.err;
  EXPECT_EQ(lines_of(gone.out).at(1), "web (deleted)  " + stack_id + "  ci (deleted)");
}

}  // namespace
}  // namespace sindri_test
