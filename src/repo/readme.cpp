#include "repo/readme.hpp"

#include <algorithm>

#include "repo/hooks.hpp"
#include "repo/setting_docs.hpp"
#include "value/json.hpp"
#include "value/object_literal.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::repo {

namespace {

// Inline code that stays code whatever backticks the text holds: a fence
// longer than its longest run of backticks, padded where it touches one.
std::string code(std::string_view text) {
  size_t longest = 0;
  size_t run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  const bool pad = !text.empty() && (text.front() == '`' || text.back() == '`');
  const std::string space = pad ? " " : "";
  return fence + space + std::string(text) + space + fence;
}

std::string json_code(const Value& value) { return code(to_json(value)); }

// A table cell: a `|` would end it and a newline the row.
std::string cell(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '|') {
      out += "\\|";
    } else if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      continue;
    } else if (text[i] == '\n' || text[i] == '\r') {
      out += "<br>";
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string joined_codes(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + code(item);
  return out;
}

std::string summary_line(const Template& tpl) {
  const TemplateMetadata& metadata = tpl.metadata;
  return "Directory " + code(tpl.name()) + "; type " + code(type_name(metadata.type)) + "; tags " +
         joined_codes(metadata.tags) + "; " +
         (metadata.always_apply ? "always applied, listed in a project or not."
                                : "applied when a project lists it.") +
         "\n";
}

std::string setting_description(const SettingDoc& setting) {
  std::string out = setting.description;
  auto sentence = [&](const std::string& text) {
    if (!out.empty() && out.back() != '.' && out.back() != ':' && out.back() != '!' && out.back() != '?') out += ".";
    out += (out.empty() ? "" : " ") + text;
  };
  if (!setting.allowed.empty()) {
    std::string values;
    for (const Value& value : setting.allowed) values += (values.empty() ? "" : ", ") + json_code(value);
    sentence((setting.allowed.size() == 1 ? "Must be " : "One of ") + values + ".");
  }
  if (setting.published) sentence("Shared: published to the templates that subscribe to it.");
  if (setting.subscribed) sentence("Shared: read from the template that publishes it.");
  return out;
}

std::string settings_section(const std::vector<SettingDoc>& settings) {
  std::string out = "## Settings\n\n";
  if (settings.empty()) return out + "None.\n";
  out += "| Setting | Type | Default | Description |\n| --- | --- | --- | --- |\n";
  for (const SettingDoc& setting : settings) {
    out += "| " + cell(code(setting.name)) + " | " + cell(setting.type.empty() ? "any" : setting.type) + " | " +
           cell(setting.default_value ? json_code(*setting.default_value) : "-") + " | " +
           cell(setting_description(setting)) + " |\n";
  }
  return out;
}

std::string shared_section(const TemplateMetadata& metadata) {
  std::string out = "## Shared settings\n\n";
  const Object& published = metadata.shared_settings.get_object();
  if (published.empty() && metadata.setting_subscriptions.empty()) return out + "None.\n";
  if (!published.empty()) {
    out += "Publishes, for the templates that subscribe to them (a project setting it here sets it for them all):\n\n";
    for (const Member& m : published) out += "- " + code(m.key.get_string()) + ", default " + json_code(m.value) + "\n";
  }
  if (!metadata.setting_subscriptions.empty()) {
    out += std::string(published.empty() ? "" : "\n") +
           "Subscribes to (each has the publisher's value when the project applies the template that publishes it; "
           "otherwise this template's own default, if it has one, or nothing; a project setting it here wins):\n\n";
    for (const std::string& name : metadata.setting_subscriptions) out += "- " + code(name) + "\n";
  }
  return out;
}

std::string files_section(const TemplateLocation& location) {
  std::string out = "## Files\n\n";
  std::string list;
  for (const bool init_only : {false, true}) {
    for (std::string file : location.files_under(init_only ? "files_init" : "files")) {
      if (file.ends_with(kTeraSuffix)) file.resize(file.size() - kTeraSuffix.size());
      list += "- " + code(file) + (init_only ? " (created once, then left alone)" : "") + "\n";
    }
  }
  return out + (list.empty() ? "None.\n" : list);
}

std::string hooks_section(const Template& tpl) {
  std::string out = "## Hooks\n\n";
  std::string list;
  for (HookPoint point : kHookPoints) {
    if (find_hook(tpl, point)) list += "- " + code(hook_name(point)) + "\n";
  }
  return out + (list.empty() ? "None.\n" : list);
}

// The settings the schema requires that nothing gives a default, sorted.
std::vector<std::string> required_without_default(const Template& tpl, const std::vector<SettingDoc>& settings) {
  std::vector<std::string> out;
  const Value* required = tpl.schema_document.is_object() ? tpl.schema_document.find("required") : nullptr;
  if (required == nullptr || !required->is_array()) return out;
  for (const Value& name : required->get_array()) {
    if (!name.is_string()) continue;
    const bool defaulted = std::any_of(settings.begin(), settings.end(), [&](const SettingDoc& setting) {
      return setting.name == name.get_string() && setting.default_value;
    });
    if (!defaulted) out.emplace_back(name.get_string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A project file applying the template with its default settings.
std::string use_section(const Template& tpl, const std::vector<SettingDoc>& settings) {
  Value defaults = Object{};
  for (const SettingDoc& setting : settings) {
    if (setting.default_value && !setting.subscribed) defaults.set(setting.name, *setting.default_value);
  }
  // `version` first, as project files are written; to_yaml sorts keys. An
  // always applied template needs no listing.
  std::vector<Value> parts = {make_object({{"version", Value(2)}})};
  if (!tpl.metadata.always_apply) parts.push_back(make_object({{"templates", string_array({tpl.name()})}}));
  std::string yaml = "sindri_templates:\n";
  for (const Value& part : parts) {
    const std::string text = to_yaml(part);
    for (size_t start = 0; start < text.size();) {
      const size_t end = text.find('\n', start);
      yaml += "  " + text.substr(start, end - start + 1);
      start = end + 1;
    }
  }
  const std::vector<std::string> needed = required_without_default(tpl, settings);
  if (defaults.size() > 0) {
    yaml += to_yaml(make_object({{tpl.name(), defaults}}));
  } else if (!needed.empty()) {
    yaml += tpl.name() + ":\n";
  }
  for (const std::string& name : needed) yaml += "  # " + name + ": required, no default\n";
  return "## Use\n\nIn a project's `sindri-templates.yaml` (with the repository holding this template among its "
         "`template_sources`):\n\n```yaml\n" +
         yaml + "```\n";
}

}  // namespace

std::string template_readme(const Template& tpl) {
  const std::vector<SettingDoc> settings = setting_docs(tpl);
  const TemplateMetadata& metadata = tpl.metadata;
  std::string out = "# " + metadata.name + "\n\n";
  if (metadata.description != metadata.name) out += metadata.description + "\n\n";
  out += summary_line(tpl) + "\n";
  for (const std::string& section : {settings_section(settings), shared_section(metadata),
                                     files_section(tpl.location), hooks_section(tpl), use_section(tpl, settings)}) {
    out += section + "\n";
  }
  return out + "Generated by `sindri repo docs` from `template.json` and `template_schema.json`.\n";
}

std::filesystem::path readme_path(const TemplateLocation& location) { return location.directory / kReadmeFileName; }

namespace {

RenderedFile readme_file(const std::string& content) {
  return RenderedFile{.path = std::string(kReadmeFileName), .bytes = content, .init_only = false, .executable = false,
                      .template_name = {}};
}

}  // namespace

FileChange readme_change(const TemplateLocation& location, const std::string& content) {
  return planned_change(location.directory, readme_file(content));
}

Result<FileChange> write_readme(const TemplateLocation& location, const std::string& content) {
  SINDRI_TRY(written, sync_files(location.directory, {readme_file(content)}));
  return written.empty() ? FileChange::Unchanged : written.front().change;
}

}  // namespace sindri::repo
