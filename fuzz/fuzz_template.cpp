// libFuzzer target for the Tera parser and renderer.
//
// The input is a template source, optionally followed by a NUL byte and a
// JSON context. The template is checked, compiled and rendered with that
// context (when it parses to an object) and with a fixed rich context; it is
// also rendered inside an environment holding a few fixed templates, so that
// include, extends, import and macros are reached. Errors are fine; crashes,
// hangs, leaks and undefined behaviour are not.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "tera/tera.hpp"
#include "value/json.hpp"

namespace {

using namespace sindri;

const Value& rich_context() {
  static const Value ctx = [] {
    auto parsed = parse_json(R"({
      "name": "Demo_App", "namespace": "prod", "replicas": 3, "ratio": 2.5, "neg": -7,
      "big": 9223372036854775807, "small": -9223372036854775808, "zero": 0, "tiny": 1e-300,
      "enabled": true, "disabled": false, "nothing": null, "empty": "", "html": "<a href=\"x\">&'</a>",
      "unicode": "h\u00e9llo w\u00f6rld \u2603", "path": "/a/b/c.txt", "csv": "a,b,,c",
      "items": [1, 2, 3, 2.5, "x", true, null, [1, 2], {"k": "v"}],
      "words": ["b", "a", "c", "a"], "nums": [3, 1, 2], "floats": [1.5, 0.1, 2.25],
      "labels": {"app": "demo", "tier": "web", "team": "core"},
      "users": [{"name": "ann", "age": 31, "roles": ["admin"]},
                {"name": "bob", "age": 25, "roles": []},
                {"name": "cy", "age": 31, "roles": ["dev", "ops"]}],
      "nested": {"a": {"b": {"c": [1, {"d": "deep"}]}}},
      "empty_list": [], "empty_obj": {}
    })");
    return parsed ? std::move(parsed).value() : Value(Object{});
  }();
  return ctx;
}

constexpr std::string_view kBase =
    "<{% block head %}head {{ name | default(value='n') }}{% endblock head %}>"
    "[{% block body %}body{% endblock body %}]";
constexpr std::string_view kMacros =
    "{% macro label(k, v='x') %}{{ k }}={{ v }}{% endmacro label %}"
    "{% macro rec(n=0) %}{% if n > 0 %}{{ n }}{{ self::rec(n=n-1) }}{% endif %}{% endmacro rec %}";
constexpr std::string_view kPart = "part:{{ name | default(value='?') }}";

// Small budgets: a fuzzed loop or recursion must end well within the
// fuzzer's time limit, as an error.
tera::RenderOptions bounded(bool autoescape = false) {
  tera::RenderOptions options;
  options.autoescape = autoescape;
  options.max_steps = 100000;
  options.max_output_bytes = 1u << 20;
  return options;
}

void render_all(std::string_view source, const Value* user_context) {
  (void)tera::check("fuzz.tera", source);

  auto tpl = tera::compile("fuzz.tera", source);
  if (tpl) {
    if (user_context) (void)tera::render(**tpl, *user_context, bounded());
    (void)tera::render(**tpl, rich_context(), bounded());
    (void)tera::render(**tpl, rich_context(), bounded(true));
  }

  tera::Environment env;
  (void)env.add("base.tera", kBase);
  (void)env.add("macros.tera", kMacros);
  (void)env.add("part.tera", kPart);
  if (!env.add("main.tera", source)) return;
  if (!env.build()) return;
  (void)env.render("main.tera", rich_context(), bounded());
  if (user_context) (void)env.render("main.tera", *user_context, bounded());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view source = input.substr(0, nul);

  Value user;
  const Value* user_context = nullptr;
  if (nul != std::string_view::npos) {
    auto parsed = parse_json(input.substr(nul + 1), JsonOptions{.max_depth = 64});
    if (parsed && parsed->is_object()) {
      user = std::move(parsed).value();
      user_context = &user;
    }
  }
  render_all(source, user_context);
  return 0;
}
