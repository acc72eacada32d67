#pragma once
// The settings of `sindri agent run`: defaults, then a configuration file
// (YAML or JSON; TOML, Brokkr's format, when its name ends in .toml), then
// Brokkr's BROKKR__AGENT__* variables, then SINDRI_AGENT_* variables, then
// flags, each layer overriding the one before.
// Brokkr's names (kubeconfig_path, BROKKR__AGENT__*, BROKKR_CONFIG_FILE) are
// read too, so a deployment of Brokkr's agent switches with its
// configuration unchanged. The agent never reads SINDRI_PAK (a person's PAK).
//
// settings() is the one list of them: the file reader, the variable readers
// and the flags of `sindri agent run` are made from it, and docs/settings.md
// prints it.

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "value/result.hpp"

namespace sindri::agent {

struct AgentSettings {
  std::string broker_url = "http://127.0.0.1:8080";
  std::string pak;
  std::string pak_file;
  std::string agent_name;
  std::string cluster_name;
  double polling_interval = 10;
  double resync_interval = 300;
  std::string kubeconfig;
  std::string kube_context;
  std::string watch_namespace;
  int64_t health_port = 8081;
  bool deployment_health_enabled = true;
  double deployment_health_interval = 60;
  std::vector<std::string> generator_ids;
  int64_t max_retries = 60;
  std::string ca_file;
  bool insecure_skip_tls_verify = false;
  std::string ws_url;  // empty: from broker_url
  bool ws_force_rest = false;
  bool telemetry = true;
  bool once = false;
  int64_t pod_log_lines_per_second = 100;
  std::string sink = "kubernetes";
  // Seconds, fractions allowed, so that tests run in fractions of a second.
  double startup_retry_interval = 1;
  double task_interval = 10;  // diagnostics, work orders, agent-delivered webhooks
  double broker_backoff_initial = 1;
  double broker_backoff_max = 60;
  double broker_timeout = 30;
  double kube_retry_initial = 1;
  double kube_retry_max = 60;
  double kube_retry_give_up = 300;
  double crd_wait = 30;  // a CRD's kinds may reach discovery this long after it is created
  double crd_poll_interval = 0.5;
  double job_poll_interval = 5;
  double work_order_claim_timeout = 3600;
  int64_t auth_failure_limit = 5;
  double telemetry_list_interval = 2;
  double pod_log_interval = 1;

  bool operator==(const AgentSettings&) const = default;
};

// One setting. The rule for names: the key is agent.NAME, the variable
// SINDRI_AGENT_NAME in capitals, Brokkr's BROKKR__AGENT__NAME, the flag
// --name with - for _.
struct AgentSetting {
  using Field = std::variant<std::monostate, std::string AgentSettings::*, int64_t AgentSettings::*,
                             double AgentSettings::*, bool AgentSettings::*, std::vector<std::string> AgentSettings::*>;
  std::string_view key = {};  // empty for the setting that names the file
  std::string_view variable = {};
  std::string_view brokkr_variable = {};  // empty where Brokkr's agent has none
  std::string_view flag = {};
  std::string_view unit = {};
  std::string_view description = {};
  std::string_view naming_note = {};  // why a name departs from the rule
  Field field = {};

  bool names_the_file() const { return std::holds_alternative<std::monostate>(field); }
  bool is_duration() const { return std::holds_alternative<double AgentSettings::*>(field); }
  bool is_integer() const { return std::holds_alternative<int64_t AgentSettings::*>(field); }
  bool is_bool() const { return std::holds_alternative<bool AgentSettings::*>(field); }
  bool is_list() const { return std::holds_alternative<std::vector<std::string> AgentSettings::*>(field); }
};

std::span<const AgentSetting> settings();

// The value `settings` holds for one setting, as a user would write it.
std::string value_text(const AgentSettings& settings, const AgentSetting& setting);
std::string default_text(const AgentSetting& setting);

// The flags given on the command line: the setting and its text.
using GivenFlags = std::vector<std::pair<const AgentSetting*, std::string>>;

// Every layer applied and checked; pak_file read into pak. Errors name the
// file, variable or flag and the setting.
Result<AgentSettings> load_settings(const GivenFlags& flags, const std::function<const char*(const char*)>& getenv);

// Each layer alone, for tests and for load_settings.
Status apply_config_file(AgentSettings& settings, const std::string& path);
Status apply_environment(AgentSettings& settings, const std::function<const char*(const char*)>& getenv);
Status apply_text(AgentSettings& settings, const AgentSetting& setting, std::string_view text,
                  const std::string& where);
Status validate_settings(const AgentSettings& settings);

}  // namespace sindri::agent
