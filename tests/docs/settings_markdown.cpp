#include "docs/settings_markdown.hpp"

#include <sstream>

#include "agent/settings.hpp"
#include "broker/config.hpp"

namespace sindri::docs {
namespace {

std::string code_or_none(std::string_view text) {
  return text.empty() ? "none" : "`" + std::string(text) + "`";
}

void write_table(std::ostringstream& out) {
  out << "| key | variable | flag | unit | default | reloadable | description |\n"
      << "| --- | --- | --- | --- | --- | --- | --- |\n";
  for (const broker::Setting& setting : broker::settings()) {
    out << "| " << code_or_none(setting.key) << " | `" << setting.variable << "` | " << code_or_none(setting.flag)
        << " | " << (setting.unit.empty() ? "" : std::string(setting.unit)) << " | "
        << code_or_none(broker::default_text(setting)) << " | " << (setting.reloadable ? "yes" : "no") << " | "
        << setting.description << " |\n";
  }
}

// Every key set to its default, sections as nested mappings.
void write_example_file(std::ostringstream& out) {
  out << "```yaml\n";
  std::string open_section;
  for (const broker::Setting& setting : broker::settings()) {
    if (setting.key.empty()) continue;
    const std::string key(setting.key);
    const size_t dot = key.find('.');
    const std::string section = dot == std::string::npos ? "" : key.substr(0, dot);
    if (section != open_section && !section.empty()) out << section << ":\n";
    open_section = section;
    const std::string value = broker::default_text(setting);
    out << (section.empty() ? "" : "  ") << key.substr(dot == std::string::npos ? 0 : dot + 1) << ":"
        << " " << (setting.is_number() ? value : setting.is_list() ? "[" + value + "]" : "\"" + value + "\"") << "\n";
  }
  out << "```\n";
}

void write_naming_notes(std::ostringstream& out) {
  for (const broker::Setting& setting : broker::settings()) {
    if (setting.naming_note.empty()) continue;
    out << "- " << code_or_none(setting.key.empty() ? setting.variable : setting.key) << ": " << setting.naming_note
        << "\n";
  }
}

void write_agent_table(std::ostringstream& out) {
  out << "| key | variable | Brokkr's variable | flag | unit | default | description |\n"
      << "| --- | --- | --- | --- | --- | --- | --- |\n";
  for (const agent::AgentSetting& setting : agent::settings()) {
    out << "| " << code_or_none(setting.key) << " | `" << setting.variable << "` | "
        << code_or_none(setting.brokkr_variable) << " | " << code_or_none(setting.flag) << " | " << setting.unit
        << " | " << code_or_none(agent::default_text(setting)) << " | " << setting.description << " |\n";
  }
}

void write_agent_notes(std::ostringstream& out) {
  for (const agent::AgentSetting& setting : agent::settings()) {
    if (setting.naming_note.empty()) continue;
    out << "- " << code_or_none(setting.key.empty() ? setting.variable : setting.key) << ": " << setting.naming_note
        << "\n";
  }
}

// The agent's section: its settings, how they layer, Brokkr's names.
void write_agent_section(std::ostringstream& out) {
  out << "\n# Settings of `sindri agent run`\n\n"
      << "The agent reads its defaults, then a configuration file (YAML or JSON, or TOML, Brokkr's\n"
      << "format, when its name ends in `.toml`; the settings under `agent:` or `[agent]`; other\n"
      << "sections, such as the broker's in a file Brokkr shares between both, are ignored), then\n"
      << "Brokkr's `BROKKR__AGENT__*` variables, then `SINDRI_AGENT_*` variables, then\n"
      << "flags; each layer overrides the one before, so a deployment of Brokkr's agent keeps its\n"
      << "variables. The agent never reads `SINDRI_PAK`, a person's PAK for the client verbs. Every\n"
      << "interval, timeout and backoff takes fractions of a second. A bad value stops the agent\n"
      << "(exit 2) with an error naming the file, variable or flag.\n\n";
  write_agent_table(out);
  out << "\nBrokkr's key `kube_event_uid_cache_cap` (a cache of its Kubernetes event stream) is accepted in\n"
      << "the file and ignored.\n\n"
      << "## Agent names outside the rule\n\n"
      << "The rule: the key is `agent.NAME`, the variable `SINDRI_AGENT_` and NAME in capitals,\n"
      << "Brokkr's `BROKKR__AGENT__` and NAME in capitals, the flag `--` and NAME with `-` for `_`.\n\n";
  write_agent_notes(out);
}

}  // namespace

std::string settings_markdown() {
  std::ostringstream out;
  out << "# Settings of `sindri serve`\n\n"
      << "<!-- Generated from broker::settings() in src/broker/config.cpp by tests/docs/; do not edit.\n"
      << "     Regenerate with: " << kRegenerateSettingsDoc << " -->\n\n"
      << "The broker reads its defaults, then a configuration file (YAML or JSON), then `SINDRI_*`\n"
      << "environment variables, then flags; each layer overrides the one before. A key's dots are\n"
      << "nested mappings in the file. An unknown key, a value of the wrong type or a value out of\n"
      << "range stops the broker with an error naming the file and the setting. A running broker\n"
      << "reads the settings again on `POST /api/v1/admin/config/reload` and when the file given by\n"
      << "`--config` changes; those marked reloadable apply at once, a change to any other takes a\n"
      << "restart. Where a limit says so, 0 means none.\n\n";
  write_table(out);
  out << "\nA configuration file holding every default:\n\n";
  write_example_file(out);
  out << "\n`sindri serve` also takes `--address-file FILE` (write the bound HOST:PORT there once\n"
      << "listening) and `--rotate-admin-pak` (see [cli.md](cli.md#sindri-serve)); they are actions, not settings.\n\n"
      << "## Names outside the rule\n\n"
      << "The rule: a key sits in a dotted section (`tls.cert_file`), its variable is `SINDRI_` and the\n"
      << "key in capitals with `_` for `.` (`SINDRI_TLS_CERT_FILE`), its flag is `--` and the key with\n"
      << "`-` for `.` and `_` (`--tls-cert-file`). These names came before the rule and keep working:\n\n";
  write_naming_notes(out);
  write_agent_section(out);
  return out.str();
}

}  // namespace sindri::docs
