#include "cli/manifest_output.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <vector>

#include "cli/io.hpp"
#include "render/kubernetes_object.hpp"
#include "value/json.hpp"
#include "value/yaml/yaml.hpp"

namespace sindri::cli {

namespace {

namespace fs = std::filesystem;

// Every non-empty document of the rendered text, each checked to be a
// Kubernetes object.
Result<std::vector<Value>> read_manifests(const std::string& text, const std::string& template_name) {
  const std::string source = template_name + " (rendered)";
  auto stream = parse_yaml_stream(text, source);
  if (!stream) return make_error(stream.error().describe());
  std::vector<Value> manifests;
  for (size_t i = 0; i < stream->size(); ++i) {
    const YamlDocument& doc = (*stream)[i];
    if (doc.value.is_null()) continue;
    const std::string problem = manifest_problem(doc.value);
    if (!problem.empty()) {
      return make_error(source + ":" + std::to_string(doc.line) + ": document " + std::to_string(i + 1) + " " +
                        problem);
    }
    manifests.push_back(doc.value);
  }
  return manifests;
}

std::string manifests_as_json(const std::vector<Value>& manifests) {
  if (manifests.size() == 1) return to_json_pretty(manifests[0]) + "\n";
  Value list{Object{}};
  list.set("apiVersion", "v1");
  list.set("kind", "List");
  list.set("items", Value(Array(manifests.begin(), manifests.end())));
  return to_json_pretty(list) + "\n";
}

// `<kind>-<name>.yaml` in lower case; characters a file name should not
// hold (`/`, `:` of RBAC names, ...) become `_`.
std::string manifest_file_name(const Value& manifest) {
  std::string name = std::string(manifest.find("kind")->get_string()) + "-" +
                     std::string(manifest.find("metadata")->find("name")->get_string());
  for (char& c : name) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.' && c != '_') c = '_';
  }
  return name + ".yaml";
}

// Two manifests with the same file name are an error rather than an
// overwrite or a numbered suffix: in one namespace the second would replace
// the first when applied, which is almost always a template bug.
Result<Ok> write_manifests(const std::vector<Value>& manifests, const std::string& dir) {
  std::vector<std::string> names;
  for (size_t i = 0; i < manifests.size(); ++i) {
    names.push_back(manifest_file_name(manifests[i]));
    auto first = std::find(names.begin(), names.end() - 1, names.back());
    if (first != names.end() - 1) {
      return make_error("manifests " + std::to_string(first - names.begin() + 1) + " and " + std::to_string(i + 1) +
                        " would both be written to " + (fs::path(dir) / names.back()).string());
    }
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return make_error("cannot create output directory " + dir + ": " + ec.message());
  std::string written;
  for (size_t i = 0; i < manifests.size(); ++i) {
    const fs::path path = fs::path(dir) / names[i];
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << to_yaml(manifests[i]);
    if (!out.flush()) return make_error("cannot write " + path.string());
    written += path.string() + "\n";
  }
  if (!write_stdout(written)) return make_error("cannot write the output");
  return Ok{};
}

}  // namespace

std::string manifest_problem(const Value& manifest) {
  const render::ObjectProblem problem = render::find_object_problem(manifest, render::NameRule::Required);
  switch (problem.kind) {
    case render::ObjectProblem::Kind::None: return {};
    case render::ObjectProblem::Kind::NotMapping:
      return std::string("is ") + (manifest.is_array() ? "a list" : problem.document_kind) + ", not a mapping";
    case render::ObjectProblem::Kind::MissingString: return "has no `" + problem.field + "` string";
  }
  return {};
}

void add_rendered_output_options(CLI::App& command, std::string& output, std::string& output_dir) {
  command.add_option("-o,--output", output, "raw: the text as rendered; yaml, json: checked manifests")
      ->check(CLI::IsMember({"raw", "yaml", "json"}));
  command.add_option("--output-dir", output_dir, "Write each manifest to DIR/<kind>-<name>.yaml");
}

Status check_rendered_output(const std::string& output, const std::string& output_dir) {
  if (!output_dir.empty() && output == "json") {
    return make_error("--output-dir writes YAML files; it cannot be combined with -o json");
  }
  return Ok{};
}

Status print_rendered(const std::string& text, const std::string& source, const std::string& output,
                      const std::string& output_dir) {
  if (output == "raw" && output_dir.empty()) {
    if (write_stdout(text)) return Ok{};
    return make_error("cannot write the output");
  }
  SINDRI_TRY(manifests, read_manifests(text, source));
  if (!output_dir.empty()) return write_manifests(manifests, output_dir);
  if (write_stdout(output == "json" ? manifests_as_json(manifests) : to_yaml_stream(manifests))) return Ok{};
  return make_error("cannot write the output");
}

}  // namespace sindri::cli
