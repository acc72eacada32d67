#include "repo/publish.hpp"

#include <filesystem>
#include <string>
#include <vector>

#include "repo/hooks.hpp"
#include "repo/problems.hpp"
#include "tera/tera.hpp"
#include "tera/unicode_space.hpp"
#include "value/file_text.hpp"
#include "value/utf8.hpp"

namespace sindri::repo {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kTeraSuffix = ".tera";
constexpr std::string_view kRawOpen = "{% raw %}";
constexpr std::string_view kRawClose = "{% endraw %}";
constexpr std::string_view kDocumentSeparator = "---\n";

// Text that no neighbouring `{%-` or `-%}` can trim: Tera trims only plain
// text, never the inside of a raw block.
std::string untrimmable(std::string_view text) {
  return std::string(kRawOpen) + std::string(text) + std::string(kRawClose);
}

bool starts_with_left_trim(std::string_view tera_text) {
  const std::string_view start = tera::rust_trim_start(tera_text);
  return start.starts_with("{%-") || start.starts_with("{{-") || start.starts_with("{#-");
}

bool ends_with_right_trim(std::string_view tera_text) {
  const std::string_view end = tera::rust_trim_end(tera_text);
  return end.ends_with("-%}") || end.ends_with("-}}") || end.ends_with("-#}");
}

struct Part {
  std::string tera;      // the Tera text of one file
  bool left_trim = false;  // it trims the whitespace before it
};

// One file as a document of the stream, ending in a newline however its
// last tag trims.
Part part_of(const std::string& relative, const std::string& text) {
  if (!relative.ends_with(kTeraSuffix)) {
    Part part{verbatim_tera(text), false};
    if (!text.empty() && text.back() != '\n') part.tera += "\n";
    return part;
  }
  Part part{text, starts_with_left_trim(text)};
  if (ends_with_right_trim(text)) {
    part.tera += untrimmable("\n");
  } else if (!text.empty() && text.back() != '\n') {
    part.tera += "\n";
  }
  return part;
}

std::string joined_stream(const std::vector<Part>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += parts[i].left_trim ? untrimmable(kDocumentSeparator) : std::string(kDocumentSeparator);
    out += parts[i].tera;
  }
  return out;
}

bool is_text(std::string_view bytes) {
  return bytes.find('\0') == std::string_view::npos && first_invalid_utf8(bytes, 0, bytes.size()) == bytes.size();
}

// `value` as the default of `property` (a schema); an object's members
// also as the defaults of its properties, since the repository merges a
// project's object over the default one key by key, and the broker fills
// in only the defaults of the keys a given object leaves out.
void put_default(Value& property, const Value& value) {
  if (property.is_bool() && property.get_bool()) property = Value(Object{});
  if (!property.is_object()) return;
  property.set("default", value);
  if (!value.is_object()) return;
  const Value* existing = property.find("properties");
  Value properties = existing != nullptr && existing->is_object() ? *existing : Value(Object{});
  for (const Member& member : value.get_object()) {
    const Value* known = properties.find(member.key.get_string());
    Value child = known != nullptr ? *known : Value(Object{});
    put_default(child, member.value);
    properties.set(member.key.get_string(), std::move(child));
  }
  property.set("properties", std::move(properties));
}

// The settings a template starts with before a project's: its defaults,
// then its published shared settings that these leave out (plan.hpp's
// steps 1 and 2).
Value starting_settings(const TemplateMetadata& metadata) {
  Value settings = metadata.default_settings;
  for (const Member& shared : metadata.shared_settings.get_object()) {
    if (settings.find(shared.key.get_string()) == nullptr) settings.set(shared.key.get_string(), shared.value);
  }
  return settings;
}

Value parameters_schema(const Template& tpl) {
  const Value& document = tpl.schema_document;
  const bool accepts_anything = document.is_null() || (document.is_bool() && document.get_bool());
  Value schema = accepts_anything ? Value(Object{{Value("type"), Value("object")}}) : document;
  if (!schema.is_object()) return schema;
  const Value* existing = schema.find("properties");
  Value properties = existing != nullptr && existing->is_object() ? *existing : Value(Object{});
  const Value settings = starting_settings(tpl.metadata);
  for (const Member& setting : settings.get_object()) {
    const Value* known = properties.find(setting.key.get_string());
    Value property = known != nullptr ? *known : Value(Object{});
    put_default(property, setting.value);
    properties.set(setting.key.get_string(), std::move(property));
  }
  schema.set("properties", std::move(properties));
  return schema;
}

// What a broker cannot do of the template, before its files are read.
void check_publishable(const Template& tpl, Problems& problems) {
  const std::string what = "template `" + tpl.name() + "`";
  if (tpl.metadata.type != TemplateType::Kubernetes) {
    problems.push_back(what + " is of type " + type_name(tpl.metadata.type) +
                       ": only kubernetes templates can be published to a broker");
  }
  for (const HookPoint point : kHookPoints) {
    if (const auto hook = find_hook(tpl, point)) {
      problems.push_back(what + " has a hook, " + hook->string() + ", which a broker cannot run");
    }
  }
  if (!tpl.location.files_under("files_init").empty()) {
    problems.push_back(what + " has files_init/ files, which mean nothing on a broker (it has no project to "
                              "initialise)");
  }
}

// The template's files/** as parts of the stream, every unreadable or
// non-text file and every Tera syntax error added to `problems`.
std::vector<Part> parts_of(const Template& tpl, Problems& problems) {
  const std::string what = "template `" + tpl.name() + "`";
  const std::vector<std::string> files = tpl.location.files_under("files");
  if (files.empty()) problems.push_back(what + " has no files under files/: there is nothing to publish");
  std::vector<Part> parts;
  for (const std::string& relative : files) {
    const fs::path source = *tpl.location.find_file(fs::path("files") / relative);
    auto text = read_file_text(source, "template file");
    if (!text) {
      problems.push_back(what + ": " + text.error().message);
      continue;
    }
    if (!is_text(*text)) {
      problems.push_back(what + ": " + source.string() +
                         " is not UTF-8 text (a binary file?): a broker template holds text only");
      continue;
    }
    if (relative.ends_with(kTeraSuffix)) {
      auto compiled = tera::compile(source.string(), *text);
      if (!compiled) {
        problems.push_back(what + ": " + compiled.error().describe());
        continue;
      }
      // The broker renders its template alone: another file is never there.
      for (const tera::TemplateReference& reference : tera::referenced_templates(**compiled)) {
        problems.push_back(what + ": " + source.string() + ":" + std::to_string(reference.location.line) + ":" +
                           std::to_string(reference.location.column) + ": names another template, `" +
                           reference.name + "`, which a broker template cannot reach");
      }
    }
    parts.push_back(part_of(relative, *text));
  }
  return parts;
}

}  // namespace

std::string verbatim_tera(std::string_view text) {
  // No `{%` may stand inside a raw block, since `{% endraw %}` (with any
  // spacing or trim marks) would end it: each one is printed as a string.
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t tag = text.find("{%", start);
    const size_t end = tag == std::string_view::npos ? text.size() : tag;
    if (end > start) out += untrimmable(text.substr(start, end - start));
    if (tag == std::string_view::npos) break;
    out += "{{ \"{%\" }}";
    start = tag + 2;
  }
  return out;
}

Result<BrokerTemplate> broker_template(const Template& tpl) {
  Problems problems;
  check_publishable(tpl, problems);
  const std::vector<Part> parts = parts_of(tpl, problems);
  if (!problems.empty()) return problems_error(problems);
  return BrokerTemplate{tpl.name(), tpl.metadata.description, joined_stream(parts), parameters_schema(tpl)};
}

}  // namespace sindri::repo
