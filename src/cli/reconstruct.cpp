// sindri reconstruct OBJECT_ID... [-o text|json]
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
// -o json prints one array instead, an entry per id in order: id,
// identical, and either error, or template {name, version}, the stored
// YAML's sha256 and, when it differs, first_difference {line, rendered,
// stored} (a null side is past the end of that text).
// Exit 0 when every object is identical, 1 otherwise.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/broker_client.hpp"
#include "cli/errors.hpp"
#include "cli/io.hpp"
#include "cli/programs.hpp"
#include "cli/verbs.hpp"
#include "render/template_version.hpp"
#include "value/digest.hpp"
#include "value/json.hpp"

namespace sindri::cli {

namespace {

struct ReconstructArgs {
  BrokerFlags flags;
  std::vector<std::string> object_ids;
  std::string output = "text";
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

struct Difference {
  size_t line = 0;                        // from 1
  std::optional<std::string_view> rendered;  // none past the end of the text
  std::optional<std::string_view> stored;
};

// The first line where the texts part.
Difference first_difference(std::string_view rendered, std::string_view stored) {
  const auto expected = lines_of(rendered);
  const auto actual = lines_of(stored);
  size_t line = 0;
  while (line < expected.size() && line < actual.size() && expected[line] == actual[line]) ++line;
  Difference difference{line + 1, std::nullopt, std::nullopt};
  if (line < expected.size()) difference.rendered = expected[line];
  if (line < actual.size()) difference.stored = actual[line];
  return difference;
}

// As a unified diff would show it.
std::string describe(const Difference& difference) {
  auto side = [](const std::optional<std::string_view>& line, char sign) {
    return std::string(1, sign) + (line ? visible(*line) : "(end of text)") + "\n";
  };
  return "@@ line " + std::to_string(difference.line) + " @@\n" + side(difference.rendered, '-') +
         side(difference.stored, '+');
}

const Value* string_field(const Value* object, std::string_view key) {
  const Value* field = object ? object->find(key) : nullptr;
  return field && field->is_string() ? field : nullptr;
}

// One object checked: either `error` says why it could not be, or the
// stored YAML was compared with the template rendered again.
struct Check {
  std::string id;
  std::string error;
  std::string template_name;
  int64_t template_version = 0;
  std::string stored;
  std::string rendered;

  bool identical() const { return error.empty() && rendered == stored; }
  std::string made_by() const { return "template " + template_name + " v" + std::to_string(template_version); }
};

Check check_object(BrokerClient& client, const std::string& id) {
  Check check;
  check.id = id;
  auto failed = [&check](std::string why) {
    check.error = std::move(why);
    return check;
  };
  const std::string path = "/deployment-objects/" + http::percent_encode(id);
  auto object = client.get(path);
  if (!object) return failed(object.error().message);
  auto provenance = client.get(path + "/provenance");
  if (!provenance) return failed(provenance.error().message);
  const Value* tpl = provenance->find("template");
  const Value* parameters = provenance->find("parameters");
  const Value* version = tpl ? tpl->find("version") : nullptr;
  const Value* name = string_field(tpl, "name");
  const Value* content = string_field(tpl, "template_content");
  const Value* schema = string_field(tpl, "parameters_schema");
  const Value* stored = string_field(&*object, "yaml_content");
  if (!parameters || !version || !version->is_int() || !name || !content || !schema || !stored) {
    return failed("the broker's answer lacks the object's yaml_content, or the provenance's parameters "
                  "or template name, version, template_content or parameters_schema");
  }
  check.template_name = name->get_string();
  check.template_version = version->get_int();
  check.stored = stored->get_string();
  const render::TemplateVersion template_version{name->get_string(), version->get_int(), content->get_string(),
                                                 schema->get_string()};
  auto rendered = render::render_template_version(template_version, *parameters);
  if (!rendered) {
    return failed(check.made_by() + " does not render with its recorded parameters: " +
                  render::describe(rendered.error()));
  }
  check.rendered = std::move(rendered).value();
  return check;
}

// The text report of one check: stdout for a comparison, stderr for an
// object that could not be checked. False when the output failed.
bool print_text(const Check& check) {
  const std::string prefix = "deployment object " + check.id + ": ";
  if (!check.error.empty()) {
    // The broker's own errors name the object already.
    fail(check.error.starts_with("deployment object " + check.id) ? check.error : prefix + check.error);
    return true;
  }
  const std::string report =
      check.identical() ? prefix + "identical to " + check.made_by() + " rendered with its recorded parameters (sha256 " +
                              sha256_hex(check.stored) + ")\n"
                        : prefix + "differs from " + check.made_by() +
                              " rendered with its recorded parameters\n--- rendered from " + check.made_by() +
                              "\n+++ stored yaml_content\n" + describe(first_difference(check.rendered, check.stored));
  return write_stdout(report);
}

Value as_json(const Check& check) {
  Value out{Object{}};
  out.set("id", check.id);
  if (!check.error.empty()) {
    out.set("identical", Value());
    out.set("error", check.error);
    return out;
  }
  Value tpl{Object{}};
  tpl.set("name", check.template_name);
  tpl.set("version", check.template_version);
  out.set("template", std::move(tpl));
  out.set("identical", check.identical());
  out.set("sha256", sha256_hex(check.stored));
  if (!check.identical()) {
    const Difference difference = first_difference(check.rendered, check.stored);
    auto side = [](const std::optional<std::string_view>& line) {
      return line ? Value(std::string(*line)) : Value();
    };
    Value where{Object{}};
    where.set("line", static_cast<int64_t>(difference.line));
    where.set("rendered", side(difference.rendered));
    where.set("stored", side(difference.stored));
    out.set("first_difference", std::move(where));
  }
  return out;
}

int run_reconstruct(const ReconstructArgs& args) {
  auto client = BrokerClient::connect(args.flags);
  if (!client) return fail(client.error().message, 2);
  bool all_identical = true;
  Array report;
  for (const std::string& id : args.object_ids) {
    const Check check = check_object(*client, id);
    all_identical = all_identical && check.identical();
    if (args.output == "json") {
      report.push_back(as_json(check));
    } else if (!print_text(check)) {
      return fail("cannot write the output");
    }
  }
  if (args.output == "json" && !write_stdout(to_json_pretty(Value(std::move(report))) + "\n")) {
    return fail("cannot write the output");
  }
  return all_identical ? 0 : 1;
}

}  // namespace

Verb add_reconstruct(CLI::App& app) {
  auto args = std::make_shared<ReconstructArgs>();
  CLI::App* cmd = app.add_subcommand(std::string(kReconstructVerb.name), std::string(kReconstructVerb.description));
  cmd->add_option("OBJECT_ID", args->object_ids, "Id of a deployment object made from a template")->required();
  cmd->add_option("-o,--output", args->output, "text, or json: one report per object, in order")
      ->check(CLI::IsMember({"text", "json"}));
  add_broker_flags(*cmd, args->flags, false);
  return Verb{cmd, [args] { return run_reconstruct(*args); }};
}

}  // namespace sindri::cli
