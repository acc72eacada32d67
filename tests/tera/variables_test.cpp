// tera::context_variables: the top-level variables a template reads.

#include "tera/variables.hpp"

#include <gtest/gtest.h>

#include "tera/template.hpp"

namespace sindri::tera {
namespace {

// "name@line:column" for each read, in order.
std::vector<std::string> reads(std::string_view source) {
  auto tpl = compile("t", source);
  EXPECT_TRUE(tpl.ok()) << (tpl ? "" : tpl.error().describe());
  std::vector<std::string> out;
  if (!tpl) return out;
  for (const VariableRead& r : context_variables(**tpl)) {
    out.push_back(r.name + "@" + std::to_string(r.location.line) + ":" + std::to_string(r.location.column));
  }
  return out;
}

using V = std::vector<std::string>;

TEST(ContextVariables, RootsOfPathsInEveryKindOfExpression) {
  EXPECT_EQ(reads("{{ a.b[0] }}\n{{ c[d.e] | default(value=f) }}{% if g is defined and h in i %}{% endif %}"),
            (V{"a@1:4", "c@2:4", "d@2:6", "f@2:27", "g@2:38", "h@2:55", "i@2:60"}));
  EXPECT_EQ(reads("{{ range(end=n) }}{{ [x, 1] | join(sep=s) }}{{ 'a' ~ y }}{% filter upper(x=z) %}{% endfilter %}"),
            (V{"n@1:14", "x@1:23", "s@1:40", "y@1:54", "z@1:76"}));
}

TEST(ContextVariables, LoopVariablesAndLoopAreLocalToTheLoop) {
  EXPECT_EQ(reads("{% for k, v in items %}{{ k }}{{ v.x }}{{ loop.index }}{{ other }}{% else %}{{ v }}{% endfor %}"
                  "{{ loop }}"),
            (V{"items@1:16", "other@1:59", "v@1:80", "loop@1:99"}));
}

TEST(ContextVariables, SetShadowsFromWhereItIsWritten) {
  EXPECT_EQ(reads("{{ x }}{% set x = x | default(value=1) %}{{ x }}"), (V{"x@1:4", "x@1:19"}));
  // A set inside an `if` counts as done: no false report.
  EXPECT_EQ(reads("{% if c %}{% set y = 1 %}{% endif %}{{ y }}"), (V{"c@1:7"}));
  // A set in a loop lasts until the loop ends; set_global outlives it.
  EXPECT_EQ(reads("{% for i in l %}{% set a = i %}{% set_global b = i %}{{ a }}{% endfor %}{{ a }}{{ b }}"),
            (V{"l@1:13", "a@1:76"}));
}

TEST(ContextVariables, MacroParametersAreLocalButTheContextIsNot) {
  EXPECT_EQ(reads("{% macro m(p, q=1) %}{{ p }}{{ q }}{{ g }}{% set t = 1 %}{{ t }}{% endmacro %}{{ p }}{{ t }}"),
            (V{"p@1:82", "t@1:89", "g@1:39"}));
  EXPECT_EQ(reads("{{ __tera_context }}"), V{});
}

TEST(ContextVariables, BlocksOfAChildTemplateAreRead) {
  EXPECT_EQ(reads("{% extends \"base\" %}{% block b %}{{ x }}{{ super() }}{% endblock %}"), (V{"x@1:37"}));
}

}  // namespace
}  // namespace sindri::tera
