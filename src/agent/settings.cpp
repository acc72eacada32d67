#include "agent/settings.hpp"

#include <array>
#include <charconv>
#include <cmath>

#include "agent/toml_config.hpp"
#include "value/file_text.hpp"
#include "value/setting_text.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::agent {
namespace {

const std::array kSettings = {
    AgentSetting{.key = "",
                 .variable = "SINDRI_AGENT_CONFIG_FILE",
                 .brokkr_variable = "BROKKR_CONFIG_FILE",
                 .flag = "--config",
                 .description = "Configuration file, read before the variables and the flags: YAML or JSON "
                                "(settings under `agent:`), or TOML as Brokkr's (settings in `[agent]`) when its "
                                "name ends in .toml",
                 .naming_note = "The file cannot name itself, so it has no key; Brokkr's variable is "
                                "BROKKR_CONFIG_FILE. In a TOML file, keys of `[agent]` that Sindri does not "
                                "know are ignored, as Brokkr's agent ignores them, so Brokkr's files load "
                                "unchanged; YAML and JSON files refuse them.",
                 .field = std::monostate{}},
    AgentSetting{.key = "agent.broker_url",
                 .variable = "SINDRI_AGENT_BROKER_URL",
                 .brokkr_variable = "BROKKR__AGENT__BROKER_URL",
                 .flag = "--broker-url",
                 .description = "The broker, http://HOST:PORT or https://...",
                 .field = &AgentSettings::broker_url},
    AgentSetting{.key = "agent.pak",
                 .variable = "SINDRI_AGENT_PAK",
                 .brokkr_variable = "BROKKR__AGENT__PAK",
                 .flag = "--pak",
                 .description = "The agent's PAK (prefer pak_file: a flag shows in the process list)",
                 .field = &AgentSettings::pak},
    AgentSetting{.key = "agent.pak_file",
                 .variable = "SINDRI_AGENT_PAK_FILE",
                 .flag = "--pak-file",
                 .description = "A file holding the agent's PAK (a mounted Secret); wins over pak",
                 .field = &AgentSettings::pak_file},
    AgentSetting{.key = "agent.agent_name",
                 .variable = "SINDRI_AGENT_AGENT_NAME",
                 .brokkr_variable = "BROKKR__AGENT__AGENT_NAME",
                 .flag = "--agent-name",
                 .description = "The agent's name at the broker (required)",
                 .field = &AgentSettings::agent_name},
    AgentSetting{.key = "agent.cluster_name",
                 .variable = "SINDRI_AGENT_CLUSTER_NAME",
                 .brokkr_variable = "BROKKR__AGENT__CLUSTER_NAME",
                 .flag = "--cluster-name",
                 .description = "The agent's cluster name at the broker (required)",
                 .field = &AgentSettings::cluster_name},
    AgentSetting{.key = "agent.polling_interval",
                 .variable = "SINDRI_AGENT_POLLING_INTERVAL",
                 .brokkr_variable = "BROKKR__AGENT__POLLING_INTERVAL",
                 .flag = "--polling-interval",
                 .unit = "seconds",
                 .description = "Heartbeat and target-state poll interval",
                 .field = &AgentSettings::polling_interval},
    AgentSetting{.key = "agent.resync_interval",
                 .variable = "SINDRI_AGENT_RESYNC_INTERVAL",
                 .flag = "--resync-interval",
                 .unit = "seconds",
                 .description = "Applies everything again this often, correcting drift",
                 .field = &AgentSettings::resync_interval},
    AgentSetting{.key = "agent.kubeconfig",
                 .variable = "SINDRI_AGENT_KUBECONFIG",
                 .brokkr_variable = "BROKKR__AGENT__KUBECONFIG_PATH",
                 .flag = "--kubeconfig",
                 .description = "Kubeconfig file(s), ':'-separated; empty: $KUBECONFIG, in-cluster, ~/.kube/config",
                 .naming_note = "Brokkr's key agent.kubeconfig_path is read too.",
                 .field = &AgentSettings::kubeconfig},
    AgentSetting{.key = "agent.kube_context",
                 .variable = "SINDRI_AGENT_KUBE_CONTEXT",
                 .flag = "--kube-context",
                 .description = "Kubeconfig context; empty: its current-context",
                 .field = &AgentSettings::kube_context},
    AgentSetting{.key = "agent.watch_namespace",
                 .variable = "SINDRI_AGENT_WATCH_NAMESPACE",
                 .brokkr_variable = "BROKKR__AGENT__WATCH_NAMESPACE",
                 .flag = "--watch-namespace",
                 .description = "Namespace of objects that name none, and the only one pruned; empty: all",
                 .field = &AgentSettings::watch_namespace},
    AgentSetting{.key = "agent.health_port",
                 .variable = "SINDRI_AGENT_HEALTH_PORT",
                 .brokkr_variable = "BROKKR__AGENT__HEALTH_PORT",
                 .flag = "--health-port",
                 .unit = "port",
                 .description = "Port of /healthz, /readyz, /health and /metrics (0: any free port)",
                 .field = &AgentSettings::health_port},
    AgentSetting{.key = "agent.deployment_health_enabled",
                 .variable = "SINDRI_AGENT_DEPLOYMENT_HEALTH_ENABLED",
                 .brokkr_variable = "BROKKR__AGENT__DEPLOYMENT_HEALTH_ENABLED",
                 .flag = "--deployment-health-enabled",
                 .description = "Report the health of applied workloads (true or false)",
                 .field = &AgentSettings::deployment_health_enabled},
    AgentSetting{.key = "agent.deployment_health_interval",
                 .variable = "SINDRI_AGENT_DEPLOYMENT_HEALTH_INTERVAL",
                 .brokkr_variable = "BROKKR__AGENT__DEPLOYMENT_HEALTH_INTERVAL",
                 .flag = "--deployment-health-interval",
                 .unit = "seconds",
                 .description = "Workload health report interval",
                 .field = &AgentSettings::deployment_health_interval},
    AgentSetting{.key = "agent.generator_ids",
                 .variable = "SINDRI_AGENT_GENERATOR_IDS",
                 .brokkr_variable = "BROKKR__AGENT__GENERATOR_IDS",
                 .flag = "--generator-ids",
                 .description = "Generators to register with at start-up (comma-separated)",
                 .field = &AgentSettings::generator_ids},
    AgentSetting{.key = "agent.max_retries",
                 .variable = "SINDRI_AGENT_MAX_RETRIES",
                 .brokkr_variable = "BROKKR__AGENT__MAX_RETRIES",
                 .flag = "--max-retries",
                 .unit = "attempts",
                 .description = "Start-up waits for the broker's /readyz this many times",
                 .field = &AgentSettings::max_retries},
    AgentSetting{.key = "agent.ca_file",
                 .variable = "SINDRI_AGENT_CA_FILE",
                 .flag = "--ca-file",
                 .description = "PEM certificates trusted for an HTTPS broker, besides the system's",
                 .field = &AgentSettings::ca_file},
    AgentSetting{.key = "agent.insecure_skip_tls_verify",
                 .variable = "SINDRI_AGENT_INSECURE_SKIP_TLS_VERIFY",
                 .flag = "--insecure-skip-tls-verify",
                 .description = "Take any certificate from an HTTPS broker, unchecked (true or false): anyone on "
                                "the way can read the PAK",
                 .field = &AgentSettings::insecure_skip_tls_verify},
    AgentSetting{.key = "agent.ws_url",
                 .variable = "SINDRI_AGENT_WS_URL",
                 .brokkr_variable = "BROKKR__AGENT__WS_URL",
                 .flag = "--ws-url",
                 .description = "The broker's agent channel; empty: the broker URL as ws:// or wss:// with "
                                "/internal/ws/agent",
                 .field = &AgentSettings::ws_url},
    AgentSetting{.key = "agent.ws_force_rest",
                 .variable = "SINDRI_AGENT_WS_FORCE_REST",
                 .brokkr_variable = "BROKKR__AGENT__WS_FORCE_REST",
                 .flag = "--ws-force-rest",
                 .description = "Never open the broker's agent channel; only poll (true or false)",
                 .field = &AgentSettings::ws_force_rest},
    AgentSetting{.key = "agent.once",
                 .variable = "SINDRI_AGENT_ONCE",
                 .flag = "--once",
                 .description = "Apply the target state once, report its events and exit: 0 when every object "
                                "applied, 1 otherwise (no health endpoints, channel or telemetry; for a pipeline or "
                                "a directory sink) (true or false)",
                 .field = &AgentSettings::once},
    AgentSetting{.key = "agent.telemetry",
                 .variable = "SINDRI_AGENT_TELEMETRY",
                 .flag = "--telemetry",
                 .description = "Send the Kubernetes events of applied objects and the log lines of pods annotated "
                                "brokkr.io/stream-logs: \"true\" up the agent channel (true or false)",
                 .field = &AgentSettings::telemetry},
    AgentSetting{.key = "agent.telemetry_list_interval",
                 .variable = "SINDRI_AGENT_TELEMETRY_LIST_INTERVAL",
                 .flag = "--telemetry-list-interval",
                 .unit = "seconds",
                 .description = "How often the cluster's events are listed for new ones, and its pods for those "
                                "whose logs to follow",
                 .field = &AgentSettings::telemetry_list_interval},
    AgentSetting{.key = "agent.pod_log_interval",
                 .variable = "SINDRI_AGENT_POD_LOG_INTERVAL",
                 .flag = "--pod-log-interval",
                 .unit = "seconds",
                 .description = "How often the followed pods' logs are read for new lines (at most 1)",
                 .field = &AgentSettings::pod_log_interval},
    AgentSetting{.key = "agent.pod_log_lines_per_second",
                 .variable = "SINDRI_AGENT_POD_LOG_LINES_PER_SECOND",
                 .flag = "--pod-log-lines-per-second",
                 .description = "Log lines sent per container each second; the rest are counted in a log_gap",
                 .field = &AgentSettings::pod_log_lines_per_second},
    AgentSetting{.key = "agent.sink",
                 .variable = "SINDRI_AGENT_SINK",
                 .flag = "--sink",
                 .description = "`kubernetes`, or `dir:PATH`: each object as PATH/STACK/GROUP_KIND_NAMESPACE_NAME.yaml",
                 .field = &AgentSettings::sink},
    AgentSetting{.key = "agent.startup_retry_interval",
                 .variable = "SINDRI_AGENT_STARTUP_RETRY_INTERVAL",
                 .flag = "--startup-retry-interval",
                 .unit = "seconds",
                 .description = "Wait between start-up attempts to reach the broker",
                 .field = &AgentSettings::startup_retry_interval},
    AgentSetting{.key = "agent.task_interval",
                 .variable = "SINDRI_AGENT_TASK_INTERVAL",
                 .flag = "--task-interval",
                 .unit = "seconds",
                 .description = "Diagnostics, work orders and agent-delivered webhooks are polled this often",
                 .field = &AgentSettings::task_interval},
    AgentSetting{.key = "agent.broker_backoff_initial",
                 .variable = "SINDRI_AGENT_BROKER_BACKOFF_INITIAL",
                 .flag = "--broker-backoff-initial",
                 .unit = "seconds",
                 .description = "First wait after the broker failed (down, 5xx); doubles each time",
                 .field = &AgentSettings::broker_backoff_initial},
    AgentSetting{.key = "agent.broker_backoff_max",
                 .variable = "SINDRI_AGENT_BROKER_BACKOFF_MAX",
                 .flag = "--broker-backoff-max",
                 .unit = "seconds",
                 .description = "Longest wait after the broker failed",
                 .field = &AgentSettings::broker_backoff_max},
    AgentSetting{.key = "agent.broker_timeout",
                 .variable = "SINDRI_AGENT_BROKER_TIMEOUT",
                 .flag = "--broker-timeout",
                 .unit = "seconds",
                 .description = "A call to the broker (or a webhook receiver) fails after this long",
                 .field = &AgentSettings::broker_timeout},
    AgentSetting{.key = "agent.kube_retry_initial",
                 .variable = "SINDRI_AGENT_KUBE_RETRY_INITIAL",
                 .flag = "--kube-retry-initial",
                 .unit = "seconds",
                 .description = "First wait before a Kubernetes call that failed with 429/500/503/504 is retried",
                 .field = &AgentSettings::kube_retry_initial},
    AgentSetting{.key = "agent.kube_retry_max",
                 .variable = "SINDRI_AGENT_KUBE_RETRY_MAX",
                 .flag = "--kube-retry-max",
                 .unit = "seconds",
                 .description = "Longest wait between Kubernetes retries",
                 .field = &AgentSettings::kube_retry_max},
    AgentSetting{.key = "agent.kube_retry_give_up",
                 .variable = "SINDRI_AGENT_KUBE_RETRY_GIVE_UP",
                 .flag = "--kube-retry-give-up",
                 .unit = "seconds",
                 .description = "A Kubernetes call is given up after retrying this long",
                 .field = &AgentSettings::kube_retry_give_up},
    AgentSetting{.key = "agent.crd_wait",
                 .variable = "SINDRI_AGENT_CRD_WAIT",
                 .flag = "--crd-wait",
                 .unit = "seconds",
                 .description = "How long an object waits for the kinds of a CRD it creates to appear in discovery",
                 .field = &AgentSettings::crd_wait},
    AgentSetting{.key = "agent.crd_poll_interval",
                 .variable = "SINDRI_AGENT_CRD_POLL_INTERVAL",
                 .flag = "--crd-poll-interval",
                 .unit = "seconds",
                 .description = "How often discovery is read again while waiting for a CRD's kinds",
                 .field = &AgentSettings::crd_poll_interval},
    AgentSetting{.key = "agent.job_poll_interval",
                 .variable = "SINDRI_AGENT_JOB_POLL_INTERVAL",
                 .flag = "--job-poll-interval",
                 .unit = "seconds",
                 .description = "A work order's Jobs are checked this often",
                 .field = &AgentSettings::job_poll_interval},
    AgentSetting{.key = "agent.work_order_claim_timeout",
                 .variable = "SINDRI_AGENT_WORK_ORDER_CLAIM_TIMEOUT",
                 .flag = "--work-order-claim-timeout",
                 .unit = "seconds",
                 .description = "A work order's claim lasts this long at the broker",
                 .field = &AgentSettings::work_order_claim_timeout},
    AgentSetting{.key = "agent.auth_failure_limit",
                 .variable = "SINDRI_AGENT_AUTH_FAILURE_LIMIT",
                 .flag = "--auth-failure-limit",
                 .unit = "answers",
                 .description = "The agent exits 1 after the broker refuses its PAK (401) this many times in a row",
                 .field = &AgentSettings::auth_failure_limit},
};

// Keys of Brokkr's [agent] table that Sindri's agent has no use for (the
// cache of its Kubernetes event stream), accepted so that its files still
// load.
constexpr std::array kIgnoredBrokkrKeys = {std::string_view("kube_event_uid_cache_cap")};

Status apply_value(AgentSettings& settings, const AgentSetting& setting, const Value& value, const std::string& where) {
  return std::visit(
      [&](const auto& field) -> Status {
        using Field = std::decay_t<decltype(field)>;
        if constexpr (std::is_same_v<Field, std::string AgentSettings::*>) {
          if (!value.is_string()) return make_error(where + ": expected a string, got " + value.kind_name());
          settings.*field = std::string(value.get_string());
        } else if constexpr (std::is_same_v<Field, int64_t AgentSettings::*>) {
          if (!value.is_int()) return make_error(where + ": expected an integer, got " + value.kind_name());
          settings.*field = value.get_int();
        } else if constexpr (std::is_same_v<Field, double AgentSettings::*>) {
          if (!value.is_number() || !std::isfinite(value.as_double()) || value.as_double() < 0) {
            return make_error(where + ": expected a number of seconds (fractions allowed), got " +
                              (value.is_number() ? duration_text(value.as_double()) : value.kind_name()));
          }
          settings.*field = value.as_double();
        } else if constexpr (std::is_same_v<Field, bool AgentSettings::*>) {
          if (!value.is_bool()) return make_error(where + ": expected true or false, got " + value.kind_name());
          settings.*field = value.get_bool();
        } else if constexpr (std::is_same_v<Field, std::vector<std::string> AgentSettings::*>) {
          SINDRI_TRY(items, string_list(value, where));
          settings.*field = std::move(items);
        } else {
          return make_error(where + ": names the configuration file, which sets nothing itself");
        }
        return Ok{};
      },
      setting.field);
}

const AgentSetting* find_by_name(std::string_view name) {
  if (name == "kubeconfig_path") name = "kubeconfig";  // Brokkr's key
  for (const AgentSetting& setting : kSettings) {
    if (!setting.key.empty() && setting.key.substr(std::string_view("agent.").size()) == name) return &setting;
  }
  return nullptr;
}

bool is_ignored_brokkr_key(std::string_view name) {
  for (std::string_view key : kIgnoredBrokkrKeys) {
    if (key == name) return true;
  }
  return false;
}

}  // namespace

std::span<const AgentSetting> settings() { return kSettings; }

std::string value_text(const AgentSettings& settings, const AgentSetting& setting) {
  return std::visit(
      [&](const auto& field) -> std::string {
        using Field = std::decay_t<decltype(field)>;
        if constexpr (std::is_same_v<Field, std::string AgentSettings::*>) return settings.*field;
        if constexpr (std::is_same_v<Field, int64_t AgentSettings::*>) return std::to_string(settings.*field);
        if constexpr (std::is_same_v<Field, double AgentSettings::*>) return duration_text(settings.*field);
        if constexpr (std::is_same_v<Field, bool AgentSettings::*>) return settings.*field ? "true" : "false";
        if constexpr (std::is_same_v<Field, std::vector<std::string> AgentSettings::*>) {
          std::string joined;
          for (const std::string& item : settings.*field) joined += (joined.empty() ? "" : ",") + item;
          return joined;
        }
        return "";
      },
      setting.field);
}

std::string default_text(const AgentSetting& setting) {
  static const AgentSettings defaults;
  return value_text(defaults, setting);
}

Status apply_text(AgentSettings& settings, const AgentSetting& setting, std::string_view text,
                  const std::string& where) {
  const std::string quoted = "\"" + std::string(text) + "\"";
  if (setting.is_integer()) {
    SINDRI_TRY(number, integer_from_text(text, where));
    return apply_value(settings, setting, Value(number), where);
  }
  if (setting.is_duration()) {
    double seconds = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seconds);
    if (error != std::errc() || end != text.data() + text.size()) {
      return make_error(where + ": expected a number of seconds (fractions allowed), got " + quoted);
    }
    return apply_value(settings, setting, Value(seconds), where);
  }
  if (setting.is_bool()) {
    if (text != "true" && text != "false") return make_error(where + ": expected true or false, got " + quoted);
    return apply_value(settings, setting, Value(text == "true"), where);
  }
  return apply_value(settings, setting, Value(text), where);
}

Status apply_config_file(AgentSettings& settings, const std::string& path) {
  SINDRI_TRY(text, read_file_text(path, "configuration file"));
  // Brokkr's file is TOML, read as Brokkr's agent reads it: keys of [agent]
  // it does not know are skipped (serde, no deny_unknown_fields), so a file
  // written for any Brokkr version loads. Sindri's own YAML and JSON files
  // refuse them, so that a misspelt key is found.
  const bool toml = path.ends_with(".toml");
  Value parsed;
  if (toml) {
    auto read = parse_toml(text, path);
    if (!read.ok()) return make_error("invalid configuration file: " + read.error().message);
    parsed = std::move(*read);
  } else {
    auto read = parse_yaml(text, path);
    if (!read.ok()) return make_error("invalid configuration file: " + read.error().describe());
    parsed = std::move(*read);
  }
  if (parsed.is_null()) return Ok{};
  if (!parsed.is_object()) return make_error(path + ": the configuration must be a mapping of settings");
  // Brokkr's file holds the broker's sections too; the agent reads its own.
  const Value* section = parsed.find("agent");
  if (!section || section->is_null()) return Ok{};
  if (!section->is_object()) {
    return make_error(path + ": agent: expected a " + (toml ? "table" : "mapping") + " of settings");
  }
  for (const Member& member : section->get_object()) {
    const std::string_view name = member.key.get_string();
    const std::string where = path + ": agent." + std::string(name);
    if (is_ignored_brokkr_key(name)) continue;
    const AgentSetting* setting = find_by_name(name);
    if (!setting) {
      if (toml) continue;
      return make_error(where + ": unknown setting");
    }
    SINDRI_CHECK(apply_value(settings, *setting, member.value, where));
  }
  return Ok{};
}

Status apply_environment(AgentSettings& settings, const std::function<const char*(const char*)>& getenv) {
  // Brokkr's variables first, so that Sindri's win.
  for (const bool brokkr : {true, false}) {
    for (const AgentSetting& setting : kSettings) {
      if (setting.names_the_file()) continue;
      const std::string variable(brokkr ? setting.brokkr_variable : setting.variable);
      if (variable.empty()) continue;
      if (const char* text = getenv(variable.c_str())) SINDRI_CHECK(apply_text(settings, setting, text, variable));
    }
  }
  return Ok{};
}

Status validate_settings(const AgentSettings& settings) {
  auto require = [](const std::string& value, std::string_view name) -> Status {
    if (!value.empty()) return Ok{};
    const AgentSetting& setting = *find_by_name(name);
    return make_error(std::string(setting.key) + " is not set (" + std::string(setting.flag) + " or " +
                      std::string(setting.variable) + ")");
  };
  SINDRI_CHECK(require(settings.broker_url, "broker_url"));
  SINDRI_CHECK(require(settings.agent_name, "agent_name"));
  SINDRI_CHECK(require(settings.cluster_name, "cluster_name"));
  if (settings.pak.empty()) {
    return make_error(
        "no PAK: set agent.pak_file (--pak-file, SINDRI_AGENT_PAK_FILE) or agent.pak "
        "(SINDRI_AGENT_PAK); SINDRI_PAK, a person's PAK, is never read by the agent");
  }
  if (!settings.broker_url.starts_with("http://") && !settings.broker_url.starts_with("https://")) {
    return make_error("agent.broker_url: expected http://... or https://..., got \"" + settings.broker_url + "\"");
  }
  if (settings.health_port < 0 || settings.health_port > 65535) {
    return make_error("agent.health_port: expected 0 to 65535, got " + std::to_string(settings.health_port));
  }
  if (settings.max_retries < 1) return make_error("agent.max_retries: expected at least 1");
  if (settings.auth_failure_limit < 1) return make_error("agent.auth_failure_limit: expected at least 1");
  if (settings.sink != "kubernetes" && !(settings.sink.starts_with("dir:") && settings.sink.size() > 4)) {
    return make_error("agent.sink: expected kubernetes or dir:PATH, got \"" + settings.sink + "\"");
  }
  if (settings.polling_interval <= 0) return make_error("agent.polling_interval: must be more than 0");
  if (settings.task_interval <= 0) return make_error("agent.task_interval: must be more than 0");
  if (settings.deployment_health_interval <= 0) {
    return make_error("agent.deployment_health_interval: must be more than 0");
  }
  if (settings.telemetry_list_interval <= 0) return make_error("agent.telemetry_list_interval: must be more than 0");
  // The rate limit counts the lines of each second as they are read: read less often, and a read
  // would bring more than a second's lines to one count.
  if (settings.pod_log_interval <= 0 || settings.pod_log_interval > 1) {
    return make_error("agent.pod_log_interval: must be more than 0 and at most 1 (second)");
  }
  if (settings.pod_log_lines_per_second < 1) return make_error("agent.pod_log_lines_per_second: expected at least 1");
  return Ok{};
}

Result<AgentSettings> load_settings(const GivenFlags& flags, const std::function<const char*(const char*)>& getenv) {
  AgentSettings settings;
  std::string file;
  if (const char* brokkr_file = getenv("BROKKR_CONFIG_FILE")) file = brokkr_file;
  if (const char* sindri_file = getenv("SINDRI_AGENT_CONFIG_FILE")) file = sindri_file;
  for (const auto& [setting, text] : flags) {
    if (setting->names_the_file()) file = text;
  }
  if (!file.empty()) SINDRI_CHECK(apply_config_file(settings, file));
  SINDRI_CHECK(apply_environment(settings, getenv));
  for (const auto& [setting, text] : flags) {
    if (!setting->names_the_file()) SINDRI_CHECK(apply_text(settings, *setting, text, std::string(setting->flag)));
  }
  if (!settings.pak_file.empty()) {
    SINDRI_TRY(text, read_file_text(settings.pak_file, "PAK file (agent.pak_file)"));
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    if (text.empty()) return make_error(settings.pak_file + ": the PAK file (agent.pak_file) is empty");
    settings.pak = std::move(text);
  }
  SINDRI_CHECK(validate_settings(settings));
  return settings;
}

}  // namespace sindri::agent
