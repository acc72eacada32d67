// The engine's contract beyond conformance: errors name the template, line
// and column; hostile input is an error, never a crash or a hang; compiled
// templates are shared safely between threads; the cache compiles once.

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tera/tera.hpp"
#include "value/digest.hpp"
#include "value/json.hpp"

using namespace sindri;
using tera::ErrorKind;

namespace {

Value context() {
  return *parse_json(R"({"name": "web", "n": 7, "items": [1, 2, 3], "obj": {"a": 1}, "s": "text"})");
}

tera::TemplateError parse_error_of(std::string_view source) {
  auto tpl = tera::compile("t.tera", source);
  EXPECT_FALSE(tpl) << "expected a parse error for: " << source;
  return tpl ? tera::TemplateError{} : tpl.error();
}

tera::TemplateError render_error_with(std::string_view source, const Value& with_context) {
  auto tpl = tera::compile("t.tera", source);
  EXPECT_TRUE(tpl) << (tpl ? "" : tpl.error().describe());
  if (!tpl) return {};
  auto out = tera::render(**tpl, with_context);
  EXPECT_FALSE(out) << "expected a render error, got: " << (out ? *out : "");
  return out ? tera::TemplateError{} : out.error();
}

tera::TemplateError render_error_of(std::string_view source) {
  auto tpl = tera::compile("t.tera", source);
  EXPECT_TRUE(tpl) << (tpl ? "" : tpl.error().describe());
  if (!tpl) return {};
  auto out = tera::render(**tpl, context());
  EXPECT_FALSE(out) << "expected a render error, got: " << (out ? *out : "");
  return out ? tera::TemplateError{} : out.error();
}

std::string render_ok(std::string_view source) {
  auto tpl = tera::compile("t.tera", source);
  EXPECT_TRUE(tpl) << (tpl ? "" : tpl.error().describe());
  if (!tpl) return {};
  auto out = tera::render(**tpl, context());
  EXPECT_TRUE(out) << (out ? "" : out.error().describe());
  return out ? *out : "";
}

}  // namespace

TEST(ParseErrors, NameTemplateLineColumnAndWhatWasExpected) {
  auto e = parse_error_of("line one\nline two {{ name \nmore");
  EXPECT_EQ(e.kind, ErrorKind::Parse);
  EXPECT_EQ(e.template_name, "t.tera");
  EXPECT_EQ(e.location.line, 2u);
  EXPECT_GT(e.location.column, 0u);
  EXPECT_NE(e.describe().find("t.tera:2:"), std::string::npos) << e.describe();

  e = parse_error_of("{% if t %}\n  yes\n");
  EXPECT_NE(e.message.find("endif"), std::string::npos) << e.message;

  e = parse_error_of("{% for i in items %}{{ i }}{% endif %}");
  EXPECT_NE(e.message.find("endfor"), std::string::npos) << e.message;
  EXPECT_EQ(e.location.column, 31u) << e.describe();

  e = parse_error_of("{{ 1 + }}");
  EXPECT_NE(e.message.find("expected"), std::string::npos);

  e = parse_error_of("{% frobnicate %}");
  EXPECT_NE(e.message.find("unknown tag `frobnicate`"), std::string::npos);

  e = parse_error_of("{{ name | replace('a', 'b') }}");
  EXPECT_NE(e.message.find("keyword argument"), std::string::npos) << e.message;

  e = parse_error_of("{# never closed");
  EXPECT_NE(e.message.find("#}"), std::string::npos);

  e = parse_error_of("{{ 'unterminated }}");
  EXPECT_NE(e.message.find("unterminated string"), std::string::npos);

  e = parse_error_of("{{ 99999999999999999999 }}");
  EXPECT_NE(e.message.find("out of bounds"), std::string::npos);

  e = parse_error_of("{% break %}");
  EXPECT_NE(e.message.find("for loop"), std::string::npos);

  e = parse_error_of("{% block a %}{% endblock %}{% block a %}{% endblock %}");
  EXPECT_NE(e.message.find("duplicated"), std::string::npos);
}

TEST(RenderErrors, NameTemplateLineAndTheFailingExpression) {
  auto e = render_error_of("ok\n{{ name + 1 }}");
  EXPECT_EQ(e.kind, ErrorKind::Render);
  EXPECT_EQ(e.location.line, 2u);
  EXPECT_NE(e.expression.find("name"), std::string::npos) << e.describe();
  EXPECT_NE(e.message.find("math"), std::string::npos) << e.message;

  e = render_error_of("{{ nope }}");
  EXPECT_NE(e.message.find("Variable `nope` not found"), std::string::npos);
  EXPECT_EQ(e.expression, "nope");

  e = render_error_of("{{ name | nofilter }}");
  EXPECT_NE(e.message.find("nofilter"), std::string::npos);

  e = render_error_of("{% if n is nosuchtest %}{% endif %}");
  EXPECT_NE(e.message.find("nosuchtest"), std::string::npos);

  e = render_error_of("{{ nosuchfunction() }}");
  EXPECT_NE(e.message.find("nosuchfunction"), std::string::npos);

  e = render_error_of("{{ items.10 }}");
  EXPECT_NE(e.message.find("items.10"), std::string::npos);

  e = render_error_of("{{ n % 0 }}");
  EXPECT_NE(e.message.find("modulo by zero"), std::string::npos);

  e = render_error_of("{{ 9223372036854775807 + 1 }}");
  EXPECT_NE(e.message.find("out of bounds"), std::string::npos);

  e = render_error_of("{% include \"missing.tera\" %}");
  EXPECT_NE(e.message.find("missing.tera"), std::string::npos);
}

TEST(Check, FindsWhatRenderingWouldOnlyFindLater) {
  auto errors = tera::check("t.tera", "{% if false %}{{ x | nofilter }}{{ x | truncate(lenght=3) }}{% endif %}");
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].message.find("unknown filter `nofilter`"), std::string::npos);
  EXPECT_NE(errors[1].message.find("no argument `lenght`"), std::string::npos) << errors[1].message;
  EXPECT_NE(errors[1].message.find("`length`"), std::string::npos) << "names what it takes";
  EXPECT_EQ(errors[1].location.line, 1u);

  errors = tera::check("t.tera", "{{ x is nosuch }}{{ nofn() }}{{ range(stop=3) }}");
  ASSERT_EQ(errors.size(), 3u);

  errors = tera::check("t.tera", "{% macro m(a, b=1) %}{{ a }}{% endmacro %}{{ self::m(b=2) }}{{ self::m(a=1, c=3) }}");
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].message.find("needs the argument `a`"), std::string::npos);
  EXPECT_NE(errors[1].message.find("no argument `c`"), std::string::npos);

  EXPECT_TRUE(tera::check("t.tera", "{{ name | upper | replace(from='A', to='b') }}").empty());
  errors = tera::check("t.tera", "{% if %}");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].kind, ErrorKind::Parse);
}

TEST(Check, TakesACompiledTemplateToo) {
  const std::string_view source = "{{ x | nofilter }}{{ self::nomacro() }}";
  auto tpl = tera::compile("t.tera", source);
  ASSERT_TRUE(tpl) << tpl.error().describe();
  const auto from_source = tera::check("t.tera", source);
  const auto compiled = tera::check(**tpl);
  ASSERT_EQ(compiled.size(), 2u);
  ASSERT_EQ(compiled.size(), from_source.size());
  for (size_t i = 0; i < compiled.size(); ++i) EXPECT_EQ(compiled[i].describe(), from_source[i].describe());
}

// Isolated: the output follows from the template and its data alone, so
// the functions reading the clock, randomness or the environment are
// errors at their call, in check and in render; elsewhere they work.
TEST(Isolation, RefusesFunctionsThatReadTheOutsideWorld) {
  const std::string_view source = "a\n{% if true %}{{ now() }}{% endif %}\n{{ get_random(start=1, end=2) }}"
                                  "{{ get_env(name='HOME', default='x') }}{{ range(end=2) | length }}";
  auto tpl = tera::compile("t.tera", source);
  ASSERT_TRUE(tpl) << tpl.error().describe();
  EXPECT_TRUE(tera::check(**tpl).empty());
  const auto errors = tera::check(**tpl, tera::CheckOptions{.isolated = true});
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].location.line, 2u);
  EXPECT_EQ(errors[0].location.column, 17u);
  EXPECT_NE(errors[0].message.find("`now` reads the clock"), std::string::npos) << errors[0].describe();
  EXPECT_EQ(errors[1].location.line, 3u);
  EXPECT_NE(errors[1].message.find("`get_random` reads a random source"), std::string::npos);
  EXPECT_NE(errors[2].message.find("`get_env` reads the process's environment"), std::string::npos);

  EXPECT_TRUE(tera::render(**tpl, Value(Object{})).ok());
  auto isolated = tera::render(**tpl, Value(Object{}), tera::RenderOptions{.isolated = true});
  ASSERT_FALSE(isolated.ok());
  EXPECT_EQ(isolated.error().location.line, 2u);
  EXPECT_NE(isolated.error().message.find("`now` reads the clock"), std::string::npos) << isolated.error().describe();
  auto pure = tera::compile("p.tera", "{{ range(end=3) | join(sep=',') }}");
  ASSERT_TRUE(pure);
  EXPECT_EQ(tera::render(**pure, Value(Object{}), tera::RenderOptions{.isolated = true}).value(), "0,1,2");
}

namespace {

// "kind name@line:column", with " ignore missing" when the include says so.
std::vector<std::string> references(std::string_view source) {
  auto tpl = tera::compile("t.tera", source);
  EXPECT_TRUE(tpl) << (tpl ? "" : tpl.error().describe());
  std::vector<std::string> out;
  if (!tpl) return out;
  for (const tera::TemplateReference& r : tera::referenced_templates(**tpl)) {
    const char* kind = r.kind == tera::TemplateReference::Kind::Extends  ? "extends"
                       : r.kind == tera::TemplateReference::Kind::Import ? "import"
                                                                         : "include";
    out.push_back(std::string(kind) + " " + r.name + "@" + std::to_string(r.location.line) + ":" +
                  std::to_string(r.location.column) + (r.ignore_missing ? " ignore missing" : ""));
  }
  return out;
}

using Strings = std::vector<std::string>;

}  // namespace

TEST(ReferencedTemplates, ParentImportsAndIncludesInSourceOrder) {
  EXPECT_EQ(references("{% extends \"base.html\" %}\n"
                       "{% import \"macros.html\" as m %}\n"
                       "{% block body %}{% include \"body.html\" %}{% endblock body %}"),
            (Strings{"extends base.html@1:1", "import macros.html@2:1", "include body.html@3:17"}));
  EXPECT_TRUE(references("{{ name }}{% block b %}{% endblock b %}{% macro m() %}{% endmacro %}").empty());
}

TEST(ReferencedTemplates, IncludesInsideEveryKindOfBody) {
  EXPECT_EQ(references("{% macro m() %}{% include \"in-macro\" %}{% endmacro %}\n"
                       "{% if a %}{% include \"in-if\" %}{% elif b %}{% include \"in-elif\" %}"
                       "{% else %}{% include \"in-else\" %}{% endif %}\n"
                       "{% for i in l %}{% include \"in-for\" %}{% else %}{% include \"in-empty\" %}{% endfor %}\n"
                       "{% filter upper %}{% include \"in-filter\" %}{% endfilter %}"),
            (Strings{"include in-macro@1:16", "include in-if@2:11", "include in-elif@2:44", "include in-else@2:77",
                     "include in-for@3:17", "include in-empty@3:49", "include in-filter@4:19"}));
}

TEST(ReferencedTemplates, AListNamesEachTemplateAndIgnoreMissingIsKept) {
  EXPECT_EQ(references("{% include [\"a\", \"b\"] %}{% include \"c\" ignore missing %}"),
            (Strings{"include a@1:1", "include b@1:1", "include c@1:25 ignore missing"}));
}

// A printed `json_encode` writes straight to the output: what comes out
// must be what the filter would have made, after the filters before it.
TEST(Render, PrintedJsonEncodeMatchesTheFilter) {
  EXPECT_EQ(render_ok("{{ name | upper | json_encode() }}|{{ obj | json_encode() }}|{{ items | json_encode() }}"),
            R"("WEB"|{"a":1}|[1,2,3])");
  EXPECT_EQ(render_ok("{{ nope | default(value=n) | json_encode() }}"), "7");
  EXPECT_EQ(render_ok("{{ name | json_encode() | length }}"), "5");
  EXPECT_EQ(render_ok("{{ not name | json_encode() }}"), "false");
  auto e = render_error_of("{{ nope | json_encode() }}");
  EXPECT_NE(e.message.find("nope"), std::string::npos) << e.message;
  e = render_error_of("{{ name | round | json_encode() }}");
  EXPECT_NE(e.message.find("round"), std::string::npos) << e.message;
}

// Outputs from tera-ref: `not` of an undefined variable is true, and the
// filters after it are not applied.
TEST(Render, NotOfAnUndefinedVariableIsTrue) {
  EXPECT_EQ(render_ok("{% if not nope %}yes{% else %}no{% endif %}|{{ not nope }}|{% set v = not nope %}{{ v }}|"
                      "{{ not nope | upper }}|{% if not obj.missing %}yes{% endif %}"),
            "yes|true|true|true|yes");
}

// A concatenation is a condition by its text, as in Tera (outputs from
// tera-ref); one that a filter or `not` turns into another kind is an error
// where Tera panics (found by the differential test).
TEST(Render, ConcatenationAsAConditionIsItsText) {
  EXPECT_EQ(render_ok("{% if s ~ \"\" %}y{% endif %}|{% if \"\" ~ \"\" %}y{% else %}n{% endif %}|"
                      "{% if s ~ 1 %}y{% else %}n{% endif %}"),
            "y|n|y");
  auto e = render_error_of("{% if s ~ name | length %}y{% endif %}");
  EXPECT_NE(e.message.find("concatenation must give a string, got integer"), std::string::npos) << e.message;
  e = render_error_of("{% if not s ~ 1 %}y{% endif %}");
  EXPECT_NE(e.message.find("concatenation must give a string, got bool"), std::string::npos) << e.message;
}

// Tera panics on the one remainder that overflows an i64 (found by the
// differential test); Sindri refuses it, and any other `% -1` is 0, as in Tera.
TEST(Render, RemainderOfTheSmallestIntegerByMinusOneIsAnError) {
  auto e = render_error_of("{% set smallest = -9223372036854775807 - 1 %}{{ smallest % -1 }}");
  EXPECT_NE(e.message.find("-9223372036854775808 % -1 results in an out of bounds i64"), std::string::npos)
      << e.message;
  EXPECT_EQ(render_ok("{{ n % -1 }}|{{ -7 % -1 }}|{{ 9223372036854775807 % -1 }}"), "0|0|0");
}

// A template freed after its thread's kept arena chunks (at exit, by a
// static cache, after the main thread's thread-locals) frees its memory
// normally; under AddressSanitizer this used to be a use after free.
TEST(Arena, TemplateFreedAtExitAfterTheThreadsKeptChunks) {
  EXPECT_EXIT(
      {
        { auto freed_now = tera::compile("a", "{{ x }}"); }
        static auto freed_at_exit = tera::compile("b", "{{ y }}");
        std::exit(freed_at_exit ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(HostileInput, TenThousandNestedIfsIsAnErrorNotAStackOverflow) {
  std::string source;
  for (int i = 0; i < 10000; ++i) source += "{% if true %}";
  source += "x";
  for (int i = 0; i < 10000; ++i) source += "{% endif %}";
  auto e = parse_error_of(source);
  EXPECT_NE(e.message.find("nested deeper"), std::string::npos) << e.message;
  EXPECT_EQ(e.location.line, 1u);
  EXPECT_GT(e.location.column, 1u);
}

TEST(HostileInput, ModeratelyNestedIfsWork) {
  std::string source;
  for (int i = 0; i < 200; ++i) source += "{% if true %}";
  source += "x";
  for (int i = 0; i < 200; ++i) source += "{% endif %}";
  EXPECT_EQ(render_ok(source), "x");
}

TEST(HostileInput, DeeplyNestedExpressionsAreAnError) {
  std::string source = "{{ " + std::string(5000, '(') + "1" + std::string(5000, ')') + " }}";
  auto e = parse_error_of(source);
  EXPECT_NE(e.message.find("nested too deeply"), std::string::npos) << e.message;
}

TEST(HostileInput, DeeplyNestedFilterArgumentsAreAnError) {
  std::string source = "{{ a";
  for (int i = 0; i < 5000; ++i) source += " | default(value=a";
  source += std::string(5000, ')') + " }}";
  auto e = parse_error_of(source);
  EXPECT_NE(e.message.find("nested too deeply"), std::string::npos) << e.message;
}

// A chain of operators nests as deep as it is long: 300,000 of them crashed
// the parse (even under `{% if false %}`).
TEST(HostileInput, LongOperatorChainsAreAnErrorNotACrash) {
  std::string thousand = "{{ 1";
  for (int i = 0; i < 1000; ++i) thousand += " + 1";
  EXPECT_EQ(render_ok(thousand + " }}"), "1001");
  for (const std::string op : {" + 1", " * 1", " or true", " and true"}) {
    std::string source = "{% if false %}{{ 1";
    for (int i = 0; i < 300000; ++i) source += op;
    auto e = parse_error_of(source + " }}{% endif %}");
    EXPECT_NE(e.message.find("more than 1000 operators in a row"), std::string::npos) << op << ": " << e.message;
    EXPECT_EQ(e.location.line, 1u);
  }
}

// A list put inside itself in a loop nested 300,000 deep within the step
// budget, and the process crashed (every walk over a value recurses).
TEST(HostileInput, ListsNestedPast512AreAnErrorNotACrash) {
  const std::string loop = "{% set_global a = [] %}{% for i in range(end=N) %}{% set_global a = [a] %}{% endfor %}";
  const auto with = [&](const std::string& n) {
    return loop.substr(0, loop.find('N')) + n + loop.substr(loop.find('N') + 1);
  };
  EXPECT_EQ(render_ok(with("511") + "{{ a | length }}"), "1");
  auto e = render_error_of(with("300000") + "{{ a | length }}");
  EXPECT_NE(e.message.find("a list or object nested more than 512 deep"), std::string::npos) << e.message;
  EXPECT_EQ(e.location.column, 74u);
  // Two lists in turn: the one built last is not the one nested, so it is walked.
  e = render_error_of("{% set_global a = [] %}{% set_global b = [] %}{% for i in range(end=300000) %}"
                      "{% set_global a = [a] %}{% set_global b = [b] %}{% endfor %}");
  EXPECT_NE(e.message.find("a list or object nested more than 512 deep"), std::string::npos) << e.message;
  // Filters that put a value inside a list or an object count too.
  const Value z = *sindri::parse_json(R"({"z": {"0": "x", "x": [0, {"0": "x"}]}})");
  e = render_error_with("{% set_global o = z %}{% for i in range(end=1000000) %}{% set_global o = [] | "
                        "concat(with=o) | concat(with=z) | group_by(attribute=\"x.1.0\") %}{% endfor %}",
                        z);
  EXPECT_NE(e.message.find("nested more than 512 deep"), std::string::npos) << e.message;
  // A list shared at every level is walked a step per path: the steps run
  // out first, and that is an error too.
  e = render_error_of("{% set_global a = [] %}{% set_global b = [] %}{% for i in range(end=300000) %}"
                      "{% set_global a = [a] %}{% set_global b = [b, b] %}{% endfor %}");
  EXPECT_NE(e.message.find("steps"), std::string::npos) << e.message;
}

TEST(HostileInput, OneMegabyteTemplateRenders) {
  std::string line = "- name: {{ name }}-{{ n * 2 }} {% if n > 3 %}big{% endif %}\n";
  std::string source;
  while (source.size() < (1u << 20)) source += line;
  std::string out = render_ok(source);
  EXPECT_GT(out.size(), 300000u);
  EXPECT_EQ(out.substr(0, 20), "- name: web-14 big\n-");
}

TEST(HostileInput, OneMegabyteTemplateWithAnErrorAtTheEnd) {
  std::string source(1u << 20, 'a');
  source += "\n{{ unclosed";
  auto e = parse_error_of(source);
  EXPECT_EQ(e.location.line, 2u);
}

TEST(HostileInput, RecursiveMacrosStopWithAnError) {
  auto e = render_error_of("{% macro m(n) %}{{ self::m(n=n+1) }}{% endmacro %}{{ self::m(n=0) }}");
  EXPECT_NE(e.message.find("recursed deeper"), std::string::npos) << e.message;
  EXPECT_FALSE(e.expression.empty());
}

TEST(HostileInput, BoundedRecursionWorks) {
  EXPECT_EQ(render_ok("{% macro down(n) %}{{ n }}{% if n > 0 %}{{ self::down(n=n-1) }}{% endif %}{% endmacro %}"
                      "{{ self::down(n=5) }}"),
            "543210");
}

TEST(HostileInput, TypeErrorsAreRenderErrors) {
  render_error_of("{{ name * 2 }}");
  render_error_of("{{ items + 1 }}");
  render_error_of("{% for k, v in items %}{% endfor %}");
  render_error_of("{% for x in n %}{% endfor %}");
  render_error_of("{{ 1 in n }}");
  render_error_of("{{ n | upper }}");
  render_error_of("{{ name | round }}");
}

TEST(Environment, IncludesExtendsAndImports) {
  tera::Environment env;
  ASSERT_TRUE(env.add("base.tera", "<{% block body %}base{% endblock %}>"));
  ASSERT_TRUE(env.add("macros.tera", "{% macro label(k, v='x') %}{{ k }}={{ v }}{% endmacro %}"));
  ASSERT_TRUE(env.add("child.tera",
                      "{% extends \"base.tera\" %}{% import \"macros.tera\" as m %}"
                      "{% block body %}{{ m::label(k=name) }}+{{ super() }}{% include \"part.tera\" %}{% endblock %}"));
  ASSERT_TRUE(env.add("part.tera", "[{{ n }}]"));
  ASSERT_TRUE(env.build());
  auto out = env.render("child.tera", context());
  ASSERT_TRUE(out) << out.error().describe();
  EXPECT_EQ(*out, "<web=x+base[7]>");
  EXPECT_TRUE(env.contains("part.tera"));
  EXPECT_EQ(env.names().size(), 4u);
}

namespace {

using Sources = std::vector<std::pair<std::string, std::string>>;

tera::Environment environment_of(const Sources& sources) {
  tera::Environment env;
  for (const auto& [name, source] : sources) {
    auto added = env.add(name, source);
    EXPECT_TRUE(added) << (added ? "" : added.error().describe());
  }
  return env;
}

// describe() of every error build() reports, in its order.
std::vector<std::string> link_errors(const Sources& sources) {
  tera::Environment env = environment_of(sources);
  auto built = env.build();
  std::vector<std::string> out;
  if (!built) {
    for (const tera::TemplateError& e : built.error()) out.push_back(e.describe());
  }
  return out;
}

std::vector<std::string> missing_includes(const Sources& sources) {
  std::vector<std::string> out;
  for (const tera::TemplateError& e : environment_of(sources).missing_includes()) out.push_back(e.describe());
  return out;
}

}  // namespace

TEST(Link, EveryMissingParentAtItsExtendsTag) {
  EXPECT_EQ(link_errors({{"b.tera", "{% extends \"also-gone\" %}{% block x %}{% endblock %}"},
                         {"a.tera", "\n  {% extends \"gone\" %}"},
                         {"ok.tera", "fine"}}),
            (std::vector<std::string>{
                "a.tera:2:3: parse error: Template 'a.tera' is inheriting from 'gone', which doesn't exist or isn't "
                "loaded.",
                "b.tera:1:1: parse error: Template 'b.tera' is inheriting from 'also-gone', which doesn't exist or "
                "isn't loaded.",
            }));
}

TEST(Link, MissingImportAtItsImportTag) {
  EXPECT_EQ(link_errors({{"macros.tera", "{% macro m() %}{% endmacro %}"},
                         {"page.tera", "{% import \"macros.tera\" as m %}\n{% import \"nowhere\" as n %}x"}}),
            (std::vector<std::string>{
                "page.tera:2:1: parse error: Template `page.tera` loads macros from `nowhere` which isn't present",
            }));
}

TEST(Link, ProblemsOfOneTemplateInSourceOrder) {
  EXPECT_EQ(link_errors({{"t", "{% extends \"p\" %}\n{% import \"i1\" as a %}{% import \"i2\" as b %}"}}),
            (std::vector<std::string>{
                "t:1:1: parse error: Template 't' is inheriting from 'p', which doesn't exist or isn't loaded.",
                "t:2:1: parse error: Template `t` loads macros from `i1` which isn't present",
                "t:2:23: parse error: Template `t` loads macros from `i2` which isn't present",
            }));
}

TEST(Link, ACycleOfTwoOnceOnItsFirstMember) {
  EXPECT_EQ(link_errors({{"b", "{% extends \"a\" %}"}, {"a", "  {% extends \"b\" %}"}}),
            (std::vector<std::string>{
                "a:1:3: parse error: Circular extend detected for template 'a'. Inheritance chain: `a` > `b` > `a`",
            }));
}

TEST(Link, ACycleOfThreeAndATemplateExtendingItself) {
  EXPECT_EQ(link_errors({{"y", "{% extends \"x\" %}"},
                         {"z", "{% extends \"y\" %}"},
                         {"x", "\n{% extends \"z\" %}"},
                         {"self", "{% extends \"self\" %}"}}),
            (std::vector<std::string>{
                "self:1:1: parse error: Circular extend detected for template 'self'. Inheritance chain: `self` > "
                "`self`",
                "x:2:1: parse error: Circular extend detected for template 'x'. Inheritance chain: `x` > `z` > `y` > "
                "`x`",
            }));
}

TEST(Link, TemplatesInheritingFromACycleOrAMissingParentAddNoErrorOfTheirOwn) {
  EXPECT_EQ(link_errors({{"a", "{% extends \"b\" %}"},
                         {"b", "{% extends \"a\" %}"},
                         {"c", "{% extends \"a\" %}"},
                         {"d", "{% extends \"c\" %}"},
                         {"e", "{% extends \"gone\" %}"},
                         {"f", "{% extends \"e\" %}"}}),
            (std::vector<std::string>{
                "a:1:1: parse error: Circular extend detected for template 'a'. Inheritance chain: `a` > `b` > `a`",
                "e:1:1: parse error: Template 'e' is inheriting from 'gone', which doesn't exist or isn't loaded.",
            }));
}

TEST(Link, AWholeSetLinksAndRenders) {
  tera::Environment env = environment_of({
      {"base", "<{% block b %}base{% endblock %}>"},
      {"middle", "{% extends \"base\" %}{% block b %}mid+{{ super() }}{% endblock %}"},
      {"leaf", "{% extends \"middle\" %}{% import \"m\" as m %}{% block b %}{{ m::f() }}+{{ super() }}{% endblock %}"},
      {"m", "{% macro f() %}leaf{% endmacro %}"},
  });
  auto built = env.build();
  ASSERT_TRUE(built) << built.error().front().describe();
  EXPECT_TRUE(env.missing_includes().empty());
  auto out = env.render("leaf", context());
  ASSERT_TRUE(out) << out.error().describe();
  EXPECT_EQ(*out, "<leaf+mid+base>");
}

TEST(Link, AnEnvironmentThatDoesNotLinkDoesNotRender) {
  tera::Environment env = environment_of({{"a", "{% extends \"b\" %}"}, {"b", "{% extends \"a\" %}"}});
  ASSERT_FALSE(env.build());
  EXPECT_FALSE(env.render("a", context()));
}

TEST(Link, AMissingIncludeIsNoBuildErrorButIsReported) {
  const Sources sources = {
      {"main", "{% include \"part\" %}\n{% if false %}{% include \"gone\" %}{% endif %}"
               "{% include \"gone\" ignore missing %}{% include [\"gone\", \"part\"] %}\n"
               "{% macro m() %}  {% include ['x', 'y'] %}{% endmacro %}"},
      {"part", "p"},
      {"other", "{% block b %}{% include \"nope\" %}{% endblock %}"},
  };
  EXPECT_TRUE(link_errors(sources).empty());
  EXPECT_EQ(missing_includes(sources), (std::vector<std::string>{
                                           "main:2:15: render error: Template '[gone]' not found",
                                           "main:3:18: render error: Template '[x, y]' not found",
                                           "other:1:14: render error: Template '[nope]' not found",
                                       }));
  EXPECT_TRUE(missing_includes({{"main", "{% include \"gone\" ignore missing %}"}}).empty());
}

// A child template renders only its blocks (and the macros they call): an
// include outside them never renders, and Tera never looks for its template.
TEST(Link, AChildTemplatesIncludeOutsideItsBlocksAndMacrosIsNotReported) {
  const Sources sources = {
      {"parent", "P{% block b %}{% endblock %}"},
      {"child", "{% extends \"parent\" %}{% include \"nope\" %}{% block b %}B{% include \"gone\" %}{% endblock %}"
                "{% macro m() %}{% include \"lost\" %}{% endmacro %}"},
  };
  EXPECT_EQ(missing_includes(sources), (std::vector<std::string>{
                                           "child:1:57: render error: Template '[gone]' not found",
                                           "child:1:106: render error: Template '[lost]' not found",
                                       }));
  tera::Environment env = environment_of({sources[0], {"child", "{% extends \"parent\" %}{% include \"nope\" %}"
                                                                  "{% block b %}B{% endblock %}"}});
  ASSERT_TRUE(env.build());
  auto out = env.render("child", context());
  ASSERT_TRUE(out) << out.error().describe();
  EXPECT_EQ(*out, "PB");
}

TEST(Link, TheRendererWordsAMissingIncludeAsTheCheckDoes) {
  tera::Environment env = environment_of({{"main", "a\n{% include [\"x\", \"y\"] %}"}});
  ASSERT_TRUE(env.build());
  auto out = env.render("main", context());
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().message, env.missing_includes().front().message);
  EXPECT_EQ(out.error().location.line, 2u);
  EXPECT_EQ(out.error().location.column, 1u);
}

TEST(Threads, OneCompiledTemplateRendersFromManyThreadsAtOnce) {
  auto tpl = tera::compile("t", "{% for i in items %}{{ name | upper }}-{{ i * n }};{% endfor %}{{ obj | json_encode() }}");
  ASSERT_TRUE(tpl);
  Value ctx = context();
  const std::string expected = "WEB-7;WEB-14;WEB-21;{\"a\":1}";
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        auto out = tera::render(**tpl, ctx);
        if (!out || *out != expected) ++mismatches;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(Cache, CompilesEachSourceOnceAndSharesIt) {
  tera::TemplateCache cache(2);
  auto a1 = cache.get_or_compile("a", "{{ name }}");
  auto a2 = cache.get_or_compile("a", "{{ name }}");
  ASSERT_TRUE(a1);
  ASSERT_TRUE(a2);
  EXPECT_EQ(a1->get(), a2->get()) << "same source, same compiled template";
  auto b = cache.get_or_compile("b", "{{ n }}");
  auto c = cache.get_or_compile("c", "{{ s }}");
  EXPECT_EQ(cache.size(), 2u) << "least recently used evicted";
  auto bad = cache.get_or_compile("bad", "{{ ");
  EXPECT_FALSE(bad);
  EXPECT_EQ(cache.size(), 2u);
}

TEST(Cache, Sha256) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Autoescape, OffByDefaultOnWhenAsked) {
  auto tpl = tera::compile("t", "{{ v }}|{{ v | safe }}|{{ v | escape }}");
  ASSERT_TRUE(tpl);
  Value ctx = *parse_json(R"({"v": "<a href='x'>"})");
  EXPECT_EQ(*tera::render(**tpl, ctx), "<a href='x'>|<a href='x'>|&lt;a href=&#x27;x&#x27;&gt;");
  tera::RenderOptions escape;
  escape.autoescape = true;
  EXPECT_EQ(*tera::render(**tpl, ctx, escape),
            "&lt;a href=&#x27;x&#x27;&gt;|<a href='x'>|&amp;lt;a href=&amp;#x27;x&amp;#x27;&amp;gt;");
}

namespace {

tera::TemplateError budget_error(std::string_view source, const tera::RenderOptions& options) {
  auto tpl = tera::compile("t.tera", source);
  EXPECT_TRUE(tpl);
  auto out = tera::render(**tpl, context(), options);
  EXPECT_FALSE(out);
  return out ? tera::TemplateError{} : out.error();
}

}  // namespace

TEST(Budget, RunawayLoopsStopWithAnError) {
  tera::RenderOptions small;
  small.max_steps = 10000;
  auto e = budget_error("{% for i in range(end=1000) %}{% for j in range(end=1000) %}{% endfor %}{% endfor %}", small);
  EXPECT_NE(e.message.find("steps"), std::string::npos) << e.message;
  EXPECT_EQ(e.location.line, 1u);
}

TEST(Budget, MacroFanOutStops) {
  tera::RenderOptions small;
  small.max_steps = 10000;
  auto e = budget_error(
      "{% macro f(n) %}{% if n > 0 %}{{ self::f(n=n-1) }}{{ self::f(n=n-1) }}{% endif %}{% endmacro %}"
      "{{ self::f(n=30) }}",
      small);
  EXPECT_NE(e.message.find("steps"), std::string::npos) << e.message;
}

TEST(Budget, OutputAndBuiltValuesAreBounded) {
  tera::RenderOptions small;
  small.max_output_bytes = 1000;
  auto e = budget_error("{% for i in range(end=10) %}{% for j in range(end=10) %}0123456789abcdef{% endfor %}{% endfor %}",
                        small);
  EXPECT_NE(e.message.find("output is larger"), std::string::npos) << e.message;
  e = budget_error("{% set s = 'xxxxxxxxxxxxxxxx' %}{% for i in range(end=20) %}{% set_global s = s ~ s %}{% endfor %}",
                   small);
  EXPECT_NE(e.message.find("passed the limit of 1000 bytes"), std::string::npos) << e.message;
  e = budget_error("{% set a = [1, 2] %}{% for i in range(end=20) %}{% set_global a = a | concat(with=a) %}{% endfor %}",
                   small);
  EXPECT_NE(e.message.find("passed the limit of 1000 bytes"), std::string::npos) << e.message;
}

TEST(Budget, PrintedJsonIsBoundedLikeTheOutput) {
  tera::RenderOptions small;
  small.max_output_bytes = 1000;
  auto e = budget_error("{% set r = range(end=50) %}{{ [r, r, r, r, r, r, r, r] | json_encode() }}", small);
  EXPECT_NE(e.message.find("output is larger"), std::string::npos) << e.message;
}

TEST(Budget, HugeRangeIsRefusedBeforeAllocating) {
  auto e = render_error_of("{% for i in range(end=100000000) %}{% endfor %}");
  EXPECT_NE(e.message.find("passed the limit"), std::string::npos) << e.message;
}
