#include "repo/project.hpp"

#include <algorithm>

#include "repo/problems.hpp"
#include "value/file_text.hpp"
#include "value/json.hpp"
#include "value/pointer.hpp"

namespace sindri::repo {

namespace {

constexpr int kVersion = 2;

struct Reader {
  const LocatedDocument& file;
  Problems problems;

  void complain(std::string_view pointer, std::string message) {
    problems.push_back(file.where(pointer) + ": " + std::move(message));
  }
  void refuse_unknown_keys(const Value& object, std::string_view pointer, std::initializer_list<std::string_view> known,
                           std::string_view where) {
    for (const Member& m : object.get_object()) {
      const std::string_view key = m.key.get_string();
      if (std::find(known.begin(), known.end(), key) != known.end()) continue;
      std::string list;
      for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      complain(pointer_child(pointer, key), "unknown key `" + std::string(key) + "` in " + std::string(where) +
                                                " (known: " + list + ")");
    }
  }
};

SourceSpec read_source(Reader& reader, const Value& entry, const std::string& pointer,
                       const std::filesystem::path& directory) {
  SourceSpec spec;
  spec.where = reader.file.where(pointer);
  if (entry.is_string()) {
    if (entry.get_string() != "default") {
      reader.complain(pointer, "a template source given as a string must be `default`, not `" +
                                   std::string(entry.get_string()) + "`");
    }
    return spec;
  }
  if (!entry.is_object()) {
    reader.complain(pointer, std::string("a template source must be `default` or a mapping, not ") + entry.kind_name());
    return spec;
  }
  const Value* type = entry.find("type");
  const std::string type_text = type && type->is_string() ? std::string(type->get_string()) : "";
  if (type_text == "default") {
    reader.refuse_unknown_keys(entry, pointer, {"type"}, "a default source");
    return spec;
  }
  if (type_text == "filesystem") {
    spec.type = SourceSpec::Type::Filesystem;
    reader.refuse_unknown_keys(entry, pointer, {"type", "location"}, "a filesystem source");
  } else if (type_text == "git") {
    spec.type = SourceSpec::Type::Git;
    reader.refuse_unknown_keys(entry, pointer, {"type", "location", "ref", "trusted"}, "a git source");
  } else {
    reader.complain(type ? pointer_child(pointer, "type") : pointer,
                    "unknown template source type " + (type ? to_json(*type) : std::string("(none)")) +
                        " (known: filesystem, git, default)");
    return spec;
  }
  const Value* location = entry.find("location");
  if (location == nullptr || !location->is_string() || location->get_string().empty()) {
    reader.complain(location ? pointer_child(pointer, "location") : pointer,
                    "a " + type_text + " source needs a `location` string");
  } else if (spec.type == SourceSpec::Type::Filesystem) {
    spec.location = (directory / std::string(location->get_string())).lexically_normal().string();
  } else if (location->get_string().front() == '-') {
    // git would read it as an option (--upload-pack runs a command).
    reader.complain(pointer_child(pointer, "location"), "a git `location` cannot start with `-`");
  } else {
    spec.location = location->get_string();
  }
  if (const Value* ref = entry.find("ref")) {
    if (ref->is_string() && ref->get_string().starts_with("-")) {
      reader.complain(pointer_child(pointer, "ref"), "`ref` cannot start with `-`");
    } else if (ref->is_string()) {
      spec.ref = ref->get_string();
    } else {
      reader.complain(pointer_child(pointer, "ref"), "`ref` must be a string (a branch, tag or commit)");
    }
  }
  if (const Value* trusted = entry.find("trusted")) {
    if (trusted->is_bool()) {
      spec.trusted = trusted->get_bool();
    } else {
      reader.complain(pointer_child(pointer, "trusted"), "`trusted` must be true or false");
    }
  }
  return spec;
}

}  // namespace

const char* source_type_name(SourceSpec::Type type) {
  switch (type) {
    case SourceSpec::Type::Default:
      return "default";
    case SourceSpec::Type::Filesystem:
      return "filesystem";
    case SourceSpec::Type::Git:
      return "git";
  }
  return "";
}

std::string SourceSpec::describe() const {
  if (type == Type::Default) return "default";
  return std::string(source_type_name(type)) + " " + location + (ref.empty() ? "" : "@" + ref);
}

const Value* Project::settings_for(std::string_view template_name) const {
  if (template_name == root_key || !file.value().is_object()) return nullptr;
  return file.value().find(template_name);
}

std::vector<std::string> Project::stray_settings(const std::vector<std::string>& applied) const {
  std::vector<std::string> out;
  for (const Member& m : file.value().get_object()) {
    const std::string_view key = m.key.get_string();
    if (key != root_key && std::find(applied.begin(), applied.end(), key) == applied.end()) out.emplace_back(key);
  }
  return out;
}

Result<Project> parse_project(std::string_view text, std::string file, const std::filesystem::path& directory,
                              std::string_view root_key) {
  SINDRI_TRY(document, parse_located_yaml(text, std::move(file)));
  if (!document.value().is_object()) {
    return make_error(document.where("") + ": a project file must hold a mapping, not " + document.value().kind_name());
  }
  const std::string root_pointer = pointer_child("", root_key);
  const Value* root = document.value().find(root_key);
  if (root == nullptr || !root->is_object()) {
    return make_error(document.where(root_pointer) + ": `" + std::string(root_key) +
                      "` must be a mapping holding `version: 2`");
  }
  // Hooks run in the project directory: a path relative to the current one
  // (the project's, a filesystem source's, a hook's) would not hold there.
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(directory, ec).lexically_normal();
  if (ec) return make_error("cannot make " + directory.string() + " absolute: " + ec.message());
  Project project;
  project.directory = absolute;
  project.root_key = root_key;
  Reader reader{document, {}};
  reader.refuse_unknown_keys(*root, root_pointer, {"version", "template_sources", "templates", "hook_timeout_seconds"},
                             "`" + std::string(root_key) + "`");

  const Value* version = root->find("version");
  if (version == nullptr) {
    reader.complain(root_pointer, "`version` is required (this Sindri reads version 2)");
  } else if (!version->is_int() || version->get_int() != kVersion) {
    reader.complain(pointer_child(root_pointer, "version"),
                    "version " + to_json(*version) + " is not supported (this Sindri reads version 2)");
  }

  const std::string sources_pointer = pointer_child(root_pointer, "template_sources");
  if (const Value* sources = root->find("template_sources"); sources && !sources->is_null()) {
    if (!sources->is_array()) {
      reader.complain(sources_pointer, "`template_sources` must be a list");
    } else {
      for (size_t i = 0; i < sources->size(); ++i) {
        project.sources.push_back(
            read_source(reader, *sources->at(i), pointer_child(sources_pointer, std::to_string(i)), absolute));
      }
    }
  }
  if (project.sources.empty()) {
    SourceSpec default_source;
    default_source.where = document.where(root_pointer);
    project.sources.push_back(std::move(default_source));
  }

  const std::string templates_pointer = pointer_child(root_pointer, "templates");
  if (const Value* templates = root->find("templates"); templates && !templates->is_null()) {
    if (!templates->is_array()) {
      reader.complain(templates_pointer, "`templates` must be a list of template names");
    } else {
      for (size_t i = 0; i < templates->size(); ++i) {
        const std::string pointer = pointer_child(templates_pointer, std::to_string(i));
        const Value& name = *templates->at(i);
        if (!name.is_string()) {
          reader.complain(pointer, std::string("a template name must be a string, not ") + name.kind_name());
          continue;
        }
        const bool repeated = std::any_of(project.templates.begin(), project.templates.end(),
                                          [&](const TemplateRequest& r) { return r.name == name.get_string(); });
        if (repeated) {
          reader.complain(pointer, "template `" + std::string(name.get_string()) + "` is listed twice");
          continue;
        }
        project.templates.push_back({std::string(name.get_string()), document.where(pointer)});
      }
    }
  }

  if (const Value* timeout = root->find("hook_timeout_seconds")) {
    // An hour is far beyond any hook's need; a larger number is a mistake
    // (milliseconds meant) that would let a stuck hook hold a CI job.
    if (!timeout->is_number() || timeout->as_double() <= 0 || timeout->as_double() > 3600) {
      reader.complain(pointer_child(root_pointer, "hook_timeout_seconds"),
                      "`hook_timeout_seconds` must be a number of seconds above 0 and at most 3600");
    } else {
      project.hook_timeout_seconds = timeout->as_double();
    }
  }

  for (const Member& m : document.value().get_object()) {
    const std::string_view key = m.key.get_string();
    if (key != root_key && !m.value.is_object() && !m.value.is_null()) {
      reader.complain(pointer_child("", key),
                      "the settings of template `" + std::string(key) + "` must be a mapping, not " + m.value.kind_name());
    }
  }
  if (!reader.problems.empty()) return problems_error(reader.problems);
  project.file = std::move(document);
  return project;
}

Result<Project> load_project(const std::filesystem::path& directory) {
  std::error_code ec;
  for (std::string_view name : {kProjectFileName, kSyncFileName}) {
    const std::filesystem::path path = directory / name;
    if (!std::filesystem::exists(path, ec)) continue;
    SINDRI_TRY(text, read_file_text(path, "project file"));
    const std::string_view root_key = name == kProjectFileName ? "sindri_templates" : "pdk_template";
    return parse_project(text, path.string(), directory, root_key);
  }
  return make_error("no project file in " + directory.string() + ": expected " + std::string(kProjectFileName) +
                    " (or " + std::string(kSyncFileName) + ")");
}

}  // namespace sindri::repo
