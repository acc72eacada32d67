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
  EXPECT_TRUE(defaults.telemetry);
  EXPECT_EQ(defaults.pod_log_lines_per_second, 100);
  EXPECT_EQ(defaults.telemetry_list_interval, 2);
  EXPECT_EQ(defaults.pod_log_interval, 1);
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

TEST_F(SettingsTest, VerifiesTheBrokersCertificateUnlessToldToSkipIt) {
  const std::map<std::string, std::string> required = {
      {"SINDRI_AGENT_PAK", "p"}, {"SINDRI_AGENT_AGENT_NAME", "a"}, {"SINDRI_AGENT_CLUSTER_NAME", "c"}};
  auto skip_of = [&](std::map<std::string, std::string> variables, const GivenFlags& flags = {}) {
    variables.insert(required.begin(), required.end());
    Environment environment(variables);
    auto loaded = load_settings(flags, environment.lookup());
    return loaded.ok() ? std::string(loaded->insecure_skip_tls_verify ? "skip" : "verify") : loaded.error().message;
  };
  EXPECT_EQ(skip_of({}), "verify");
  const std::string file = write("agent.yaml", "agent:\n  insecure_skip_tls_verify: true\n");
  EXPECT_EQ(skip_of({{"SINDRI_AGENT_CONFIG_FILE", file}}), "skip");
  EXPECT_EQ(skip_of({{"SINDRI_AGENT_INSECURE_SKIP_TLS_VERIFY", "true"}}), "skip");
  EXPECT_EQ(skip_of({{"SINDRI_AGENT_INSECURE_SKIP_TLS_VERIFY", "true"}},
                    {{&by_flag("--insecure-skip-tls-verify"), "false"}}),
            "verify");
  EXPECT_EQ(skip_of({{"SINDRI_AGENT_INSECURE_SKIP_TLS_VERIFY", "yes"}}),
            "SINDRI_AGENT_INSECURE_SKIP_TLS_VERIFY: expected true or false, got \"yes\"");
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
  EXPECT_EQ(error_of({}, {{&by_flag("--pod-log-interval"), "2"}}),
            "agent.pod_log_interval: must be more than 0 and at most 1 (second)");
  EXPECT_EQ(error_of({{"SINDRI_AGENT_POD_LOG_LINES_PER_SECOND", "0"}}),
            "agent.pod_log_lines_per_second: expected at least 1");
  EXPECT_EQ(error_of({{"SINDRI_AGENT_TELEMETRY_LIST_INTERVAL", "0"}}),
            "agent.telemetry_list_interval: must be more than 0");
  EXPECT_EQ(error_of({{"SINDRI_AGENT_TELEMETRY", "off"}}),
            "SINDRI_AGENT_TELEMETRY: expected true or false, got \"off\"");

  const std::string unknown = write("unknown.yaml", "agent:\n  polling_intervall: 5\n");
  EXPECT_EQ(error_of({{"SINDRI_AGENT_CONFIG_FILE", unknown}}), unknown + ": agent.polling_intervall: unknown setting");
  const std::string typed = write("typed.yaml", "agent:\n  health_port: high\n");
  EXPECT_EQ(error_of({{"SINDRI_AGENT_CONFIG_FILE", typed}}),
            typed + ": agent.health_port: expected an integer, got string");
  const std::string broken = write("broken.yaml", "agent: [\n");
  EXPECT_NE(error_of({{"SINDRI_AGENT_CONFIG_FILE", broken}}).find("invalid configuration file: " + broken),
            std::string::npos);
  EXPECT_NE(error_of({{"SINDRI_AGENT_CONFIG_FILE", (dir_ / "missing.yaml").string()}}).find("missing.yaml"),
            std::string::npos);
  EXPECT_NE(error_of({{"SINDRI_AGENT_PAK_FILE", (dir_ / "missing.pak").string()}}).find("missing.pak"),
            std::string::npos);
  const std::string empty = write("empty.pak", "\n");
  EXPECT_EQ(error_of({{"SINDRI_AGENT_PAK_FILE", empty}}), empty + ": the PAK file (agent.pak_file) is empty");
}

// A file laid out as Brokkr's default.toml: the broker's tables around the
// agent's, comments, and [agent] keys Sindri does not know.
constexpr std::string_view kBrokkrShapedToml = R"([database]
url = "postgres://brokkr:brokkr@db:5432/brokkr"

[log]
level = "info"
format = "json"

[broker]
pak_hash = "0123abcd"
webhook_delivery_batch_size = 50

[cors]
allowed_origins = ["http://localhost:3001"]
max_age_seconds = 3600

[agent]
broker_url = "http://broker:3000"
polling_interval = 15
kubeconfig_path = "/etc/brokkr/kubeconfig"
max_retries = 20
pak = 'brokkr_BRabc_secret'
agent_name = 'edge-1'
cluster_name = "edge"
health_port = 9090
# deployment health
deployment_health_enabled = false
deployment_health_interval = 45
ws_force_rest = true
ws_url = "ws://proxy:8666/internal/ws/agent"
kube_event_uid_cache_cap = 10000
watch_namespace = "apps"
generator_ids = "g1, g2"
a_key_of_a_later_brokkr = { any = ["thing"] }

[telemetry]
enabled = false
sampling_rate = 0.1

[telemetry.agent]
service_name = "brokkr-agent"
)";

TEST_F(SettingsTest, BrokkrsTomlFileIsReadAsBrokkrsAgentReadsIt) {
  const std::string file = write("brokkr.toml", std::string(kBrokkrShapedToml));
  Environment environment({{"BROKKR_CONFIG_FILE", file}, {"BROKKR__AGENT__HEALTH_PORT", "9091"}});
  auto loaded = load_settings({}, environment.lookup());
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ(loaded->broker_url, "http://broker:3000");
  EXPECT_EQ(loaded->polling_interval, 15);
  EXPECT_EQ(loaded->kubeconfig, "/etc/brokkr/kubeconfig");
  EXPECT_TRUE(loaded->ws_force_rest);
  EXPECT_EQ(loaded->ws_url, "ws://proxy:8666/internal/ws/agent");
  EXPECT_EQ(loaded->max_retries, 20);
  EXPECT_EQ(loaded->pak, "brokkr_BRabc_secret");
  EXPECT_EQ(loaded->agent_name, "edge-1");
  EXPECT_EQ(loaded->cluster_name, "edge");
  EXPECT_EQ(loaded->health_port, 9091);  // Brokkr's variable over its file, as in Brokkr
  EXPECT_FALSE(loaded->deployment_health_enabled);
  EXPECT_EQ(loaded->deployment_health_interval, 45);
  EXPECT_EQ(loaded->watch_namespace, "apps");
  EXPECT_EQ(loaded->generator_ids, (std::vector<std::string>{"g1", "g2"}));
  EXPECT_EQ(loaded->resync_interval, AgentSettings().resync_interval);
}

TEST_F(SettingsTest, ATomlFileTakesSindrisKeysAndTypes) {
  const std::string file = write("agent.toml",
                                 "[agent]\nagent_name = \"a\"\ncluster_name = \"c\"\npak = \"p\"\n"
                                 "polling_interval = 0.25\nresync_interval = 2\nsink = \"dir:/tmp/out\"\n"
                                 "generator_ids = [\"g1\", \"g2\"]\n"
                                 "[agent.unknown_table]\nignored = 1\n");
  auto check = [](const Result<AgentSettings>& loaded, std::string_view how) {
    ASSERT_TRUE(loaded.ok()) << how << ": " << loaded.error().message;
    EXPECT_EQ(loaded->polling_interval, 0.25) << how;
    EXPECT_EQ(loaded->resync_interval, 2) << how;
    EXPECT_EQ(loaded->sink, "dir:/tmp/out") << how;
    EXPECT_EQ(loaded->generator_ids, (std::vector<std::string>{"g1", "g2"})) << how;
  };
  check(load_settings({{&by_flag("--config"), file}}, Environment({}).lookup()), "--config");
  check(load_settings({}, Environment({{"SINDRI_AGENT_CONFIG_FILE", file}}).lookup()), "SINDRI_AGENT_CONFIG_FILE");
}

TEST_F(SettingsTest, ATomlFileWithoutAnAgentTableSetsNothing) {
  AgentSettings settings;
  ASSERT_TRUE(apply_config_file(settings, write("broker.toml", "[broker]\npak_hash = \"x\"\n")).ok());
  ASSERT_TRUE(apply_config_file(settings, write("empty.toml", "")).ok());
  EXPECT_EQ(settings, AgentSettings());
}

TEST_F(SettingsTest, BadTomlFilesNameFileLineColumnOrKey) {
  auto error_of = [&](const std::string& name, const std::string& text) {
    AgentSettings settings;
    const Status status = apply_config_file(settings, write(name, text));
    return status.ok() ? std::string("(no error)") : status.error().message;
  };
  const std::string syntax = (dir_ / "syntax.toml").string();
  EXPECT_EQ(error_of("syntax.toml", "[agent]\nagent_name = \"a\"\nhealth_port = = 1\n")
                .rfind("invalid configuration file: " + syntax + ":3:15: ", 0),
            0u)
      << error_of("syntax.toml", "[agent]\nagent_name = \"a\"\nhealth_port = = 1\n");
  const std::string port = (dir_ / "port.toml").string();
  EXPECT_EQ(error_of("port.toml", "[agent]\nhealth_port = \"high\"\n"),
            port + ": agent.health_port: expected an integer, got string");
  const std::string interval = (dir_ / "interval.toml").string();
  EXPECT_EQ(error_of("interval.toml", "[agent]\npolling_interval = 1979-05-27\n"),
            interval + ": agent.polling_interval: expected a number of seconds (fractions allowed), got string");
  EXPECT_EQ(error_of("interval.toml", "[agent]\npolling_interval = -inf\n"),
            interval + ": agent.polling_interval: expected a number of seconds (fractions allowed), got -inf");
  const std::string flag = (dir_ / "flag.toml").string();
  EXPECT_EQ(error_of("flag.toml", "[agent]\ndeployment_health_enabled = \"yes\"\n"),
            flag + ": agent.deployment_health_enabled: expected true or false, got string");
  const std::string table = (dir_ / "table.toml").string();
  EXPECT_EQ(error_of("table.toml", "[agent.pak]\nvalue = \"p\"\n"),
            table + ": agent.pak: expected a string, got object");
  const std::string list = (dir_ / "list.toml").string();
  EXPECT_EQ(error_of("list.toml", "[agent]\ngenerator_ids = [\"g1\", 2]\n"),
            list + ": agent.generator_ids[1]: expected a string, got integer");
  const std::string scalar = (dir_ / "scalar.toml").string();
  EXPECT_EQ(error_of("scalar.toml", "agent = 5\n"), scalar + ": agent: expected a table of settings");
  AgentSettings settings;
  const Status missing = apply_config_file(settings, (dir_ / "missing.toml").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("missing.toml"), std::string::npos) << missing.error().message;
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
