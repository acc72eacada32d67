#include "case_runner.hpp"

#include <fstream>
#include <sstream>

#include "tera/tera.hpp"
#include "value/json.hpp"

namespace sindri::tera_cases {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

namespace {

std::string trim_end(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

void record(Outcome& outcome, const tera::TemplateError& error) {
  outcome.error_kind = error.kind == tera::ErrorKind::Parse ? "parse_error" : "render_error";
  outcome.message = error.describe();
}

Outcome run_environment(const fs::path& dir, const Value& context) {
  Outcome outcome;
  tera::Environment env;
  fs::path root = dir / "templates";
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    auto added = env.add(fs::relative(entry.path(), root).generic_string(), read_file(entry.path()));
    if (!added) {
      record(outcome, added.error());
      return outcome;
    }
  }
  auto built = env.build();
  if (!built) {
    record(outcome, built.error().front());
    return outcome;
  }
  auto out = env.render(trim_end(read_file(dir / "main")), context);
  if (out) {
    outcome.output = *out;
  } else {
    record(outcome, out.error());
  }
  return outcome;
}

Outcome run_single(const fs::path& dir, const Value& context) {
  Outcome outcome;
  auto tpl = tera::compile("template.tera", read_file(dir / "template.tera"));
  if (!tpl) {
    record(outcome, tpl.error());
    return outcome;
  }
  auto out = tera::render(**tpl, context);
  if (out) {
    outcome.output = *out;
  } else {
    record(outcome, out.error());
  }
  return outcome;
}

}  // namespace

Outcome run_case(const fs::path& dir) {
  auto context = parse_json(read_file(dir / "context.json"));
  if (!context) {
    Outcome outcome;
    outcome.error_kind = "bad_context";
    outcome.message = context.error().describe();
    return outcome;
  }
  return fs::exists(dir / "templates") ? run_environment(dir, *context) : run_single(dir, *context);
}

}  // namespace sindri::tera_cases
