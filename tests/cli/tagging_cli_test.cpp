// The agent verbs (create, get, delete, rotate-pak) and the label and
// annotate verbs of stacks and agents, against a real broker on SQLite:
// what the broker holds afterwards is read over its API, and the targeting
// that labels drive is checked where the agent sees it.

#include <string>
#include <vector>

#include "broker_cli_fixture.hpp"
#include "value/json.hpp"

namespace sindri_test {
namespace {

using sindri::Value;

class TaggingCli : public BrokerCli {
 protected:
  // The labels (or "KEY=VALUE" annotations) the broker holds at `path`.
  std::vector<std::string> tags_at(const std::string& path, bool annotations) {
    Reply reply = call(*admin_, "GET", "/api/v1" + path + (annotations ? "/annotations" : "/labels"));
    EXPECT_EQ(reply.status, 200) << reply.body;
    std::vector<std::string> out;
    for (const Value& item : reply.json.get_array()) {
      out.push_back(annotations ? text_of(item, "key") + "=" + text_of(item, "value") : text_of(item, "label"));
    }
    return out;
  }

  // Who the broker takes `pak` for (POST /auth/pak), or the status when it
  // refuses it.
  std::string whoami(const std::string& pak) {
    Reply reply = call(*broker_.client(pak), "POST", "/api/v1/auth/pak");
    if (reply.status != 200) return "HTTP " + std::to_string(reply.status);
    return sindri::to_json(reply.json);
  }
};

// --- agent create / get / delete / rotate-pak -----------------------------------------

TEST_F(TaggingCli, AgentCreatePrintsAPakTheAgentAuthenticatesWith) {
  Outcome r = as_admin({"agent", "create", "edge-1", "--cluster", "prod-eu", "--label", "env=prod", "--annotation",
                        "region=eu"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(r.out.rfind("agent edge-1 created (id ", 0), 0u) << r.out;
  const std::string id = r.out.substr(25, 36);
  const std::string pak = printed_pak(r.out);
  ASSERT_FALSE(pak.empty()) << r.out;
  EXPECT_NE(whoami(pak).find("\"agent\":\"" + id + "\""), std::string::npos) << whoami(pak);

  Reply agent = call(*admin_, "GET", "/api/v1/agents/" + id);
  ASSERT_EQ(agent.status, 200) << agent.body;
  EXPECT_EQ(text_of(agent.json, "cluster_name"), "prod-eu");
  EXPECT_EQ(tags_at("/agents/" + id, false), std::vector<std::string>{"env=prod"});
  EXPECT_EQ(tags_at("/agents/" + id, true), std::vector<std::string>{"region=eu"});
}

TEST_F(TaggingCli, AgentCreateAsJsonIsTheApiAnswer) {
  Outcome r = as_admin({"agent", "create", "edge-1", "--cluster", "prod-eu", "--generator-id", generator_id_, "-o",
                        "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto answer = sindri::parse_json(r.out);
  ASSERT_TRUE(answer.ok()) << r.out;
  const Value* agent = answer->find("agent");
  ASSERT_NE(agent, nullptr) << r.out;
  EXPECT_EQ(text_of(*agent, "name"), "edge-1");
  EXPECT_NE(whoami(text_of(*answer, "initial_pak")).find(text_of(*agent, "id")), std::string::npos);
  // Registered with the generator named, which now sees it.
  Outcome seen = as_generator({"agent", "list", "-o", "json"});
  ASSERT_EQ(seen.exit_code, 0) << seen.err;
  EXPECT_EQ(sindri::parse_json(seen.out)->size(), 1u) << seen.out;
}

TEST_F(TaggingCli, AgentCreateErrorsLeaveNoAgentBehind) {
  Outcome bad_label = as_admin({"agent", "create", "edge-1", "--cluster", "c", "--label", "bad label"});
  EXPECT_EQ(bad_label.exit_code, 1);
  EXPECT_EQ(bad_label.err.rfind("error: cannot add label \"bad label\": ", 0), 0u) << bad_label.err;
  EXPECT_NE(bad_label.err.find("; agent edge-1 was not kept"), std::string::npos) << bad_label.err;
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/agents").json.size(), 0u);

  Outcome by_generator = as_generator({"agent", "create", "edge-1", "--cluster", "c"});
  EXPECT_EQ(by_generator.exit_code, 1);
  EXPECT_NE(by_generator.err.find("(HTTP 403"), std::string::npos) << by_generator.err;
  Outcome no_cluster = as_admin({"agent", "create", "edge-1"});
  EXPECT_EQ(no_cluster.exit_code, 2);
  EXPECT_NE(no_cluster.err.find("--cluster is required"), std::string::npos) << no_cluster.err;
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/agents").json.size(), 0u);
}

TEST_F(TaggingCli, AgentGetShowsLabelsAndAnnotations) {
  ASSERT_EQ(as_admin({"agent", "create", "edge-1", "--cluster", "prod-eu", "--label", "env=prod", "--label", "tier",
                      "--annotation", "region=eu"})
                .exit_code,
            0);
  Outcome table = as_admin({"agent", "get", "edge-1"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  const auto lines = lines_of(table.out);
  ASSERT_EQ(lines.size(), 2u) << table.out;
  EXPECT_NE(lines[0].find("LABELS"), std::string::npos) << table.out;
  EXPECT_NE(lines[1].find("env=prod, tier  region=eu"), std::string::npos) << table.out;

  Outcome yaml = as_admin({"agent", "get", "edge-1", "-o", "json"});
  ASSERT_EQ(yaml.exit_code, 0) << yaml.err;
  const std::string id = text_of(*sindri::parse_json(yaml.out), "id");
  Outcome by_id = as_admin({"agent", "get", id, "-o", "json"});
  EXPECT_EQ(by_id.out, yaml.out);

  Outcome unknown = as_admin({"agent", "get", "nope"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.err, "error: agent \"nope\" not found\n");
}

TEST_F(TaggingCli, RotatePakRetiresTheOldOne) {
  Outcome created = as_admin({"agent", "create", "edge-1", "--cluster", "c"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  const std::string old_pak = printed_pak(created.out);
  Outcome rotated = as_admin({"agent", "rotate-pak", "edge-1"});
  ASSERT_EQ(rotated.exit_code, 0) << rotated.err;
  EXPECT_EQ(rotated.out.rfind("agent edge-1: PAK rotated; the old one no longer works\n", 0), 0u) << rotated.out;
  const std::string new_pak = printed_pak(rotated.out);
  ASSERT_FALSE(new_pak.empty()) << rotated.out;
  EXPECT_EQ(whoami(old_pak), "HTTP 401");
  EXPECT_NE(whoami(new_pak).find("\"agent\":\""), std::string::npos) << whoami(new_pak);
}

TEST_F(TaggingCli, AgentDeleteRetiresItsPak) {
  Outcome created = as_admin({"agent", "create", "edge-1", "--cluster", "c"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  const std::string id = created.out.substr(25, 36);
  Outcome r = as_admin({"agent", "delete", "edge-1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "agent edge-1 deleted (id " + id + ")\n");
  EXPECT_EQ(whoami(printed_pak(created.out)), "HTTP 401");
  Outcome again = as_admin({"agent", "delete", "edge-1"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_EQ(again.err, "error: agent \"edge-1\" not found\n");
}

// --- label / annotate -----------------------------------------------------------------

// Labelling a stack from the command line is what makes an agent carrying
// the same labels target it.
TEST_F(TaggingCli, StackLabelsDriveWhichAgentsTargetIt) {
  const std::string stack_id = make_stack("web");
  Outcome created = as_admin({"agent", "create", "edge-1", "--cluster", "c", "--label", "env=prod"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  const std::string agent_id = created.out.substr(25, 36);
  auto targets = [&] { return call(*admin_, "GET", "/api/v1/agents/" + agent_id + "/targets").json.size(); };
  EXPECT_EQ(targets(), 0u);
  Outcome none = as_admin({"agent", "targets", "edge-1"});
  EXPECT_EQ(none.exit_code, 0) << none.err;
  EXPECT_EQ(none.err, "No stacks targeted by agent edge-1 found.\n");

  Outcome labeled = as_generator({"stack", "label", "web", "env=prod"});
  ASSERT_EQ(labeled.exit_code, 0) << labeled.err;
  EXPECT_EQ(labeled.out, "stack web: label env=prod added\n");
  EXPECT_EQ(targets(), 1u);
  Outcome listed = as_admin({"agent", "targets", "edge-1"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const auto lines = lines_of(listed.out);
  ASSERT_EQ(lines.size(), 2u) << listed.out;
  EXPECT_EQ(lines[0], "NAME  STACK ID" + std::string(30, ' ') + "GENERATOR");
  EXPECT_EQ(lines[1], "web   " + stack_id + "  ci");

  Outcome annotated = as_generator({"stack", "annotate", "web", "region=eu"});
  ASSERT_EQ(annotated.exit_code, 0) << annotated.err;
  EXPECT_EQ(targets(), 0u);  // the agent lacks the annotation
  ASSERT_EQ(as_admin({"agent", "annotate", "edge-1", "region=eu"}).exit_code, 0);
  EXPECT_EQ(targets(), 1u);

  Outcome unlabeled = as_generator({"stack", "label", "web", "env=prod", "--remove"});
  ASSERT_EQ(unlabeled.exit_code, 0) << unlabeled.err;
  EXPECT_EQ(unlabeled.out, "stack web: label env=prod removed\n");
  EXPECT_EQ(tags_at("/stacks/" + stack_id, false), std::vector<std::string>{});
}

// As kubectl: adding what is there, or removing what is not, changes
// nothing and is no error; an annotation key holding another value is one,
// and says which.
TEST_F(TaggingCli, WhatIsAlreadySoIsNoErrorButAnotherValueIs) {
  const std::string stack_id = make_stack("web");
  ASSERT_EQ(as_generator({"stack", "label", "web", "tier"}).exit_code, 0);
  ASSERT_EQ(as_generator({"stack", "annotate", "web", "region=eu"}).exit_code, 0);

  Outcome labels = as_generator({"stack", "label", "web", "tier", "env=prod"});
  ASSERT_EQ(labels.exit_code, 0) << labels.err;
  EXPECT_EQ(labels.out, "stack web: label tier already present\nstack web: label env=prod added\n");
  Outcome same = as_generator({"stack", "annotate", "web", "region=eu"});
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(same.out, "stack web: annotation region=eu already present\n");
  Outcome absent = as_generator({"stack", "label", "web", "nope", "--remove"});
  ASSERT_EQ(absent.exit_code, 0) << absent.err;
  EXPECT_EQ(absent.out, "stack web: label nope not present\n");
  Outcome absent_key = as_generator({"stack", "annotate", "web", "--remove", "nope"});
  ASSERT_EQ(absent_key.exit_code, 0) << absent_key.err;
  EXPECT_EQ(absent_key.out, "stack web: annotation nope not present\n");

  Outcome other = as_generator({"stack", "annotate", "web", "region=us"});
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_EQ(other.out, "");
  EXPECT_EQ(other.err,
            "error: cannot add annotation \"region=us\": it already has the value \"eu\"; remove it first "
            "(--remove region)\n");
  EXPECT_EQ(tags_at("/stacks/" + stack_id, true), std::vector<std::string>{"region=eu"});
}

TEST_F(TaggingCli, TaggingErrorsAreNamed) {
  make_stack("web");
  Outcome no_equals = as_generator({"stack", "annotate", "web", "region"});
  EXPECT_EQ(no_equals.exit_code, 2);
  EXPECT_EQ(no_equals.err, "error: expected KEY=VALUE, got \"region\" (to remove an annotation: --remove KEY)\n");
  Outcome unknown = as_generator({"stack", "label", "nope", "tier"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.err, "error: stack \"nope\" not found\n");

  // A generator sees the agents registered with it, but only an admin labels them.
  ASSERT_EQ(as_admin({"agent", "create", "edge-1", "--cluster", "c", "--generator-id", generator_id_}).exit_code, 0);
  Outcome not_admin = as_generator({"agent", "label", "edge-1", "tier"});
  EXPECT_EQ(not_admin.exit_code, 1);
  EXPECT_EQ(not_admin.err.rfind("error: cannot add label \"tier\": ", 0), 0u) << not_admin.err;
  EXPECT_NE(not_admin.err.find("(HTTP 403"), std::string::npos) << not_admin.err;
  Outcome not_admin_remove = as_generator({"agent", "label", "edge-1", "tier", "--remove"});
  EXPECT_EQ(not_admin_remove.exit_code, 1);
  EXPECT_EQ(not_admin_remove.err.rfind("error: cannot remove label \"tier\": ", 0), 0u) << not_admin_remove.err;
}

// A generator sees the agents registered with it but may not fetch one by
// id, nor read its labels: get finds it in the list, by name or id, and
// leaves the targeting columns out.
TEST_F(TaggingCli, AGeneratorGetsTheAgentsRegisteredWithIt) {
  Outcome created = as_admin({"agent", "create", "edge-1", "--cluster", "c", "--generator-id", generator_id_,
                              "--label", "env=prod"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  const std::string id = created.out.substr(25, 36);
  for (const std::string& agent : {std::string("edge-1"), id}) {
    Outcome r = as_generator({"agent", "get", agent});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 2u) << r.out;
    EXPECT_EQ(lines[0].find("LABELS"), std::string::npos) << r.out;
    EXPECT_EQ(lines[1].rfind("edge-1  " + id, 0), 0u) << r.out;
  }
  Outcome unknown = as_generator({"agent", "get", "00000000-0000-4000-8000-000000000000"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.err, "error: agent 00000000-0000-4000-8000-000000000000 not found\n");
}

// Agent names are unique per cluster only.
TEST_F(TaggingCli, AnAmbiguousAgentNameListsIdsAndClusters) {
  ASSERT_EQ(as_admin({"agent", "create", "edge", "--cluster", "eu"}).exit_code, 0);
  ASSERT_EQ(as_admin({"agent", "create", "edge", "--cluster", "us"}).exit_code, 0);
  Outcome r = as_admin({"agent", "label", "edge", "tier"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("agent name \"edge\" is ambiguous: agents "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" (cluster_name eu), "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" (cluster_name us) have it; give an id"), std::string::npos) << r.err;
}

// An agent reads its own targets and their stacks, by its own name too, but
// no generator: that column says it cannot tell.
TEST_F(TaggingCli, AnAgentListsItsOwnTargets) {
  const std::string stack_id = make_stack("web");
  ASSERT_EQ(call(*generator_, "POST", "/api/v1/stacks/" + stack_id + "/labels", R"("env=prod")").status, 201);
  Outcome created = as_admin({"agent", "create", "edge-1", "--cluster", "c", "--label", "env=prod"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  const std::string id = created.out.substr(25, 36);
  for (const std::string& agent : {id, std::string("edge-1")}) {
    Outcome r = sindri_as(printed_pak(created.out), {"agent", "targets", agent});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 2u) << r.out;
    EXPECT_EQ(lines[1], "web   " + stack_id + "  <deleted or not visible: " + generator_id_ + ">");
  }
  Outcome json = sindri_as(printed_pak(created.out), {"agent", "targets", id, "-o", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(text_of(*sindri::parse_json(json.out)->at(0), "stack_id"), stack_id);
}

}  // namespace
}  // namespace sindri_test
