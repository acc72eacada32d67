// The client verbs (stack, apply, agent) against a real broker on SQLite:
// each test runs `sindri serve`, drives it with the `sindri` binary and
// checks what the broker holds over its API.

#include <cstdlib>
#include <string>
#include <vector>

#include "broker_cli_fixture.hpp"
#include "value/json.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri_test {
namespace {

using sindri::Value;

// Sets an environment variable for one scope; the `sindri` children inherit it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) { setenv(name, value.c_str(), 1); }
  ~ScopedEnv() { unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

constexpr const char* kConfigMapAndService =
    "apiVersion: v1\n"
    "kind: ConfigMap\n"
    "metadata:\n"
    "  name: web-config\n"
    "data:\n"
    "  greeting: hello\n"
    "---\n"
    "apiVersion: v1\n"
    "kind: Service\n"
    "metadata:\n"
    "  name: web\n"
    "spec:\n"
    "  ports:\n"
    "  - port: 80\n";

constexpr const char* kDeployment =
    "# the web server\n"
    "apiVersion: apps/v1\n"
    "kind: Deployment\n"
    "metadata:\n"
    "  name: web\n"
    "spec:\n"
    "  replicas: 2\n";

// --- stack create -------------------------------------------------------------

TEST_F(BrokerCli, CreateAddsLabelsAndAnnotations) {
  Outcome r = as_admin({"stack", "create", "web", "--generator-id", generator_id_, "--description", "the web tier",
                        "--label", "env=prod", "--label", "tier", "--annotation", "region=eu", "--annotation",
                        "owner=team=a"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  ASSERT_EQ(r.out.rfind("stack web created (id ", 0), 0u) << r.out;
  const std::string id = r.out.substr(22, 36);

  Reply stack = call(*admin_, "GET", "/api/v1/stacks/" + id);
  ASSERT_EQ(stack.status, 200) << stack.body;
  EXPECT_EQ(text_of(stack.json, "name"), "web");
  EXPECT_EQ(text_of(stack.json, "description"), "the web tier");
  EXPECT_EQ(text_of(stack.json, "generator_id"), generator_id_);

  Reply labels = call(*admin_, "GET", "/api/v1/stacks/" + id + "/labels");
  ASSERT_EQ(labels.json.size(), 2u) << labels.body;
  EXPECT_EQ(text_of(*labels.json.at(0), "label"), "env=prod");
  EXPECT_EQ(text_of(*labels.json.at(1), "label"), "tier");
  Reply annotations = call(*admin_, "GET", "/api/v1/stacks/" + id + "/annotations");
  ASSERT_EQ(annotations.json.size(), 2u) << annotations.body;
  EXPECT_EQ(text_of(*annotations.json.at(0), "key"), "owner");
  EXPECT_EQ(text_of(*annotations.json.at(0), "value"), "team=a");  // split at the first '='
  EXPECT_EQ(text_of(*annotations.json.at(1), "key"), "region");
  EXPECT_EQ(text_of(*annotations.json.at(1), "value"), "eu");

  // -o json holds what the table shows: labels, and annotations as a map.
  Outcome shown = as_admin({"stack", "get", "web", "-o", "json"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  auto json = sindri::parse_json(shown.out);
  ASSERT_TRUE(json.ok()) << shown.out;
  EXPECT_EQ(sindri::to_json(*json->find("labels")), R"(["env=prod","tier"])");
  EXPECT_EQ(sindri::to_json(*json->find("annotations")), R"({"owner":"team=a","region":"eu"})");
}

// Every verb finds a stack by name: a second stack of one owner under the
// same name would make it ambiguous, so create refuses, as kubectl does.
TEST_F(BrokerCli, CreateRefusesANameItsOwnerAlreadyUses) {
  const std::string first = make_stack("web");
  Outcome again = as_generator({"stack", "create", "web"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_EQ(again.err, "error: stack \"web\" already exists (id " + first + ")\n");
  Outcome by_admin = as_admin({"stack", "create", "web", "--generator-id", generator_id_});
  EXPECT_EQ(by_admin.exit_code, 1) << by_admin.out;
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/stacks").json.size(), 1u);

  // Another owner may use it (the admin tells them apart by id).
  Reply other = call(*admin_, "POST", "/api/v1/generators", R"({"name":"other"})");
  ASSERT_EQ(other.status, 201) << other.body;
  const std::string other_id = text_of(*other.json.find("generator"), "id");
  Outcome elsewhere = as_admin({"stack", "create", "web", "--generator-id", other_id});
  EXPECT_EQ(elsewhere.exit_code, 0) << elsewhere.err;
  // A deleted stack's name is free again.
  ASSERT_EQ(as_admin({"stack", "delete", first}).exit_code, 0);
  EXPECT_EQ(as_generator({"stack", "create", "web"}).exit_code, 0);
}

TEST_F(BrokerCli, GeneratorCreatesForItselfAndJsonPrintsTheStack) {
  Outcome r = as_generator({"stack", "create", "web", "-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto stack = sindri::parse_json(r.out);
  ASSERT_TRUE(stack.ok()) << r.out;
  EXPECT_EQ(text_of(*stack, "name"), "web");
  EXPECT_EQ(text_of(*stack, "generator_id"), generator_id_);
  EXPECT_EQ(r.out, sindri::to_json_pretty(*stack) + "\n");
}

TEST_F(BrokerCli, AdminWithoutGeneratorGetsTheBrokersErrorAndTheFlags) {
  Outcome r = as_admin({"stack", "create", "web"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "error: /generator_id is required by NewStack (HTTP 400 missing_field); an admin names the generator that "
            "owns the stack: --generator NAME or --generator-id ID (sindri generator list shows them)\n");
}

// --generator takes a name or an id; --generator-id is the same flag.
TEST_F(BrokerCli, AdminNamesTheGeneratorByNameOrId) {
  Outcome by_name = as_admin({"stack", "create", "web", "--generator", "ci", "-o", "json"});
  ASSERT_EQ(by_name.exit_code, 0) << by_name.err;
  EXPECT_EQ(text_of(*sindri::parse_json(by_name.out), "generator_id"), generator_id_);
  Outcome by_id = as_admin({"stack", "create", "db", "--generator", generator_id_, "-o", "json"});
  ASSERT_EQ(by_id.exit_code, 0) << by_id.err;
  EXPECT_EQ(text_of(*sindri::parse_json(by_id.out), "generator_id"), generator_id_);
  Outcome alias = as_admin({"stack", "create", "cache", "--generator-id", "ci"});
  ASSERT_EQ(alias.exit_code, 0) << alias.err;
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/stacks").json.size(), 3u);
  // The name check looks among that generator's stacks.
  Outcome again = as_admin({"stack", "create", "web", "--generator", "ci"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_EQ(again.err.rfind("error: stack \"web\" already exists (id ", 0), 0u) << again.err;

  Outcome unknown = as_admin({"stack", "create", "api", "--generator", "nope"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.err, "error: generator \"nope\" not found\n");
  Outcome near_miss = as_admin({"stack", "create", "api", "--generator", "CI"});
  EXPECT_EQ(near_miss.exit_code, 1);
  EXPECT_EQ(near_miss.err, "error: no generator named \"CI\"; did you mean \"ci\"?\n");
  // A generator may name itself.
  Outcome itself = as_generator({"stack", "create", "api", "--generator", "ci"});
  EXPECT_EQ(itself.exit_code, 0) << itself.err;
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/stacks").json.size(), 4u);
}

TEST_F(BrokerCli, ARejectedLabelLeavesNoStackBehind) {
  Outcome r = as_generator({"stack", "create", "web", "--label", "ok", "--label", "not ok"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot add label \"not ok\""), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(HTTP 400"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("stack web was not kept"), std::string::npos) << r.err;
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/stacks").json.size(), 0u);
}

TEST_F(BrokerCli, AnAnnotationWithoutEqualsIsAUsageError) {
  Outcome r = as_generator({"stack", "create", "web", "--annotation", "region"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("expected KEY=VALUE, got \"region\""), std::string::npos) << r.err;
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/stacks").json.size(), 0u);
}

// --- stack list / get -----------------------------------------------------------

TEST_F(BrokerCli, ListPrintsAnAlignedTable) {
  const std::string web = make_stack("web");
  const std::string database = make_stack("database");
  Outcome r = as_admin({"stack", "list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  // Columns two spaces apart, each as wide as its widest cell.
  EXPECT_EQ(lines[0].rfind("NAME      ID" + std::string(36, ' ') + "GENERATOR  CREATED", 0), 0u) << r.out;
  EXPECT_EQ(lines[1].rfind("web       " + web + "  ci         20", 0), 0u) << r.out;
  EXPECT_EQ(lines[2].rfind("database  " + database + "  ci         20", 0), 0u) << r.out;
  for (const auto& line : lines) EXPECT_NE(line.back(), ' ');
}

// The generator by name for an admin and for the generator itself; -o wide
// adds the description and the generator's id.
TEST_F(BrokerCli, ListNamesTheGeneratorAndWideShowsMore) {
  const std::string web = make_stack("web");
  for (const std::string& pak : {broker_.admin_pak(), generator_pak_}) {
    Outcome table = sindri_as(pak, {"stack", "list"});
    ASSERT_EQ(table.exit_code, 0) << table.err;
    EXPECT_EQ(lines_of(table.out).at(1).rfind("web   " + web + "  ci         20", 0), 0u) << table.out;
  }
  Outcome wide = as_admin({"stack", "list", "-o", "wide"});
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  const auto lines = lines_of(wide.out);
  ASSERT_EQ(lines.size(), 2u) << wide.out;
  EXPECT_NE(lines[0].find("  CREATED  "), std::string::npos) << wide.out;
  EXPECT_NE(lines[0].find("  DESCRIPTION  GENERATOR ID"), std::string::npos) << wide.out;
  EXPECT_NE(lines[1].find("  <none>       " + generator_id_), std::string::npos) << wide.out;
}

TEST_F(BrokerCli, ListAsJsonAndYamlIsTheApiAnswer) {
  make_stack("web");
  make_stack("database");
  const Reply api = call(*admin_, "GET", "/api/v1/stacks");

  Outcome json = as_admin({"stack", "list", "-o", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  auto parsed = sindri::parse_json(json.out);
  ASSERT_TRUE(parsed.ok()) << json.out;
  EXPECT_EQ(*parsed, api.json);
  EXPECT_EQ(json.out, sindri::to_json_pretty(api.json) + "\n");

  Outcome yaml = as_admin({"stack", "list", "--output", "yaml"});
  ASSERT_EQ(yaml.exit_code, 0) << yaml.err;
  EXPECT_EQ(yaml.out, sindri::to_yaml(api.json));
  auto read_back = sindri::parse_yaml(yaml.out);
  ASSERT_TRUE(read_back.ok()) << yaml.out;
  ASSERT_EQ(read_back->size(), 2u);
  EXPECT_EQ(text_of(*read_back->at(1), "name"), "database");
}

TEST_F(BrokerCli, AnEmptyListSaysSoOnStderr) {
  Outcome table = as_admin({"stack", "list"});
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out, "");
  EXPECT_EQ(table.err, "No stacks found.\n");
  Outcome json = as_admin({"stack", "list", "-o", "json"});
  EXPECT_EQ(json.out, "[]\n");
}

TEST_F(BrokerCli, GetFindsAStackByNameOrById) {
  const std::string id = make_stack("web");
  make_stack("other");
  Outcome by_name = as_admin({"stack", "get", "web"});
  ASSERT_EQ(by_name.exit_code, 0) << by_name.err;
  const auto lines = lines_of(by_name.out);
  ASSERT_EQ(lines.size(), 2u) << by_name.out;
  EXPECT_EQ(lines[0].rfind("NAME  ID", 0), 0u);
  EXPECT_EQ(lines[1].rfind("web   " + id + "  ci  ", 0), 0u) << by_name.out;

  Outcome by_id = as_generator({"stack", "get", id, "-o", "yaml"});
  ASSERT_EQ(by_id.exit_code, 0) << by_id.err;
  auto stack = sindri::parse_yaml(by_id.out);
  ASSERT_TRUE(stack.ok()) << by_id.out;
  EXPECT_EQ(text_of(*stack, "id"), id);
  EXPECT_EQ(text_of(*stack, "name"), "web");
}

TEST_F(BrokerCli, UnknownAndAmbiguousNamesAreNamed) {
  Outcome unknown = as_admin({"stack", "get", "nope"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_EQ(unknown.err, "error: stack \"nope\" not found\n");

  const std::string first = make_stack("twin");
  const std::string second = make_stack("twin");
  Outcome ambiguous = as_admin({"stack", "delete", "twin"});
  EXPECT_EQ(ambiguous.exit_code, 1);
  EXPECT_NE(ambiguous.err.find("stack name \"twin\" is ambiguous"), std::string::npos) << ambiguous.err;
  EXPECT_NE(ambiguous.err.find(first), std::string::npos) << ambiguous.err;
  EXPECT_NE(ambiguous.err.find(second), std::string::npos) << ambiguous.err;
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/stacks").json.size(), 2u);

  // Names match exactly, as Kubernetes names; a near miss in case is named.
  make_stack("web");
  Outcome near_miss = as_admin({"stack", "get", "Web"});
  EXPECT_EQ(near_miss.exit_code, 1);
  EXPECT_EQ(near_miss.err, "error: no stack named \"Web\"; did you mean \"web\"?\n");
  make_stack("WEB");
  Outcome two_near = as_generator({"stack", "get", "wEb"});
  EXPECT_EQ(two_near.err, "error: no stack named \"wEb\"; did you mean \"web\" or \"WEB\"?\n");
  EXPECT_EQ(as_generator({"stack", "get", "WEB"}).exit_code, 0);

  Outcome unknown_id = as_admin({"stack", "get", "00000000-0000-4000-8000-000000000000"});
  EXPECT_EQ(unknown_id.exit_code, 1);
  EXPECT_EQ(unknown_id.err, "error: stack 00000000-0000-4000-8000-000000000000 not found\n");
}

// An id is looked up as one first, in either case; a name that merely looks
// like an id is still found as a name.
TEST_F(BrokerCli, ANameThatLooksLikeAnIdIsFoundAndIdsTakeEitherCase) {
  const std::string id_like = "00000000-0000-0000-0000-00000000abcd";
  const std::string id = make_stack(id_like);
  Outcome by_name = as_admin({"stack", "get", id_like, "-o", "json"});
  ASSERT_EQ(by_name.exit_code, 0) << by_name.err;
  EXPECT_EQ(text_of(*sindri::parse_json(by_name.out), "id"), id);

  std::string upper = id;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  Outcome by_upper_id = as_admin({"stack", "get", upper, "-o", "json"});
  ASSERT_EQ(by_upper_id.exit_code, 0) << by_upper_id.err;
  EXPECT_EQ(text_of(*sindri::parse_json(by_upper_id.out), "name"), id_like);
  Outcome deleted = as_admin({"stack", "delete", id_like});
  EXPECT_EQ(deleted.exit_code, 0) << deleted.err;
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/stacks").json.size(), 0u);
}

// --- stack delete -----------------------------------------------------------------

TEST_F(BrokerCli, DeleteRemovesTheStack) {
  const std::string id = make_stack("web");
  Outcome r = as_generator({"stack", "delete", "web"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "stack web deleted (id " + id + ")\n");
  EXPECT_EQ(call(*admin_, "GET", "/api/v1/stacks/" + id).status, 404);
  Outcome again = as_generator({"stack", "delete", "web"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_EQ(again.err, "error: stack \"web\" not found\n");
}

// --- apply ------------------------------------------------------------------------

TEST_F(BrokerCli, ApplyJoinsADirectoryIntoOneDeploymentObject) {
  const std::string id = make_stack("web");
  file("manifests/a.yaml", kConfigMapAndService);
  file("manifests/b.yml", kDeployment);
  file("manifests/notes.txt", "not a manifest");
  file("manifests/nested/c.yaml", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: skipped\n");

  Outcome r = as_generator({"apply", "web", "-f", (dir_ / "manifests").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Value objects = deployment_objects(id);
  ASSERT_EQ(objects.size(), 1u);
  const Value& object = *objects.at(0);
  EXPECT_EQ(r.out, "deployment object " + text_of(object, "id") + " created in stack web (sequence " +
                       std::to_string(object.find("sequence_id")->get_int()) + ", 3 resources)\n");

  // Files in name order, documents in file order, separated by "---".
  const std::string yaml = text_of(object, "yaml_content");
  auto stream = sindri::parse_yaml_stream(yaml);
  ASSERT_TRUE(stream.ok()) << yaml;
  ASSERT_EQ(stream->size(), 3u) << yaml;
  EXPECT_EQ(text_of((*stream)[0].value, "kind"), "ConfigMap");
  EXPECT_EQ(text_of((*stream)[1].value, "kind"), "Service");
  EXPECT_EQ(text_of((*stream)[2].value, "kind"), "Deployment");
  EXPECT_EQ((*stream)[2].value.find("spec")->find("replicas")->get_int(), 2);
  size_t separators = 0;
  for (size_t at = yaml.find("\n---\n"); at != std::string::npos; at = yaml.find("\n---\n", at + 1)) ++separators;
  EXPECT_EQ(separators, 2u) << yaml;
}

TEST_F(BrokerCli, ApplyRecursiveReadsSubdirectoriesAndFlattensLists) {
  const std::string id = make_stack("web");
  file("m/a.yaml", kConfigMapAndService);
  file("m/nested/c.yaml", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: nested\n");
  // `sindri render -o json` writes several manifests as a v1 List.
  file("m/z.json",
       R"({"apiVersion":"v1","kind":"List","items":[)"
       R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"one"}},)"
       R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"two"}}]})");

  Outcome r = as_generator({"apply", id, "-R", "-f", (dir_ / "m").string(), "-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto printed = sindri::parse_json(r.out);
  ASSERT_TRUE(printed.ok()) << r.out;
  const Value objects = deployment_objects(id);
  ASSERT_EQ(objects.size(), 1u);
  EXPECT_EQ(*printed, *objects.at(0));

  auto stream = sindri::parse_yaml_stream(text_of(*printed, "yaml_content"));
  ASSERT_TRUE(stream.ok());
  std::vector<std::string> names;
  for (const auto& document : *stream) names.push_back(text_of(*document.value.find("metadata"), "name"));
  EXPECT_EQ(names, (std::vector<std::string>{"web-config", "web", "nested", "one", "two"}));
}

TEST_F(BrokerCli, ApplyWithASyntaxErrorNamesTheFileAndSendsNothing) {
  const std::string id = make_stack("web");
  file("m/a.yaml", kConfigMapAndService);
  const fs::path bad = file("m/b.yaml",
                            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fine\n"
                            "---\n"
                            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [unclosed\n");
  Outcome r = as_generator({"apply", "web", "-f", (dir_ / "m").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("error: " + bad.string() + ":", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(": document 2: "), std::string::npos) << r.err;
  EXPECT_EQ(deployment_objects(id).size(), 0u);
}

TEST_F(BrokerCli, ApplyRejectsADocumentThatIsNoManifest) {
  const std::string id = make_stack("web");
  const fs::path bad = file("one.yaml", std::string(kConfigMapAndService) + "---\napiVersion: v1\nmetadata:\n  name: x\n");
  Outcome r = as_generator({"apply", "web", "-f", bad.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: " + bad.string() + ":15: document 3 has no `kind` string\n");
  EXPECT_EQ(deployment_objects(id).size(), 0u);

  Outcome nothing = as_generator({"apply", "web", "-f", file("empty.yaml", "---\n").string()});
  EXPECT_EQ(nothing.exit_code, 1);
  EXPECT_NE(nothing.err.find("no manifests found in "), std::string::npos) << nothing.err;
}

// An agent applies each manifest in turn: the same object twice (a file
// named twice, a symlink beside its target) would be applied twice.
TEST_F(BrokerCli, ApplyRefusesAnObjectGivenTwice) {
  const std::string id = make_stack("web");
  const fs::path one = file("m/one.yaml", kDeployment);
  Outcome twice = as_generator({"apply", "web", "-f", one.string(), "-f", one.string()});
  EXPECT_EQ(twice.exit_code, 1);
  EXPECT_EQ(twice.err, "error: " + one.string() + ":2: document 1: Deployment default/web is given already, at " +
                           one.string() + ":2: document 1; a deployment object holds each object once\n");
  fs::create_symlink(one, dir_ / "m/link.yaml");
  EXPECT_EQ(as_generator({"apply", "web", "-f", (dir_ / "m").string()}).exit_code, 1);
  EXPECT_EQ(deployment_objects(id).size(), 0u);

  // The same name in another namespace, or of another kind, is another object.
  fs::remove(dir_ / "m/link.yaml");
  file("m/two.yaml", std::string(kDeployment) + "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n");
  file("m/three.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: other\n");
  fs::remove(one);
  Outcome distinct = as_generator({"apply", "web", "-f", (dir_ / "m").string()});
  EXPECT_EQ(distinct.exit_code, 0) << distinct.err;
}

// As kubectl applies them: a namespaced object without a namespace lands in
// `default`, and a cluster-scoped one in none, whatever namespace it names.
TEST_F(BrokerCli, ApplyReadsNamespacesAsKubectlApplies) {
  const std::string id = make_stack("web");
  const fs::path in_default = file("d/a.yaml", std::string(kDeployment) +
                                                   "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n"
                                                   "  name: web\n  namespace: default\n");
  Outcome same_deployment = as_generator({"apply", "web", "-f", in_default.string()});
  EXPECT_EQ(same_deployment.exit_code, 1);
  EXPECT_NE(same_deployment.err.find("document 2: Deployment default/web is given already, at " +
                                     in_default.string() + ":2: document 1"),
            std::string::npos)
      << same_deployment.err;

  const fs::path roles = file("r/a.yaml",
                              "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n"
                              "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n"
                              "  name: reader\n  namespace: team\n");
  Outcome same_role = as_generator({"apply", "web", "-f", roles.string()});
  EXPECT_EQ(same_role.exit_code, 1);
  EXPECT_NE(same_role.err.find("ClusterRole reader is given already"), std::string::npos) << same_role.err;
  EXPECT_EQ(deployment_objects(id).size(), 0u);

  // A Role of the same name is namespaced, and another kind.
  const fs::path distinct = file("n/a.yaml",
                                 "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: reader\n"
                                 "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: reader\n"
                                 "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n"
                                 "  name: reader\n  namespace: team\n");
  Outcome applied = as_generator({"apply", "web", "-f", distinct.string()});
  EXPECT_EQ(applied.exit_code, 0) << applied.err;
  EXPECT_EQ(deployment_objects(id).size(), 1u);
}

TEST_F(BrokerCli, ApplyToAnUnknownStackFails) {
  Outcome r = as_generator({"apply", "nope", "-f", file("a.yaml", kDeployment).string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: stack \"nope\" not found\n");
}

// --- connection and authentication ----------------------------------------------------

TEST_F(BrokerCli, AMissingPakFailsBeforeAnyRequest) {
  // A broker that is not there: had a request been made, the error would say so.
  Outcome r = sindri({"stack", "list", "--broker", "http://127.0.0.1:1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: no PAK given: pass --pak or set SINDRI_PAK\n");
  Outcome apply = sindri({"apply", "web", "-f", file("a.yaml", kDeployment).string(), "--broker", broker_.url()});
  EXPECT_EQ(apply.exit_code, 2);
  EXPECT_EQ(apply.err, "error: no PAK given: pass --pak or set SINDRI_PAK\n");
}

TEST_F(BrokerCli, TheEnvironmentGivesBrokerAndPak) {
  make_stack("web");
  ScopedEnv broker("SINDRI_BROKER", broker_.url());
  ScopedEnv pak("SINDRI_PAK", generator_pak_);
  Outcome r = sindri({"stack", "list", "-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto stacks = sindri::parse_json(r.out);
  ASSERT_TRUE(stacks.ok()) << r.out;
  ASSERT_EQ(stacks->size(), 1u);
  EXPECT_EQ(text_of(*stacks->at(0), "name"), "web");
}

// As in kubectl, a flag beats the environment, on every verb: the stack and
// template verbs share their flags, and CLI11's own reading of the
// environment let a sibling verb's overwrite the flag typed.
TEST_F(BrokerCli, FlagsBeatTheEnvironment) {
  make_stack("web");
  ScopedEnv broker("SINDRI_BROKER", "http://127.0.0.1:1");
  ScopedEnv pak("SINDRI_PAK", "brokkr_BR12345678_abcdefghijklmnopqrstuvwx");
  for (std::vector<std::string> verb : {std::vector<std::string>{"stack", "list"}, {"stack", "get", "web"},
                                        {"template", "list"}, {"agent", "list"}}) {
    verb.insert(verb.end(), {"--broker", broker_.url(), "--pak", broker_.admin_pak(), "-o", "json"});
    Outcome r = sindri(verb);
    EXPECT_EQ(r.exit_code, 0) << verb[0] << " " << verb[1] << ": " << r.err;
  }
  // The environment still fills in a flag not given.
  Outcome unreachable = sindri({"stack", "list", "--pak", broker_.admin_pak()});
  EXPECT_EQ(unreachable.exit_code, 1);
  EXPECT_EQ(unreachable.err.rfind("error: cannot reach the broker: GET http://127.0.0.1:1/api/v1/stacks: ", 0), 0u)
      << unreachable.err;
}

TEST_F(BrokerCli, APakWithALineEndFailsBeforeAnyRequest) {
  const std::string pak = broker_.admin_pak() + "\r\nX-Injected: 1";
  Outcome r = sindri({"stack", "list", "--broker", "http://127.0.0.1:1", "--pak", pak});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "error: the PAK holds a control character (a line end copied from a file?): check --pak or SINDRI_PAK\n");
}

// libcurl would read ftp:// and file:// too, and a URL ending in /api/v1
// would have it twice.
TEST_F(BrokerCli, ABrokerUrlThatIsNotTheBrokersIsAUsageError) {
  const std::string pak = broker_.admin_pak();
  Outcome ftp = sindri({"stack", "list", "--broker", "ftp://127.0.0.1:1", "--pak", pak});
  EXPECT_EQ(ftp.exit_code, 2);
  EXPECT_EQ(ftp.err.rfind("--broker: `ftp://127.0.0.1:1` is not an http:// or https:// URL\n", 0), 0u) << ftp.err;
  Outcome file_url = sindri({"stack", "list", "--broker", "file:///etc/passwd", "--pak", pak});
  EXPECT_EQ(file_url.exit_code, 2) << file_url.out;
  Outcome api = sindri({"stack", "list", "--broker", broker_.url() + "/api/v1/", "--pak", pak});
  EXPECT_EQ(api.exit_code, 2);
  EXPECT_NE(api.err.find("names the API itself"), std::string::npos) << api.err;
  ScopedEnv broker("SINDRI_BROKER", "localhost:8080");
  Outcome from_environment = sindri({"stack", "list", "--pak", pak});
  EXPECT_EQ(from_environment.exit_code, 2);
  EXPECT_EQ(from_environment.err.rfind("SINDRI_BROKER: `localhost:8080` is not", 0), 0u) << from_environment.err;
}

TEST_F(BrokerCli, APakCopiedWithItsBearerSchemeWorks) {
  Outcome r = sindri({"stack", "list", "--broker", broker_.url(), "--pak", "Bearer " + broker_.admin_pak()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(BrokerCli, AWrongPakShowsTheBrokers401) {
  Outcome r = sindri_as("brokkr_BR12345678_abcdefghijklmnopqrstuvwx", {"stack", "list"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: the PAK is unknown or has been revoked (HTTP 401 unauthorized)\n");
}

TEST_F(BrokerCli, ABrokerThatIsNotRunningIsNamed) {
  const std::string url = broker_.url();
  broker_.stop();
  Outcome r = as_admin({"stack", "list"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("error: cannot reach the broker: GET " + url + "/api/v1/stacks: ", 0), 0u) << r.err;
}

// --- agent list -----------------------------------------------------------------------

TEST_F(BrokerCli, AgentListShowsTheAgents) {
  Outcome none = as_admin({"agent", "list"});
  EXPECT_EQ(none.exit_code, 0) << none.err;
  EXPECT_EQ(none.err, "No agents found.\n");

  Reply agent = call(*admin_, "POST", "/api/v1/agents", R"({"name":"edge-1","cluster_name":"prod-eu"})");
  ASSERT_EQ(agent.status, 201) << agent.body;
  const std::string id = text_of(*agent.json.find("agent"), "id");
  Outcome table = as_admin({"agent", "list"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  const auto lines = lines_of(table.out);
  ASSERT_EQ(lines.size(), 2u) << table.out;
  EXPECT_EQ(lines[0].rfind("NAME    ID" + std::string(36, ' ') + "CLUSTER  STATUS", 0), 0u) << table.out;
  EXPECT_NE(lines[0].find("LAST HEARTBEAT"), std::string::npos);
  EXPECT_EQ(lines[1].rfind("edge-1  " + id + "  prod-eu  ", 0), 0u) << table.out;
  EXPECT_EQ(lines[0].find("CREATED"), std::string::npos) << table.out;
  Outcome wide = as_admin({"agent", "list", "-o", "wide"});
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  const std::string wide_header = lines_of(wide.out).at(0);
  EXPECT_NE(wide_header.find("  LAST HEARTBEAT  CREATED  "), std::string::npos) << wide.out;
  EXPECT_TRUE(wide_header.ends_with("  K8S REACHABLE  K8S LATENCY MS")) << wide.out;

  Outcome json = as_admin({"agent", "list", "-o", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(*sindri::parse_json(json.out), call(*admin_, "GET", "/api/v1/agents").json);
}

}  // namespace
}  // namespace sindri_test
