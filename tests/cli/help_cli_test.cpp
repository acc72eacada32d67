// `sindri help`, `sindri version`, `sindri completion`, and what every
// program says of a group called without its subcommand or with an unknown
// one (src/cli/run.cpp).

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "sindri_process.hpp"
#include "value/json.hpp"

namespace sindri_test {
namespace {

using HelpCli = SindriTest;

// --- help -------------------------------------------------------------------

TEST_F(HelpCli, HelpAloneIsTheCommandsHelp) {
  const Outcome help = sindri({"help"});
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_EQ(help.out, sindri({"--help"}).out);
  for (const char* verb : {"  help ", "  version ", "  completion "}) {
    EXPECT_NE(help.out.find(verb), std::string::npos) << verb << " in\n" << help.out;
  }
}

TEST_F(HelpCli, HelpOfAVerbIsItsHelpFlag) {
  const std::vector<std::vector<std::string>> commands = {{"render"}, {"rbg", "diff"}, {"bundle"}};
  for (const std::vector<std::string>& words : commands) {
    std::vector<std::string> flagged = words;
    flagged.push_back("--help");
    std::vector<std::string> asked = words;
    asked.insert(asked.begin(), "help");
    const Outcome help = sindri(asked);
    EXPECT_EQ(help.exit_code, 0) << help.err;
    EXPECT_EQ(help.out, sindri(flagged).out) << words[0];
  }
  EXPECT_NE(sindri({"help", "rbg", "diff"}).out.find("Usage: sindri rbg diff"), std::string::npos);
}

TEST_F(HelpCli, HelpOfAVerbOfAnotherProgramIsThatProgramsHelp) {
  const Outcome help = sindri({"help", "stack", "create"});
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_EQ(help.out, sindri({"stack", "create", "--help"}).out);
  EXPECT_NE(help.out.find("Usage: sindri stack create"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--broker"), std::string::npos) << help.out;
  const Outcome serve = sindri({"help", "serve"});
  EXPECT_EQ(serve.exit_code, 0) << serve.err;
  EXPECT_NE(serve.out.find("--database"), std::string::npos) << serve.out;
}

TEST_F(HelpCli, HelpOfAnUnknownCommandListsTheCommands) {
  const Outcome help = sindri({"help", "rendr"});
  EXPECT_EQ(help.exit_code, 2);
  EXPECT_EQ(help.out, "");
  EXPECT_EQ(help.err.rfind("error: unknown command `rendr` (commands: render, check, ", 0), 0u) << help.err;
  EXPECT_NE(help.err.find(", stack, "), std::string::npos) << help.err;
}

TEST_F(HelpCli, HelpOfAnUnknownSubcommandListsTheSubcommands) {
  const Outcome offline = sindri({"help", "rbg", "preveiw"});
  EXPECT_EQ(offline.exit_code, 2);
  EXPECT_EQ(offline.err,
            "error: unknown subcommand `preveiw` of `sindri rbg` (subcommands: preview, diff, workloads)\n");
  const Outcome client = sindri({"help", "stack", "lst"});
  EXPECT_EQ(client.exit_code, 2);
  EXPECT_EQ(client.err.rfind("error: unknown subcommand `lst` of `sindri stack` (subcommands: create, list, ", 0), 0u)
      << client.err;
}

// --- a group without its subcommand -------------------------------------------

TEST_F(HelpCli, AnOfflineGroupWithoutItsSubcommandListsThem) {
  const Outcome rbg = sindri({"rbg"});
  EXPECT_EQ(rbg.exit_code, 2);
  EXPECT_EQ(rbg.out, "");
  EXPECT_EQ(rbg.err.rfind("error: `sindri rbg` needs a subcommand, one of:\n", 0), 0u) << rbg.err;
  EXPECT_NE(rbg.err.find("\n  preview    Print each role's resolved pod template\n"), std::string::npos) << rbg.err;
  EXPECT_NE(rbg.err.find("\n  workloads  Print the StatefulSet or LeaderWorkerSet of every role\n"), std::string::npos)
      << rbg.err;
  EXPECT_NE(rbg.err.find("(`sindri rbg --help` says more)"), std::string::npos) << rbg.err;
  const Outcome bundle = sindri({"bundle"});
  EXPECT_EQ(bundle.exit_code, 2);
  EXPECT_NE(bundle.err.find("\n  convert  "), std::string::npos) << bundle.err;
}

TEST_F(HelpCli, AClientGroupWithoutItsSubcommandListsThem) {
  for (const char* group : {"stack", "template", "agent"}) {
    const Outcome run = sindri({group});
    EXPECT_EQ(run.exit_code, 2) << group;
    EXPECT_EQ(run.err.rfind(std::string("error: `sindri ") + group + "` needs a subcommand, one of:\n", 0), 0u)
        << run.err;
    EXPECT_NE(run.err.find("\n  list "), std::string::npos) << run.err;
  }
  const std::string stack = sindri({"stack"}).err;
  EXPECT_NE(stack.find("\n  create "), std::string::npos) << stack;
  EXPECT_NE(stack.find(" Create a stack\n"), std::string::npos) << stack;
}

TEST_F(HelpCli, TheCommandAloneListsTheCommands) {
  const Outcome run = sindri({});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err.rfind("error: `sindri` needs a command, one of:\n", 0), 0u) << run.err;
  EXPECT_NE(run.err.find("\n  render "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("\n  serve "), std::string::npos) << run.err;
}

// --- version ------------------------------------------------------------------

TEST_F(HelpCli, VersionNamesTheCommitTheDialectAndTheApi) {
  const Outcome run = sindri({"version"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out.rfind(std::string("sindri ") + SINDRI_VERSION + "\ngit commit: ", 0), 0u) << run.out;
  EXPECT_NE(run.out.find("\nTera dialect: 1.20\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\nAPI: Brokkr v1 0.9.1\n"), std::string::npos) << run.out;
  EXPECT_NE(sindri({"--version"}).out.find(SINDRI_VERSION), std::string::npos);
}

TEST_F(HelpCli, VersionAsJson) {
  const Outcome run = sindri({"version", "-o", "json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto parsed = sindri::parse_json(run.out);
  ASSERT_TRUE(parsed.ok()) << run.out;
  ASSERT_TRUE(parsed->is_object());
  EXPECT_EQ(parsed->size(), 4u) << run.out;
  EXPECT_EQ(*parsed->find("version"), sindri::Value(SINDRI_VERSION));
  EXPECT_EQ(*parsed->find("tera_dialect"), sindri::Value("1.20"));
  // api/brokkr-v1.json's info.version, the document the broker serves.
  EXPECT_EQ(*parsed->find("api_version"), sindri::Value("0.9.1"));
  const std::string commit(parsed->find("git_commit")->get_string());
  EXPECT_TRUE(std::regex_match(commit, std::regex("[0-9a-f]{40}|unknown"))) << commit;
}

TEST_F(HelpCli, VersionRefusesAnUnknownOutput) {
  const Outcome run = sindri({"version", "-o", "yaml"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("yaml"), std::string::npos) << run.err;
}

// --- completion ---------------------------------------------------------------

TEST_F(HelpCli, CompletionOfAnUnknownShellIsAUsageError) {
  const Outcome run = sindri({"completion", "tcsh"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_NE(run.err.find("tcsh"), std::string::npos) << run.err;
  EXPECT_EQ(sindri({"completion"}).exit_code, 2);
}

TEST_F(HelpCli, EveryProgramPrintsItsCommandTree) {
  const Outcome run = sindri({"__commands"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto tree = sindri::parse_json(run.out);
  ASSERT_TRUE(tree.ok()) << run.out;
  const sindri::Value* verbs = tree->find("subcommands");
  ASSERT_NE(verbs, nullptr);
  bool found_render = false;
  for (const sindri::Value& verb : verbs->get_array()) {
    if (verb.find("name")->get_string() != "render") continue;
    found_render = true;
    EXPECT_TRUE(verb.find("positionals")->get_bool());
    EXPECT_NE(sindri::to_json(*verb.find("options")).find(R"("choices":["raw","yaml","json"])"), std::string::npos);
  }
  EXPECT_TRUE(found_render) << run.out;
}

TEST_F(HelpCli, BashCompletesTheVerbsOfEveryProgram) {
  const std::string verbs = bash_completes("sindri ");
  for (const char* verb : {"render\n", "rbg\n", "serve\n", "stack\n", "template\n", "completion\n"}) {
    EXPECT_NE(verbs.find(verb), std::string::npos) << verb << " in\n" << verbs;
  }
  EXPECT_EQ(bash_completes("sindri st"), "stack\n");
}

TEST_F(HelpCli, BashCompletesSubcommandsAndOptionsOfAnotherProgram) {
  EXPECT_EQ(bash_completes("sindri stack cr"), "create\n");
  const std::string options = bash_completes("sindri stack create --");
  EXPECT_NE(options.find("--broker\n"), std::string::npos) << options;
  EXPECT_NE(options.find("--label\n"), std::string::npos) << options;
  EXPECT_EQ(bash_completes("sindri stack list -o w"), "wide\n");
  EXPECT_EQ(bash_completes("sindri rbg w"), "workloads\n");
}

TEST_F(HelpCli, BashCompletesFilesForFileOptionsAndArguments) {
  file("web.schema.yaml", "type: object\n");
  file("web.tera", "x");
  EXPECT_EQ(bash_completes("sindri validate --schema web.s"), "web.schema.yaml\n");
  EXPECT_EQ(bash_completes("sindri render web.t"), "web.tera\n");
  EXPECT_EQ(bash_completes("sindri render -f web.s"), "web.schema.yaml\n");
  // The value of an option is not taken for a subcommand.
  EXPECT_EQ(bash_completes("sindri render -o y"), "yaml\n");
  EXPECT_EQ(bash_completes("sindri render -o yaml --sch"), "--schema\n");
}

TEST_F(HelpCli, ZshAndFishScriptsCoverTheVerbsOfEveryProgram) {
  const Outcome zsh = sindri({"completion", "zsh"});
  ASSERT_EQ(zsh.exit_code, 0) << zsh.err;
  EXPECT_EQ(zsh.out.rfind("#compdef sindri\n", 0), 0u);
  EXPECT_NE(zsh.out.find("'sindri stack' 'create:Create a stack\n"), std::string::npos) << zsh.out;
  const Outcome fish = sindri({"completion", "fish"});
  ASSERT_EQ(fish.exit_code, 0) << fish.err;
  EXPECT_NE(fish.out.find("complete -c sindri -n '__sindri_at \\'sindri stack\\'' -a 'create' -d 'Create a stack'\n"),
            std::string::npos)
      << fish.out;
  EXPECT_NE(fish.out.find("-l schema -r -F"), std::string::npos);
  // bash can at least read zsh's script: it is made of the same constructs.
  const fs::path script = file("sindri.zsh", zsh.out);
  EXPECT_EQ(std::system(("bash -n " + script.string()).c_str()), 0);
}

}  // namespace
}  // namespace sindri_test
