// The agent's settings: each layer over the one before, Brokkr's names read
// too, and every bad value an error naming where it came from.

#include "agent/settings.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

namespace sindri::agent {
namespace {

namespace fs = std::filesystem;

class Environment {
 public:
  explicit Environment(std::map<std::string, std::string> variables) : variables_(std::move(variables)) {}
  std::function<const char*(const char*)> lookup() const {
    return [this](const char* name) -> const char* {
      auto found = variables_.find(name);
      return found == variables_.end() ? nullptr : found->second.c_str();
    };
  }

 private:
  std::map<std::string, std::string> variables_;
};

const AgentSetting& by_flag(std::string_view flag) {
  for (const AgentSetting& setting : settings()) {
    if (setting.flag == flag) return setting;
  }
  throw std::runtime_error("no flag " + std::string(flag));
}

class SettingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "sindri-agent-settings-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const fs::path path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }
  fs::path dir_;
};

TEST_F(SettingsTest, DefaultsAreTheIssues) {
  const AgentSettings defaults;
  EXPECT_EQ(defaults.polling_interval, 10);
  EXPECT_EQ(defaults.resync_interval, 300);
  EXPECT_EQ(defaults.health_port, 8081);
  EXPECT_TRUE(defaults.deployment_health_enabled);
  EXPECT_EQ(defaults.deployment_health_interval, 60);
  EXPECT_EQ(defaults.max_retries, 60);
  EXPECT_EQ(defaults.task_interval, 10);
  EXPECT_EQ(defaults.auth_failure_limit, 5);
  EXPECT_EQ(defaults.kube_retry_initial, 1);
  EXPECT_EQ(defaults.kube_retry_max, 60);
  EXPECT_EQ(defaults.kube_retry_give_up, 300);
  EXPECT_EQ(defaults.sink, "kubernetes");
}

TEST_F(SettingsTest, EachLayerOverridesTheOneBefore) {
  const std::string file = write("agent.yaml",
                                 "agent:\n  broker_url: http://file:1\n  agent_name: from-file\n"
                                 "  cluster_name: c\n  pak: file-pak\n  polling_interval: 0.25\n"
                                 "  kubeconfig_path: /brokkr/kubeconfig\n  ws_force_rest: true\n"
                                 "  generator_ids: [g1, g2]\n"
                                 "database:\n  url: postgres://brokkr\n");
  Environment environment({{"SINDRI_AGENT_CONFIG_FILE", file},
                           {"BROKKR__AGENT__AGENT_NAME", "from-brokkr"},
                           {"BROKKR__AGENT__HEALTH_PORT", "9000"},
                           {"SINDRI_AGENT_HEALTH_PORT", "9001"},
                           {"SINDRI_AGENT_DEPLOYMENT_HEALTH_ENABLED", "false"}});
  GivenFlags flags = {{&by_flag("--health-port"), "0"}, {&by_flag("--kube-context"), "prod"}};
  auto loaded = load_settings(flags, environment.lookup());
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ(loaded->broker_url, "http://file:1");
  EXPECT_EQ(loaded->agent_name, "from-brokkr");  // a variable over the file
  EXPECT_EQ(loaded->health_port, 0);             // the flag over SINDRI_ over BROKKR__
  EXPECT_EQ(loaded->polling_interval, 0.25);
  EXPECT_EQ(loaded->kubeconfig, "/brokkr/kubeconfig");
  EXPECT_EQ(loaded->kube_context, "prod");
  EXPECT_FALSE(loaded->deployment_health_enabled);
  EXPECT_EQ(loaded->generator_ids, (std::vector<std::string>{"g1", "g2"}));
  EXPECT_EQ(loaded->pak, "file-pak");
}

TEST_F(SettingsTest, BrokkrsConfigFileVariableAndAPakFile) {
  const std::string pak = write("pak", "brokkr_secret\n");
  const std::string file = write("brokkr.json", R"({"agent": {"agent_name": "a", "cluster_name": "c"}})");
  Environment environment({{"BROKKR_CONFIG_FILE", file}, {"SINDRI_AGENT_PAK_FILE", pak}, {"SINDRI_PAK", "person"}});
  auto loaded = load_settings({}, environment.lookup());
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ(loaded->agent_name, "a");
  EXPECT_EQ(loaded->pak, "brokkr_secret");
}

TEST_F(SettingsTest, SindriPakIsNeverRead) {
  Environment environment(
      {{"SINDRI_PAK", "person"}, {"SINDRI_AGENT_AGENT_NAME", "a"}, {"SINDRI_AGENT_CLUSTER_NAME", "c"}});
  auto loaded = load_settings({}, environment.lookup());
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(loaded.error().message.find("no PAK"), std::string::npos) << loaded.error().message;
}

TEST_F(SettingsTest, BadValuesNameWhereTheyCameFrom) {
  auto error_of = [&](const std::map<std::string, std::string>& variables, const GivenFlags& flags = {}) {
    std::map<std::string, std::string> all = {
        {"SINDRI_AGENT_PAK", "p"}, {"SINDRI_AGENT_AGENT_NAME", "a"}, {"SINDRI_AGENT_CLUSTER_NAME", "c"}};
    for (const auto& [name, value] : variables) all[name] = value;
    Environment environment(all);
    auto loaded = load_settings(flags, environment.lookup());
    return loaded.ok() ? std::string("(no error)") : loaded.error().message;
  };
  EXPECT_EQ(error_of({{"SINDRI_AGENT_POLLING_INTERVAL", "soon"}}),
            "SINDRI_AGENT_POLLING_INTERVAL: expected a number of seconds (fractions allowed), got \"soon\"");
  EXPECT_EQ(error_of({{"BROKKR__AGENT__MAX_RETRIES", "many"}}),
            "BROKKR__AGENT__MAX_RETRIES: expected an integer, got \"many\"");
  EXPECT_EQ(error_of({}, {{&by_flag("--deployment-health-enabled"), "yes"}}),
            "--deployment-health-enabled: expected true or false, got \"yes\"");
  EXPECT_EQ(error_of({{"SINDRI_AGENT_HEALTH_PORT", "70000"}}), "agent.health_port: expected 0 to 65535, got 70000");
  EXPECT_EQ(error_of({{"SINDRI_AGENT_SINK", "s3:bucket"}}),
            "agent.sink: expected kubernetes or dir:PATH, got \"s3:bucket\"");
  EXPECT_EQ(error_of({{"SINDRI_AGENT_BROKER_URL", "broker:8080"}}),
            "agent.broker_url: expected http://... or https://..., got \"broker:8080\"");
  EXPECT_EQ(error_of({{"SINDRI_AGENT_AGENT_NAME", ""}}),
            "agent.agent_name is not set (--agent-name or SINDRI_AGENT_AGENT_NAME)");

  const std::string unknown = write("unknown.yaml", "agent:\n  polling_intervall: 5\n");
  EXPECT_EQ(error_of({{"SINDRI_AGENT_CONFIG_FILE", unknown}}), unknown + ": agent.polling_intervall: unknown setting");
  const std::string typed = write("typed.yaml", "agent:\n  health_port: high\n");
  EXPECT_EQ(error_of({{"SINDRI_AGENT_CONFIG_FILE", typed}}),
            typed + ": agent.health_port: expected an integer, got string");
  const std::string broken = write("broken.yaml", "agent: [\n");
  EXPECT_NE(error_of({{"SINDRI_AGENT_CONFIG_FILE", broken}}).find("invalid configuration file: " + broken),
            std::string::npos);
  const std::string toml = write("brokkr.toml", "[agent]\n");
  EXPECT_NE(error_of({{"BROKKR_CONFIG_FILE", toml}}).find("a TOML file (Brokkr's format) is not read"),
            std::string::npos);
  EXPECT_NE(error_of({{"SINDRI_AGENT_CONFIG_FILE", (dir_ / "missing.yaml").string()}}).find("missing.yaml"),
            std::string::npos);
  EXPECT_NE(error_of({{"SINDRI_AGENT_PAK_FILE", (dir_ / "missing.pak").string()}}).find("missing.pak"),
            std::string::npos);
  const std::string empty = write("empty.pak", "\n");
  EXPECT_EQ(error_of({{"SINDRI_AGENT_PAK_FILE", empty}}), empty + ": the PAK file (agent.pak_file) is empty");
}

TEST_F(SettingsTest, EveryNameFollowsTheRuleOrSaysWhyNot) {
  for (const AgentSetting& setting : settings()) {
    if (setting.names_the_file()) continue;
    const std::string name(setting.key.substr(std::string_view("agent.").size()));
    std::string upper = name;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    std::string flag = "--" + name;
    for (char& c : flag) c = c == '_' ? '-' : c;
    EXPECT_TRUE(setting.key.starts_with("agent.")) << setting.key;
    EXPECT_EQ(setting.variable, "SINDRI_AGENT_" + upper) << setting.key;
    EXPECT_EQ(setting.flag, flag) << setting.key;
    if (!setting.brokkr_variable.empty() && setting.naming_note.empty()) {
      EXPECT_EQ(setting.brokkr_variable, "BROKKR__AGENT__" + upper) << setting.key;
    }
  }
}

}  // namespace
}  // namespace sindri::agent
