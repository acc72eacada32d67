// Templates written to hold a worker thread or to make the process allocate
// gigabytes, as the broker met them (it renders templates from any API
// client): each fails fast, with an error naming the limit and where in the
// template it was hit. The broker's options are those of
// broker::render_compiled with the default 10 MiB request body limit.
//
// No test measures time: were the work not bounded, they would run for
// minutes or exhaust memory instead of failing.

#include <gtest/gtest.h>

#include <string>

#include "tera/tera.hpp"
#include "value/json.hpp"

using namespace sindri;

namespace {

tera::RenderOptions broker_options() {
  tera::RenderOptions options;
  options.max_output_bytes = 10u << 20;
  options.isolated = true;
  return options;
}

tera::TemplateError error_of(std::string_view source, const Value& context, const tera::RenderOptions& options) {
  auto tpl = tera::compile("attack.tera", source);
  EXPECT_TRUE(tpl) << (tpl ? "" : tpl.error().describe());
  if (!tpl) return {};
  auto out = tera::render(**tpl, context, options);
  EXPECT_FALSE(out) << "expected a render error, got " << (out ? out->size() : 0) << " bytes";
  return out ? tera::TemplateError{} : out.error();
}

std::string render_ok(std::string_view source, const Value& context, const tera::RenderOptions& options) {
  auto tpl = tera::compile("ok.tera", source);
  EXPECT_TRUE(tpl) << (tpl ? "" : tpl.error().describe());
  if (!tpl) return {};
  auto out = tera::render(**tpl, context, options);
  EXPECT_TRUE(out) << out.error().describe();
  return out ? *out : std::string();
}

// Where `needle` first occurs in `source`, as an error locates it.
tera::Location where(std::string_view source, std::string_view needle) {
  const size_t at = source.find(needle);
  EXPECT_NE(at, std::string_view::npos) << needle;
  tera::Location location{1, 1};
  for (size_t i = 0; i < at; ++i) {
    if (source[i] == '\n') {
      ++location.line;
      location.column = 1;
    } else {
      ++location.column;
    }
  }
  return location;
}

void expect_at(const tera::TemplateError& e, std::string_view source, std::string_view needle) {
  const tera::Location expected = where(source, needle);
  EXPECT_EQ(e.location.line, expected.line) << e.describe();
  EXPECT_EQ(e.location.column, expected.column) << e.describe();
}

constexpr std::string_view kStepsHit = "steps (a step for each loop iteration";
constexpr std::string_view kBrokerValueHit = "passed the limit of 10485760 bytes for a string or list";

Value with_big_string() {
  Value context(Object{});
  context.set("big", Value(std::string(1'000'000, 'a')));
  return context;
}

}  // namespace

// Bug 1: one step could be a `replace` on a megabyte, and this held a worker
// for 33 s.
TEST(Budget, FilterWorkIsChargedByTheByte) {
  const std::string source =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"
      "{% for i in range(end=1500) %}{% set t = big | replace(from='a', to='bb') %}{% endfor %}";
  const tera::TemplateError e = error_of(source, with_big_string(), broker_options());
  EXPECT_NE(e.message.find(kStepsHit), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("100000000"), std::string::npos) << e.message;
  expect_at(e, source, "replace(");
  EXPECT_EQ(e.template_name, "attack.tera");
}

TEST(Budget, FilterWorkInAHugeLoopStopsAsSoon) {
  const std::string source =
      "{% for i in range(end=10000) %}{% for j in range(end=1000) %}"
      "{% set t = big | upper %}{% endfor %}{% endfor %}";
  const tera::TemplateError e = error_of(source, with_big_string(), tera::RenderOptions{});
  EXPECT_NE(e.message.find(kStepsHit), std::string::npos) << e.message;
  expect_at(e, source, "upper");
}

// A macro recursing in two branches copies its text up every level.
TEST(Budget, MacroFanOutIsChargedForTheTextItCopies) {
  const std::string source =
      "{% macro f(n) %}{% if n > 0 %}{{ self::f(n=n-1) }}{{ self::f(n=n-1) }}{% else %}xxxxxxxxxxxxxxxx"
      "{% endif %}{% endmacro %}{{ self::f(n=40) }}";
  const tera::TemplateError e = error_of(source, Value(Object{}), tera::RenderOptions{});
  EXPECT_NE(e.message.find(kStepsHit), std::string::npos) << e.message;
}

TEST(Budget, WorkWhoseFailureIsIgnoredStillEndsTheRender) {
  // An `if` on a failing filter is false in Tera; a limit hit there is not.
  tera::RenderOptions small;
  small.max_steps = 5'000'000;
  const std::string source =
      "{% for i in range(end=100) %}{% if big | replace(from='a', to='bb') %}{% endif %}{% endfor %}done";
  const tera::TemplateError e = error_of(source, with_big_string(), small);
  EXPECT_NE(e.message.find(kStepsHit), std::string::npos) << e.message;
  expect_at(e, source, "replace(");
}

TEST(Budget, ComparingListsThatShareMuchIsCharged) {
  // Equal but not shared: each level compares four times the one below.
  const std::string source =
      "{% set a = range(end=1000) %}{% set b = range(end=1000) %}"
      "{% for i in range(end=12) %}{% set_global a = [a, a, a, a] %}{% set_global b = [b, b, b, b] %}{% endfor %}"
      "{{ a == b }}";
  const tera::TemplateError e = error_of(source, Value(Object{}), broker_options());
  EXPECT_NE(e.message.find(kStepsHit), std::string::npos) << e.message;
  expect_at(e, source, "a == b");
}

// Work that grows with the template's own size, repeated by a loop.
TEST(Budget, LongTemplatesPayForWhatTheyRepeat) {
  std::string params, args, sets, reads;
  for (int i = 0; i < 3000; ++i) {
    const std::string name = "p" + std::to_string(i);
    params += (i ? ", " : "") + name;
    args += (i ? ", " : "") + name + "=1";
    sets += "{% set " + name + " = 1 %}";
    reads += "{{ " + name + " }}";
  }
  // Each parameter looks for its argument among all given.
  const std::string macro = "{% macro m(" + params + ") %}{% endmacro %}{% for i in range(end=100000) %}{{ self::m(" +
                            args + ") }}{% endfor %}";
  tera::TemplateError e = error_of(macro, Value(Object{}), broker_options());
  EXPECT_NE(e.message.find(kStepsHit), std::string::npos) << e.message;
  expect_at(e, macro, "self::m(");
  // Each `set` and read looks through the names set before.
  const std::string locals = "{% for i in range(end=100000) %}" + sets + reads + "{% endfor %}";
  e = error_of(locals, Value(Object{}), broker_options());
  EXPECT_NE(e.message.find(kStepsHit), std::string::npos) << e.message;
}

TEST(Budget, SortingIsChargedForItsComparisons) {
  const std::string source =
      "{% set r = range(end=600000) %}{% for i in range(end=1000) %}{% set x = r | sort %}{% endfor %}";
  const tera::TemplateError e = error_of(source, Value(Object{}), broker_options());
  EXPECT_NE(e.message.find(kStepsHit), std::string::npos) << e.message;
  expect_at(e, source, "sort");
}

TEST(Budget, RegexBacktrackingIsCharged) {
  // Each match backtracks millions of times, below PCRE2's match limit.
  Value context(Object{});
  context.set("s", Value(std::string(24, 'a') + "!"));
  const std::string source =
      "{% for i in range(end=100000) %}{% if s is matching('^(a|aa)+$') %}{% endif %}{% endfor %}";
  const tera::TemplateError e = error_of(source, context, broker_options());
  EXPECT_NE(e.message.find(kStepsHit), std::string::npos) << e.message;
  expect_at(e, source, "s is matching");
}

TEST(Budget, DeadlineIsABackstop) {
  tera::RenderOptions hurried;
  hurried.max_duration = std::chrono::milliseconds(1);
  hurried.max_steps = UINT64_MAX;
  const std::string source = "{% for i in range(end=100000) %}{% for j in range(end=100000) %}{% endfor %}{% endfor %}";
  const tera::TemplateError e = error_of(source, Value(Object{}), hurried);
  EXPECT_NE(e.message.find("rendering took longer than 1 ms"), std::string::npos) << e.message;
  EXPECT_EQ(e.location.line, 1u);
}

// Bug 2: the size of a value was checked after it was built, and values
// share what they hold, so `[a, a, a, a]` is small and its JSON is not.
TEST(Budget, SharedListsAreNotExpandedPastTheLimit) {
  const std::string source =
      "{% set r = range(end=10000000) %}{% set a = [r,r,r,r] %}{% set b = [a,a,a,a] %}{{ b | json_encode | length }}";
  tera::TemplateError e = error_of(source, Value(Object{}), broker_options());
  EXPECT_NE(e.message.find(kBrokerValueHit), std::string::npos) << e.message;
  expect_at(e, source, "range(");

  // Lists that fit, whose text does not.
  const std::string lists = "{% set r = range(end=150000) %}{% set a = [r,r,r,r] %}{% set b = [a,a,a,a] %}";
  for (const char* expansion : {"{{ b | json_encode | length }}", "{{ b | json_encode(pretty=true) | length }}",
                                "{{ b | as_str | length }}", "{{ b | join(sep=',') | length }}",
                                "{{ __tera_context | length }}"}) {
    SCOPED_TRACE(expansion);
    const std::string attack = lists + expansion;
    e = error_of(attack, Value(Object{}), broker_options());
    EXPECT_NE(e.message.find(kBrokerValueHit), std::string::npos) << e.message;
    EXPECT_EQ(e.location.line, 1u);
    EXPECT_GT(e.location.column, lists.size()) << e.describe();
  }
  e = error_of(lists + "{{ b }}", Value(Object{}), broker_options());
  EXPECT_NE(e.message.find("the output is larger than the limit of 10485760 bytes"), std::string::npos) << e.message;
}

TEST(Budget, BuildersStopAtTheLimit) {
  // `s` is 2.7 MB: within the limit, and enough to pass it several ways.
  const std::string setup = "{% set a = range(end=400000) %}{% set s = a | join(sep=',') %}";
  struct Attack {
    const char* code;
    const char* at;
  };
  for (const Attack& attack : {
           Attack{"{{ s | split(pat='') | length }}", "split("},
           Attack{"{% set t = s ~ ',' ~ s %}{{ t | split(pat=',') | length }}", "split("},
           Attack{"{{ s | replace(from=',', to=s) | length }}", "replace("},
           Attack{"{{ s | replace(from='', to='xyz1') | length }}", "replace("},
           Attack{"{{ a | join(sep='\\n') | indent(prefix=s) | length }}", "indent("},
           Attack{"{{ a | join(sep=s) | length }}", "join(sep=s"},
           Attack{"{% set t = s ~ s ~ s ~ s ~ s %}", "s ~ s"},
           Attack{"{{ a | concat(with=a) | length }}", "concat("},
           Attack{"{{ range(end=1000000) | length }}", "range(end=1000000"},
       }) {
    SCOPED_TRACE(attack.code);
    const std::string source = setup + attack.code;
    const tera::TemplateError e = error_of(source, Value(Object{}), broker_options());
    EXPECT_NE(e.message.find(kBrokerValueHit), std::string::npos) << e.message;
    expect_at(e, source, attack.at);
  }
}

TEST(Budget, ValuesWithinTheLimitAreBuilt) {
  tera::RenderOptions options = broker_options();
  EXPECT_EQ(render_ok("{{ range(end=655360) | length }}", Value(Object{}), options), "655360");
  EXPECT_EQ(render_ok("{% set r = range(end=3) %}{{ [r, r] | json_encode }} {{ [r, r] }}", Value(Object{}), options),
            "[[0,1,2],[0,1,2]] [[0, 1, 2], [0, 1, 2]]");
  options.max_output_bytes = 12;
  EXPECT_EQ(render_ok("{{ 'abcdef' ~ 'ghijkl' }}", Value(Object{}), options), "abcdefghijkl");
  EXPECT_EQ(render_ok("{{ 'abc' | replace(from='b', to='0123456789') }}", Value(Object{}), options), "a0123456789c");
}

// std::string_view::find compares the needle at every position: a 500 kB
// needle in a megabyte took minutes.
TEST(Budget, SubstringSearchIsLinear) {
  Value context(Object{});
  context.set("hay", Value(std::string(1'000'000, 'a')));
  context.set("needle", Value(std::string(500'000, 'a') + "b"));
  EXPECT_EQ(render_ok("{{ hay is containing(needle) }} {{ needle in hay }} {{ hay | replace(from=needle, to='') | length }} "
                      "{{ hay | split(pat=needle) | length }}",
                      context, broker_options()),
            "false false 1000000 1");
}

TEST(Budget, StriptagsIsLinear) {
  std::string comments;
  for (int i = 0; i < 200'000; ++i) comments += "<!--a>";
  Value context(Object{});
  context.set("html", Value(comments + "kept"));
  EXPECT_EQ(render_ok("{{ html | striptags }}", context, broker_options()), "kept");
}

TEST(Budget, MessagesShowLargeValuesCutShort) {
  const std::string source = "{% set r = range(end=100000) %}{% set b = [r, r, r, r] %}{{ b | upper }}";
  const tera::TemplateError e = error_of(source, Value(Object{}), broker_options());
  EXPECT_NE(e.message.find("Filter `upper` was called on an incorrect value: got `[[0,1,2,"), std::string::npos)
      << e.message.substr(0, 200);
  EXPECT_NE(e.message.find("…` but expected a String"), std::string::npos) << e.message.substr(0, 200);
  EXPECT_LT(e.message.size(), 2000u);
}
