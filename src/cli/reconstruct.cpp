// sindri reconstruct OBJECT_ID...
//
// Checks that deployment objects made from templates can be made again:
// for each object, its stored YAML and its provenance (the template version
// and the parameters as sent) come from the broker, and the template is
// rendered here, by the broker's own rendering function (schema defaults,
// validation, Tera, the manifest check), then compared byte for byte.
// An identical object prints one line with the SHA-256 of its YAML; a
// different one prints where the texts first part, unified-diff style. An
// object that cannot be checked (unknown, made without a template, no
// longer rendering) is an error on stderr; the other ids are still checked.
// Exit 0 when every object is identical, 1 otherwise.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "broker/template_rendering.hpp"
#include "cli/broker_client.hpp"
#include "cli/io.hpp"
#include "cli/verbs.hpp"
#include "value/digest.hpp"
#include "value/json.hpp"

namespace sindri::cli {

namespace {

struct ReconstructArgs {
  BrokerFlags flags;
  std::vector<std::string> object_ids;
};

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  for (size_t end = text.find('\n'); end != std::string_view::npos; end = text.find('\n', start)) {
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  // A last line without its newline is a line; "" after a final newline is
  // kept too, so that a missing final newline shows as a difference.
  lines.push_back(text.substr(start));
  return lines;
}

// A line as printed in the report: as it is, unless a control character or
// trailing blank would hide the difference, then JSON-quoted.
std::string visible(std::string_view line) {
  bool plain = line.empty() || (line.back() != ' ' && line.back() != '\t');
  for (const char c : line) plain = plain && static_cast<unsigned char>(c) >= 0x20;
  return plain ? std::string(line) : to_json(Value(std::string(line)));
}

// The first line where the texts part, as a unified diff would show it.
std::string first_difference(std::string_view rendered, std::string_view stored) {
  const auto expected = lines_of(rendered);
  const auto actual = lines_of(stored);
  size_t line = 0;
  while (line < expected.size() && line < actual.size() && expected[line] == actual[line]) ++line;
  auto side = [&](const std::vector<std::string_view>& lines, char sign) {
    return line < lines.size() ? std::string(1, sign) + visible(lines[line]) + "\n"
                               : std::string(1, sign) + "(end of text)\n";
  };
  return "@@ line " + std::to_string(line + 1) + " @@\n" + side(expected, '-') + side(actual, '+');
}

// A failure to check an object: an error on stderr; never identical.
bool cannot_check(const std::string& id, const std::string& why) {
  fail("deployment object " + id + ": " + why);
  return false;
}

const Value* string_field(const Value* object, std::string_view key) {
  const Value* field = object ? object->find(key) : nullptr;
  return field && field->is_string() ? field : nullptr;
}

// Whether the object is identical; its report goes to stdout.
bool reconstruct(BrokerClient& client, const std::string& id) {
  const std::string path = "/deployment-objects/" + percent_encode(id);
  auto object = client.get(path);
  if (!object) return cannot_check(id, object.error().message);
  auto provenance = client.get(path + "/provenance");
  if (!provenance) return cannot_check(id, provenance.error().message);
  const Value* tpl = provenance->find("template");
  const Value* parameters = provenance->find("parameters");
  const Value* version = tpl ? tpl->find("version") : nullptr;
  const Value* name = string_field(tpl, "name");
  const Value* content = string_field(tpl, "template_content");
  const Value* schema = string_field(tpl, "parameters_schema");
  const Value* stored = string_field(&*object, "yaml_content");
  if (!parameters || !version || !version->is_int() || !name || !content || !schema || !stored) {
    return cannot_check(id, "the broker's answer lacks the object's yaml_content, or the provenance's parameters "
                            "or template name, version, template_content or parameters_schema");
  }
  const std::string made_by = "template " + std::string(name->get_string()) + " v" + std::to_string(version->get_int());
  const broker::TemplateVersion template_version{name->get_string(), version->get_int(), content->get_string(),
                                                 schema->get_string()};
  auto rendered = broker::render_template_version(template_version, *parameters);
  if (!rendered) {
    return cannot_check(id, made_by + " does not render with its recorded parameters: " + rendered.error().message);
  }
  const std::string_view yaml = stored->get_string();
  const bool identical = *rendered == yaml;
  const std::string report =
      identical ? "deployment object " + id + ": identical to " + made_by +
                      " rendered with its recorded parameters (sha256 " + sha256_hex(yaml) + ")\n"
                : "deployment object " + id + ": differs from " + made_by +
                      " rendered with its recorded parameters\n--- rendered from " + made_by +
                      "\n+++ stored yaml_content\n" + first_difference(*rendered, yaml);
  if (!write_stdout(report)) return cannot_check(id, "cannot write the output");
  return identical;
}

int run_reconstruct(const ReconstructArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  bool all_identical = true;
  for (const std::string& id : args.object_ids) all_identical = reconstruct(*client, id) && all_identical;
  return all_identical ? 0 : 1;
}

}  // namespace

Verb add_reconstruct(CLI::App& app) {
  auto args = std::make_shared<ReconstructArgs>();
  CLI::App* cmd = app.add_subcommand(
      "reconstruct", "Render deployment objects again from their provenance and compare them with what is stored");
  cmd->add_option("OBJECT_ID", args->object_ids, "Id of a deployment object made from a template")->required();
  add_broker_flags(*cmd, args->flags, false);
  return Verb{cmd, [args] { return run_reconstruct(*args); }};
}

}  // namespace sindri::cli
