// sindri repo publish against a real broker: the default repository's
// deployment template, published, renders on the broker what `sindri repo
// render` writes; publishing again changes nothing, a changed file makes a
// new version, and a template a broker cannot take stops everything. Also
// how `sindri` hands the subcommand to sindri-client, for help and
// completion too.

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "broker_cli_fixture.hpp"
#include "value/json.hpp"

namespace sindri_test {
namespace {

using sindri::Value;

const std::string kDefaultTemplates = std::string(SINDRI_SOURCE_DIR) + "/templates/default";

class RepoPublishCli : public BrokerCli {
 protected:
  void SetUp() override {
    BrokerCli::SetUp();
    setenv("SINDRI_DEFAULT_TEMPLATES", kDefaultTemplates.c_str(), 1);
    setenv("XDG_CACHE_HOME", (dir_ / "cache").c_str(), 1);
  }
  void TearDown() override {
    unsetenv("SINDRI_DEFAULT_TEMPLATES");
    unsetenv("XDG_CACHE_HOME");
    BrokerCli::TearDown();
  }

  // A repository of our own under the scratch directory: the default
  // deployment template, copied, to be changed.
  std::string own_repository() {
    const fs::path repository = dir_ / "repository";
    fs::create_directories(repository);
    fs::copy(kDefaultTemplates + "/deployment", repository / "deployment", fs::copy_options::recursive);
    return repository.string();
  }

  // The live templates of a name on the broker.
  Value live_templates(const std::string& name) {
    Reply listed = call(*admin_, "GET", "/api/v1/templates?all_versions=false&name=" + name);
    EXPECT_EQ(listed.status, 200) << listed.body;
    return listed.json;
  }

};

TEST_F(RepoPublishCli, ThePublishedDeploymentRendersWhatTheRepositoryRenders) {
  const std::string project = file("project/sindri-templates.yaml",
                                   "sindri_templates:\n  version: 2\n  templates: [deployment]\n"
                                   "deployment:\n  name: shop\n  image: ghcr.io/example/web:1.4.2\n  replicas: 3\n"
                                   "  env:\n    LOG_LEVEL: debug\n")
                                  .parent_path()
                                  .string();
  const Outcome published = as_admin({"repo", "publish", "deployment", "--project", project});
  ASSERT_EQ(published.exit_code, 0) << published.err;
  EXPECT_EQ(published.out, "created deployment (version 1)\n");
  const Value live = live_templates("deployment");
  ASSERT_EQ(live.size(), 1u) << sindri::to_json(live);
  EXPECT_TRUE(live.at(0)->find("generator_id")->is_null());  // an admin's: a system template
  auto metadata = sindri::parse_json(read_all(kDefaultTemplates + "/deployment/template.json"));
  ASSERT_TRUE(metadata.ok());
  EXPECT_EQ(text_of(*live.at(0), "description"), text_of(*metadata, "description"));

  // Only the project's settings are given: the broker fills in the rest
  // from the defaults, as the repository does.
  const Outcome on_broker =
      as_admin({"template", "render", "deployment", "--set", "name=shop", "--set", "image=ghcr.io/example/web:1.4.2",
                "--set", "replicas=3", "--set-string", "env.LOG_LEVEL=debug"});
  ASSERT_EQ(on_broker.exit_code, 0) << on_broker.err;
  const Outcome in_repository = sindri({"repo", "render", "--project", project, "-o", "json"});
  ASSERT_EQ(in_repository.exit_code, 0) << in_repository.err;
  auto files = sindri::parse_json(in_repository.out);
  ASSERT_TRUE(files.ok() && files->is_array()) << in_repository.out;
  std::string rendered_by_repository;
  for (const Value& rendered : files->get_array()) {
    if (text_of(rendered, "template") == "deployment") rendered_by_repository += text_of(rendered, "content");
  }
  EXPECT_EQ(on_broker.out, rendered_by_repository);
  for (const char* line : {"image: \"ghcr.io/example/web:1.4.2\"\n", "replicas: 3\n", "memory: \"256Mi\"\n",
                           "value: \"debug\"\n"}) {
    EXPECT_NE(on_broker.out.find(line), std::string::npos) << line << " in\n" << on_broker.out;
  }

  const Outcome again = as_admin({"repo", "publish", "deployment", "--project", project});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, "unchanged deployment (version 1)\n");
  EXPECT_EQ(live_templates("deployment").size(), 1u);
}

TEST_F(RepoPublishCli, AChangedFileMakesANewVersionDryRunWritesNothing) {
  const std::string repository = own_repository();
  ASSERT_EQ(as_admin({"repo", "publish", "deployment", "--repository", repository}).exit_code, 0);
  const Outcome unchanged = as_admin({"repo", "publish", "deployment", "--repository", repository, "--dry-run"});
  EXPECT_EQ(unchanged.out, "unchanged deployment (version 1)\n");

  std::ofstream(repository + "/deployment/files/deployment.yaml.tera", std::ios::app) << "# changed\n";
  const Outcome dry = as_admin({"repo", "publish", "deployment", "--repository", repository, "--dry-run"});
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_EQ(dry.out, "would update deployment (version 1 is live)\n");
  EXPECT_EQ(live_templates("deployment").at(0)->find("version")->get_int(), 1);

  const Outcome updated = as_admin({"repo", "publish", "deployment", "--repository", repository});
  EXPECT_EQ(updated.exit_code, 0) << updated.err;
  EXPECT_EQ(updated.out, "updated deployment (version 2)\n");
  const Value live = live_templates("deployment");
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live.at(0)->find("version")->get_int(), 2);
  EXPECT_NE(text_of(*live.at(0), "template_content").find("# changed\n"), std::string::npos);
}

TEST_F(RepoPublishCli, AChangedDescriptionAloneMakesANewVersion) {
  const std::string repository = own_repository();
  ASSERT_EQ(as_admin({"repo", "publish", "deployment", "--repository", repository}).exit_code, 0);
  const std::string metadata_file = repository + "/deployment/template.json";
  auto metadata = sindri::parse_json(read_all(metadata_file));
  ASSERT_TRUE(metadata.ok());
  metadata->set("description", Value("A deployment, described anew"));
  std::ofstream(metadata_file, std::ios::trunc) << sindri::to_json(*metadata);

  const Outcome updated = as_admin({"repo", "publish", "deployment", "--repository", repository});
  EXPECT_EQ(updated.exit_code, 0) << updated.err;
  EXPECT_EQ(updated.out, "updated deployment (version 2)\n");
  const Value live = live_templates("deployment");
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(text_of(*live.at(0), "description"), "A deployment, described anew");
  EXPECT_EQ(as_admin({"repo", "publish", "deployment", "--repository", repository}).out,
            "unchanged deployment (version 2)\n");
}

TEST_F(RepoPublishCli, AGeneratorPublishesItsOwnTemplates) {
  const std::string repository = own_repository();
  const Outcome published = as_generator({"repo", "publish", "deployment", "--repository", repository});
  ASSERT_EQ(published.exit_code, 0) << published.err;
  EXPECT_EQ(published.out, "created deployment (version 1)\n");
  // The admin's system template is another owner's name: created beside it.
  const Outcome system = as_admin({"repo", "publish", "deployment", "--repository", repository});
  EXPECT_EQ(system.out, "created deployment (version 1)\n");
  const Value live = live_templates("deployment");
  ASSERT_EQ(live.size(), 2u);
  EXPECT_EQ(as_generator({"repo", "publish", "deployment", "--repository", repository}).out,
            "unchanged deployment (version 1)\n");
  EXPECT_EQ(as_admin({"repo", "publish", "deployment", "--repository", repository, "--generator-id", generator_id_})
                .out,
            "unchanged deployment (version 1)\n");
}

TEST_F(RepoPublishCli, OneTemplateABrokerCannotTakeMeansNothingIsPublished) {
  const std::string repository = own_repository();
  file("repository/site/template.json", R"({"name": "Site"})");
  file("repository/site/files/index.html", "hello\n");
  file("repository/hooked/template.json", R"({"name": "Hooked", "type": "kubernetes"})");
  file("repository/hooked/files/x.yaml", "kind: ConfigMap\n");
  file("repository/hooked/hooks/before_file_render", "#!/bin/sh\ncat\n");
  const Outcome refused =
      as_admin({"repo", "publish", "deployment", "site", "hooked", "missing", "--repository", repository});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(refused.out, "");
  EXPECT_EQ(refused.err,
            "error: template `site` is of type project: only kubernetes templates can be published to a broker\n"
            "error: template `hooked` has a hook, " + repository +
                "/hooked/hooks/before_file_render, which a broker cannot run\n"
                "error: no template `missing` in the template sources\n"
                "note: nothing was published\n");
  Reply all = call(*admin_, "GET", "/api/v1/templates");
  EXPECT_EQ(all.json.size(), 0u) << all.body;
}

TEST_F(RepoPublishCli, UsageErrors) {
  const Outcome no_pak = sindri({"repo", "publish", "deployment"});
  EXPECT_EQ(no_pak.exit_code, 2);
  EXPECT_NE(no_pak.err.find("PAK"), std::string::npos) << no_pak.err;
  const Outcome both = as_admin({"repo", "publish", "deployment", "--project", ".", "--repository", "."});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("--project excludes --repository"), std::string::npos) << both.err;
  const Outcome absent = as_admin({"repo", "publish", "deployment", "--repository", (dir_ / "nope").string()});
  EXPECT_EQ(absent.exit_code, 1);
  EXPECT_EQ(absent.err,
            "error: template repository " + (dir_ / "nope").string() + ": no directory\nnote: nothing was published\n");
}

TEST_F(RepoPublishCli, HelpAndCompletionKnowTheSubcommandOfTheOtherProgram) {
  const Outcome group = sindri({"repo", "--help"});
  EXPECT_EQ(group.exit_code, 0) << group.err;
  EXPECT_NE(group.out.find("publish"), std::string::npos) << group.out;
  EXPECT_NE(group.out.find("Publish kubernetes templates to a broker"), std::string::npos) << group.out;
  EXPECT_NE(group.out.find("render"), std::string::npos) << group.out;  // the offline ones stay

  const Outcome help = sindri({"repo", "publish", "--help"});
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_NE(help.out.find("Usage: sindri repo publish"), std::string::npos) << help.out;
  for (const char* flag : {"--broker", "--pak", "--dry-run", "--repository", "--project", "--generator-id"}) {
    EXPECT_NE(help.out.find(flag), std::string::npos) << flag << " in\n" << help.out;
  }
  EXPECT_EQ(sindri({"help", "repo", "publish"}).out, help.out);

  EXPECT_EQ(bash_completes("sindri repo pu"), "publish\n");
  const std::string flags = bash_completes("sindri repo publish --");
  EXPECT_NE(flags.find("--dry-run\n"), std::string::npos) << flags;
  EXPECT_NE(flags.find("--broker\n"), std::string::npos) << flags;
  const std::string offline = bash_completes("sindri repo render --");
  EXPECT_NE(offline.find("--output-dir\n"), std::string::npos) << offline;
}

// What a shell command prints on its standard output.
std::string shell_output(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  pclose(pipe);
  return out;
}

TEST_F(RepoPublishCli, AMalformedTreeOfAnotherProgramIsLeftOutOfTheCompletion) {
  const fs::path beside = dir_ / "beside";
  fs::create_directories(beside);
  fs::copy_file(SINDRI_BIN, beside / "sindri");
  // Another program's tree with entries the completion scripts cannot read.
  const fs::path client = file("beside/sindri-client", R"(#!/bin/sh
cat <<'TREE'
{"name": "sindri-client", "subcommands": [
  {"name": "stack"}, 7, {"description": "no name"},
  {"name": "repo", "description": "r", "options": [], "positionals": false,
   "subcommands": [{"name": "publish", "description": "p", "options": [{"names": "--x"}],
                    "positionals": false, "subcommands": []}]}]}
TREE
)");
  fs::permissions(client, fs::perms::owner_all);
  const std::string sindri_beside = (beside / "sindri").string();
  const std::string out = shell_output(sindri_beside + " completion bash 2>&1 >/dev/null; echo \"exit $?\"");
  EXPECT_TRUE(out.ends_with("exit 0\n")) << out;
  const std::string warning = "warning: sindri-client __commands printed a malformed entry, ";
  for (const std::string entry : {R"({"name":"stack"})", "7", R"({"description":"no name"})"}) {
    EXPECT_NE(out.find(warning + entry + ": left out of the completion\n"), std::string::npos) << entry << " in\n" << out;
  }
  EXPECT_NE(out.find(warning + R"({"description":"r","name":"repo",)"), std::string::npos) << out;
  // The verbs left out complete as this program knows them.
  const std::string script = shell_output(sindri_beside + " completion bash 2>/dev/null");
  EXPECT_NE(script.find("stack"), std::string::npos);
  EXPECT_NE(script.find("publish"), std::string::npos);
}

}  // namespace
}  // namespace sindri_test
