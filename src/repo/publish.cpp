#include "repo/publish.hpp"

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "repo/hooks.hpp"
#include "repo/problems.hpp"
#include "tera/template.hpp"
#include "tera/tera.hpp"
#include "tera/unicode_space.hpp"
#include "value/file_text.hpp"
#include "value/json.hpp"
#include "value/text_position.hpp"
#include "value/utf8.hpp"

namespace sindri::repo {

namespace fs = std::filesystem;

namespace {

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
  std::string source;    // the file, for messages
};

// One file as a document of the stream, ending in a newline however its
// last tag trims.
Part part_of(const std::string& relative, const std::string& text, const std::string& source) {
  if (!relative.ends_with(kTeraSuffix)) {
    Part part{verbatim_tera(text), false, source};
    if (!text.empty() && text.back() != '\n') part.tera += "\n";
    return part;
  }
  Part part{text, starts_with_left_trim(text), source};
  if (ends_with_right_trim(text)) {
    part.tera += untrimmable("\n");
  } else if (!text.empty() && text.back() != '\n') {
    part.tera += "\n";
  }
  return part;
}

struct Stream {
  std::string text;
  std::vector<size_t> starts;  // where each part begins in `text`
};

Stream joined_stream(const std::vector<Part>& parts) {
  Stream out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out.text += parts[i].left_trim ? untrimmable(kDocumentSeparator) : std::string(kDocumentSeparator);
    out.starts.push_back(out.text.size());
    out.text += parts[i].tera;
  }
  return out;
}

std::string at(const std::string& source, size_t line, size_t column) {
  return source + ":" + std::to_string(line) + ":" + std::to_string(column);
}

// A Tera error as one line of problems (problems.hpp), at `where`.
std::string tera_problem(const std::string& what, const std::string& where, const tera::TemplateError& error) {
  std::string problem = what + ": " + where + ": " + error.message;
  if (!error.expression.empty()) problem += " (in `" + error.expression + "`)";
  return problem;
}

std::string tera_problem_in(const std::string& what, const std::string& source, const tera::TemplateError& error) {
  return tera_problem(what, at(source, error.location.line, error.location.column), error);
}

// Where a place in the stream comes from: the file of the part holding it,
// and the line and column in that file.
std::string file_location(const std::vector<Part>& parts, const Stream& stream, tera::Location location) {
  size_t part = 0;
  LineColumn start{1, 1};
  for (size_t i = 0; i < parts.size(); ++i) {
    const LineColumn begins = line_column(stream.text, stream.starts[i]);
    if (begins.line > location.line || (begins.line == location.line && begins.column > location.column)) break;
    part = i;
    start = begins;
  }
  const size_t line = location.line - start.line + 1;
  const size_t column = location.line == start.line ? location.column - start.column + 1 : location.column;
  return at(parts[part].source, line, column);
}

// The stream compiled and checked as the broker does when the template is
// created (render/template_version.hpp: isolated, alone), so that what the
// files only do together (a macro defined in two of them, a call of `now`)
// is refused before anything is written.
void check_as_broker(const std::string& what, const std::vector<Part>& parts, const Stream& stream,
                     Problems& problems) {
  const auto report = [&](const tera::TemplateError& error) {
    problems.push_back(tera_problem(what, file_location(parts, stream, error.location), error) +
                       ", in the files published as one template");
  };
  auto compiled = tera::compile(what, stream.text);
  if (!compiled) {
    report(compiled.error());
    return;
  }
  for (const tera::TemplateError& error : tera::check(**compiled, tera::CheckOptions{.isolated = true})) {
    report(error);
  }
}

// The broker renders all files as one template, the repository each alone:
// a variable one file sets at its top level would reach the files after it
// on the broker only. Scoping each file instead cannot work: a `for` loop
// around a file scopes `set` but not `set_global`, and would hide the
// macros the file defines (Tera takes them at the top level only). So a
// `set` that outlives its file is refused: a `set` outside every loop, a
// `set_global` anywhere, macro bodies aside (a macro has a context of its
// own). A macro defined in one file and called from another needs no rule:
// checking each file alone finds the call of a macro it does not define.
void leaking_sets(const tera::Body& body, bool in_loop, const tera::Template& compiled,
                  const std::string& source, const std::string& what, Problems& problems) {
  using Kind = tera::Node::Kind;
  for (const tera::NodePtr& node : body) {
    if (node->kind == Kind::MacroDef) continue;
    if (node->kind == Kind::Set && (node->global || !in_loop)) {
      const LineColumn where = line_column(compiled.source, node->span.offset);
      problems.push_back(what + ": " + at(source, where.line, where.column) + ": `" +
                         (node->global ? "set_global " : "set ") + std::string(node->set_name) +
                         "` would reach the template's other files on a broker, which renders them as one "
                         "template: set it inside a `for` loop, or in each file that uses it");
    }
    for (const tera::IfBranch& branch : node->branches) leaking_sets(branch.body, in_loop, compiled, source, what, problems);
    leaking_sets(node->else_body, in_loop, compiled, source, what, problems);
    leaking_sets(node->body, in_loop || node->kind == Kind::For, compiled, source, what, problems);
    leaking_sets(node->empty_body, in_loop, compiled, source, what, problems);
  }
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
  const bool several_tera_files =
      std::count_if(files.begin(), files.end(), [](const std::string& file) { return file.ends_with(kTeraSuffix); }) > 1;
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
        problems.push_back(tera_problem_in(what, source.string(), compiled.error()));
        continue;
      }
      for (const tera::TemplateError& error : tera::check(**compiled)) {
        problems.push_back(tera_problem_in(what, source.string(), error));
      }
      if (several_tera_files) leaking_sets((*compiled)->ast, false, **compiled, source.string(), what, problems);
      // The broker renders its template alone: another file is never there.
      for (const tera::TemplateReference& reference : tera::referenced_templates(**compiled)) {
        problems.push_back(what + ": " + source.string() + ":" + std::to_string(reference.location.line) + ":" +
                           std::to_string(reference.location.column) + ": names another template, `" +
                           reference.name + "`, which a broker template cannot reach");
      }
    }
    parts.push_back(part_of(relative, *text, source.string()));
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

std::optional<Value> owned_live_template(const Array& listed, std::string_view name, const Value& owner) {
  const auto version_of = [](const Value& tpl) {
    const Value* version = tpl.find("version");
    return version != nullptr && version->is_int() ? version->get_int() : 0;
  };
  std::optional<Value> newest;
  for (const Value& tpl : listed) {
    const Value* tpl_name = tpl.find("name");
    if (tpl_name == nullptr || !tpl_name->is_string() || tpl_name->get_string() != name) continue;
    const Value* generator = tpl.find("generator_id");
    const bool owned = generator != nullptr ? *generator == owner : owner.is_null();
    if (owned && (!newest || version_of(tpl) > version_of(*newest))) newest = tpl;
  }
  return newest;
}

bool broker_holds(const Value& live, const BrokerTemplate& published) {
  const auto text_of = [&live](std::string_view field) -> std::optional<std::string_view> {
    const Value* value = live.find(field);
    if (value == nullptr || !value->is_string()) return std::nullopt;
    return value->get_string();
  };
  // A broker may keep an empty description as none at all.
  const Value* description = live.find("description");
  const std::string_view stored_description =
      description != nullptr && description->is_string() ? std::string_view(description->get_string()) : "";
  const auto content = text_of("template_content");
  const auto schema = text_of("parameters_schema");
  if (!content || !schema || stored_description != published.description || *content != published.template_content) {
    return false;
  }
  auto stored_schema = parse_json(*schema);
  return stored_schema.ok() && *stored_schema == published.parameters_schema;
}

Result<BrokerTemplate> broker_template(const Template& tpl) {
  Problems problems;
  check_publishable(tpl, problems);
  const std::vector<Part> parts = parts_of(tpl, problems);
  if (!problems.empty()) return problems_error(problems);
  Stream stream = joined_stream(parts);
  check_as_broker("template `" + tpl.name() + "`", parts, stream, problems);
  if (!problems.empty()) return problems_error(problems);
  return BrokerTemplate{tpl.name(), tpl.metadata.description, std::move(stream.text), parameters_schema(tpl)};
}

}  // namespace sindri::repo
