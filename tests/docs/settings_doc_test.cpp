// docs/settings.md against broker::settings() and agent::settings(), and each against
// the names it gives: the rule for them and the flags of `sindri serve` and `sindri agent run`.

#include <cctype>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "agent/settings.hpp"
#include "broker/config.hpp"
#include "docs/settings_markdown.hpp"

namespace sindri::docs {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The first line that differs, both ways, for a message a reader can act on.
std::string first_difference(const std::string& committed, const std::string& generated) {
  const auto old_lines = lines_of(committed), new_lines = lines_of(generated);
  size_t line = 0;
  while (line < old_lines.size() && line < new_lines.size() && old_lines[line] == new_lines[line]) ++line;
  auto at = [&](const std::vector<std::string>& lines) {
    return line < lines.size() ? lines[line] : std::string("(end of file)");
  };
  return "line " + std::to_string(line + 1) + "\n  docs/settings.md: " + at(old_lines) +
         "\n  the code prints:  " + at(new_lines);
}

TEST(SettingsDoc, CommittedFileIsWhatTheCodePrints) {
  std::ifstream in(SINDRI_SOURCE_DIR "/docs/settings.md", std::ios::binary);
  ASSERT_TRUE(in) << "docs/settings.md is missing; write it with: " << kRegenerateSettingsDoc;
  std::ostringstream committed;
  committed << in.rdbuf();
  const std::string generated = settings_markdown();
  EXPECT_TRUE(committed.str() == generated)
      << "docs/settings.md differs from broker::settings(), first at " << first_difference(committed.str(), generated)
      << "\nRegenerate it with: " << kRegenerateSettingsDoc;
}

TEST(SettingsDoc, TheExampleFileIsAValidConfiguration) {
  const std::string markdown = settings_markdown();
  const size_t start = markdown.find("```yaml\n");
  ASSERT_NE(start, std::string::npos);
  const size_t body = start + 8;
  const std::string example = markdown.substr(body, markdown.find("```", body) - body);
  const std::string path = ::testing::TempDir() + "sindri-settings-example.yaml";
  std::ofstream(path) << example;
  broker::BrokerConfig config;
  const Status status = broker::apply_config_file(config, path);
  EXPECT_TRUE(status.ok()) << status.error().message << "\n" << example;
  EXPECT_TRUE(broker::validate_config(config).ok());
  std::remove(path.c_str());
}

std::string rule_variable(std::string_view key) {
  std::string variable = "SINDRI_";
  for (char c : key) variable += c == '.' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return variable;
}

std::string rule_flag(std::string_view key) {
  std::string flag = "--";
  for (char c : key) flag += c == '.' || c == '_' ? '-' : c;
  return flag;
}

TEST(SettingsDoc, ANoteExplainsEveryNameOutsideTheRule) {
  for (const broker::Setting& setting : broker::settings()) {
    const bool follows_rule = setting.key.find('.') != std::string_view::npos &&
                              setting.variable == rule_variable(setting.key) && setting.flag == rule_flag(setting.key);
    EXPECT_EQ(follows_rule, setting.naming_note.empty())
        << setting.variable << (follows_rule ? ": follows the rule but has a naming note"
                                             : ": breaks the rule (key in a section, SINDRI_ and --) with no note");
    EXPECT_FALSE(setting.description.empty()) << setting.variable;
  }
}

// The README's own tables (Limits) give defaults by hand, with a unit
// ("10 seconds"): the number before the unit must be the code's default.
TEST(SettingsDoc, TheReadmesDefaultsAreTheCodes) {
  std::ifstream in(SINDRI_SOURCE_DIR "/README.md");
  ASSERT_TRUE(in);
  std::ostringstream readme;
  readme << in.rdbuf();
  size_t checked = 0;
  for (const std::string& line : lines_of(readme.str())) {
    if (!line.starts_with("| `")) continue;
    const size_t key_end = line.find('`', 3);
    const std::string key = line.substr(3, key_end - 3);
    const size_t cell = line.find("| ", key_end);
    if (cell == std::string::npos) continue;
    const std::string second = line.substr(cell + 2, line.find(" |", cell + 2) - cell - 2);
    if (second.empty() || !std::isdigit(static_cast<unsigned char>(second[0]))) continue;
    for (const broker::Setting& setting : broker::settings()) {
      if (setting.key != key) continue;
      EXPECT_EQ(second.substr(0, second.find(' ')), broker::default_text(setting)) << "README.md: " << line;
      ++checked;
    }
  }
  EXPECT_GE(checked, 14u) << "the README's Limits table was not found";
}

TEST(SettingsDoc, NamesAreUnique) {
  std::set<std::string_view> keys, variables, flags;
  for (const broker::Setting& setting : broker::settings()) {
    if (!setting.key.empty()) {
      EXPECT_TRUE(keys.insert(setting.key).second) << setting.key;
    }
    EXPECT_TRUE(variables.insert(setting.variable).second) << setting.variable;
    if (!setting.flag.empty()) {
      EXPECT_TRUE(flags.insert(setting.flag).second) << setting.flag;
    }
  }
}

// Long options as `sindri VERB --help` lists them, from the option column only.
std::set<std::string> help_flags(const std::string& verb) {
  std::set<std::string> flags;
  FILE* pipe = popen((SINDRI_BIN " " + verb + " --help").c_str(), "r");
  if (!pipe) return flags;
  std::string help;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) help.append(buffer, n);
  pclose(pipe);
  for (const std::string& line : lines_of(help)) {
    const size_t start = line.find_first_not_of(' ');
    if (start == std::string::npos || line[start] != '-') continue;
    std::istringstream names(line.substr(start, line.find(' ', start) - start));
    for (std::string name; std::getline(names, name, ',');) {
      if (name.starts_with("--")) flags.insert(name);
    }
  }
  return flags;
}

TEST(SettingsDoc, ServeHasAFlagForEverySettingAndNoOtherSetting) {
  // Actions, not settings: they change what the process does, not how.
  std::set<std::string> expected = {"--help", "--address-file", "--rotate-admin-pak"};
  for (const broker::Setting& setting : broker::settings()) {
    if (!setting.flag.empty()) expected.insert(std::string(setting.flag));
  }
  EXPECT_EQ(help_flags("serve"), expected);
}

TEST(SettingsDoc, AgentRunHasAFlagForEveryAgentSettingAndNoOther) {
  std::set<std::string> expected = {"--help"};
  for (const agent::AgentSetting& setting : agent::settings()) expected.insert(std::string(setting.flag));
  EXPECT_EQ(help_flags("agent run"), expected);
}

TEST(SettingsDoc, AgentNamesAreUnique) {
  std::set<std::string_view> seen;
  for (const agent::AgentSetting& setting : agent::settings()) {
    for (std::string_view name : {setting.key, setting.variable, setting.brokkr_variable, setting.flag}) {
      if (!name.empty()) {
        EXPECT_TRUE(seen.insert(name).second) << name;
      }
    }
  }
}

}  // namespace
}  // namespace sindri::docs
