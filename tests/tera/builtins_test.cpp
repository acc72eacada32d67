// Hand-written tests of the builtins: what the reference cases cannot cover
// (Tera 1.18-1.20 additions, the renderer-facing helpers, lookups).
// Expected values for 1.18+ behaviour follow Tera 1.20's source
// (src/builtins/filters/{string,number,array}.rs); the rest were checked
// against the Tera 1.17 reference renderer.

#include <chrono>
#include <cmath>
#include <cstdlib>

#include "builtins_test_util.hpp"

namespace sindri::tera {
namespace {

using testing::json;

Result<Value> call(std::string_view filter, const Value& input, std::string_view args = "{}") {
  const FilterDef* def = find_filter(filter);
  EXPECT_NE(def, nullptr) << filter;
  static Value keep;  // the argument names point into this object
  keep = json(args);
  static std::vector<Arg> list;
  list = testing::named_args(keep);
  return def->fn(input, Args(list), testing::fresh_budget());
}

std::string ok_string(const Result<Value>& r) {
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  if (!r.ok() || !r->is_string()) return "<not a string>";
  return std::string(r->get_string());
}

std::string err(const Result<Value>& r) {
  EXPECT_FALSE(r.ok());
  return r.ok() ? "<ok>" : r.error().message;
}

TEST(Builtins, LookupKnowsEveryTeraBuiltin) {
  for (const char* f : {"upper", "lower", "trim", "trim_start", "trim_end", "trim_start_matches", "trim_end_matches",
                        "truncate", "wordcount", "replace", "capitalize", "title", "linebreaksbr", "indent",
                        "striptags", "spaceless", "urlencode", "urlencode_strict", "escape", "escape_xml", "slugify",
                        "addslashes", "split", "int", "float", "first", "last", "nth", "join", "sort", "unique",
                        "slice", "group_by", "filter", "map", "concat", "abs", "pluralize", "round",
                        "filesizeformat", "length", "reverse", "date", "json_encode", "as_str", "get", "safe",
                        "default"}) {
    const FilterDef* d = find_filter(f);
    ASSERT_NE(d, nullptr) << f;
    EXPECT_EQ(d->name, f);
  }
  for (const char* t : {"defined", "undefined", "odd", "even", "string", "number", "divisibleby", "iterable",
                        "object", "starting_with", "ending_with", "containing", "matching"}) {
    EXPECT_NE(find_test(t), nullptr) << t;
  }
  for (const char* fn : {"range", "now", "throw", "get_random", "get_env"}) EXPECT_NE(find_function(fn), nullptr);
  EXPECT_EQ(find_filter("nope"), nullptr);
  EXPECT_EQ(find_filter(""), nullptr);
  EXPECT_EQ(find_filter("uppe"), nullptr);
  EXPECT_EQ(find_test("nope"), nullptr);
  EXPECT_EQ(find_function("nope"), nullptr);
}

TEST(Builtins, ParamsAreDeclared) {
  auto has = [](const std::vector<std::string_view>& ps, std::string_view p) {
    for (auto x : ps) {
      if (x == p) return true;
    }
    return false;
  };
  EXPECT_TRUE(has(find_filter("round")->params, "precision"));
  EXPECT_TRUE(has(find_filter("round")->params, "method"));
  EXPECT_TRUE(has(find_filter("indent")->params, "blank"));
  EXPECT_TRUE(has(find_filter("filesizeformat")->params, "binary"));
  EXPECT_TRUE(has(find_function("range")->params, "step_by"));
  EXPECT_TRUE(find_filter("upper")->params.empty());
  EXPECT_EQ(find_test("divisibleby")->max_args, 1u);
  EXPECT_EQ(find_test("odd")->max_args, 0u);
}

TEST(Builtins, SafeAndDefaultPassThrough) {
  EXPECT_EQ(to_json(*call("safe", Value("<b>"))), "\"<b>\"");
  EXPECT_EQ(to_json(*call("default", Value(3), R"({"value":1})")), "3");
}

// ---- Tera 1.18+ ----

TEST(Builtins, AbsFromTera118) {
  EXPECT_EQ(to_json(*call("abs", Value(1))), "1");
  EXPECT_EQ(to_json(*call("abs", Value(-1))), "1");
  EXPECT_EQ(to_json(*call("abs", Value(-1.5))), "1.5");
  EXPECT_EQ(to_json(*call("abs", Value(-0.0))), "0.0");
  EXPECT_EQ(to_json(*call("abs", Value(0))), "0");
  EXPECT_EQ(err(call("abs", Value("nan"))), "Filter `abs` was used on a value that isn't a number.");
  EXPECT_EQ(err(call("abs", Value())), "Filter `abs` was used on a value that isn't a number.");
}

TEST(Builtins, IndentFromTera118) {
  EXPECT_EQ(ok_string(call("indent", Value("a\nb\n\nc"))), "a\n    b\n\n    c");
  EXPECT_EQ(ok_string(call("indent", Value("a\nb"), R"({"first":true})")), "    a\n    b");
  EXPECT_EQ(ok_string(call("indent", Value("a\n\n  \nb"), R"({"blank":true,"prefix":"> "})")), "a\n> \n>   \n> b");
  EXPECT_EQ(ok_string(call("indent", Value("a\n  \nb"))), "a\n  \n    b");  // whitespace-only line is blank
  EXPECT_EQ(ok_string(call("indent", Value("a\r\nb\n"), R"({"prefix":"\t"})")), "a\n\tb");  // str::lines()
  EXPECT_EQ(ok_string(call("indent", Value(""), R"({"first":true})")), "");
  EXPECT_EQ(ok_string(call("indent", Value("\n"), R"({"first":true})")), "    ");
  EXPECT_EQ(err(call("indent", Value(1))), "Filter `indent` was called on an incorrect value: got `1` but expected a String");
  EXPECT_EQ(err(call("indent", Value("a"), R"({"prefix":2})")),
            "Filter `indent` received an incorrect type for arg `prefix`: got `2` but expected a String");
  EXPECT_EQ(err(call("indent", Value("a"), R"({"first":"yes"})")),
            "Filter `indent` received an incorrect type for arg `first`: got `\"yes\"` but expected a bool");
  EXPECT_EQ(err(call("indent", Value("a"), R"({"blank":1})")),
            "Filter `indent` received an incorrect type for arg `blank`: got `1` but expected a bool");
}

TEST(Builtins, TitleHandlesApostrophesFromTera118) {
  EXPECT_EQ(ok_string(call("title", Value("it's o'neil's 'quoted' words"))), "It's O'neil's 'Quoted' Words");
  EXPECT_EQ(ok_string(call("title", Value("'hello'"))), "'Hello'");
  EXPECT_EQ(ok_string(call("title", Value("''"))), "''");
  EXPECT_EQ(ok_string(call("title", Value("foo-bar"))), "Foo-Bar");
}

TEST(Builtins, JoinUnescapesSeparatorFromTera120) {
  Value arr = json(R"(["a","b"])");
  EXPECT_EQ(ok_string(call("join", arr, R"({"sep":"\\n"})")), "a\nb");
  EXPECT_EQ(ok_string(call("join", arr, R"({"sep":"\\t"})")), "a\tb");
  EXPECT_EQ(ok_string(call("join", arr, R"({"sep":", "})")), "a, b");
}

TEST(Builtins, FilesizeformatBinaryFromTera118) {
  EXPECT_EQ(ok_string(call("filesizeformat", Value(123456789))), "117.74 MB");
  EXPECT_EQ(ok_string(call("filesizeformat", Value(123456789), R"({"binary":true})")), "117.74 MiB");
  EXPECT_EQ(ok_string(call("filesizeformat", Value(1024), R"({"binary":true})")), "1 KiB");
  EXPECT_EQ(err(call("filesizeformat", Value(1), R"({"binary":1})")),
            "Filter `filesizeformat` received an incorrect type for arg `binary`: got `1` but expected a bool");
}

TEST(Builtins, DottedPathsFromTera118) {
  Value arr = json(R"([{"a":{"b.c":2},"n":"x"},{"a":{"b.c":1},"n":"y"}])");
  EXPECT_EQ(to_json(*call("map", arr, R"({"attribute":"a[\"b.c\"]"})")), "[2,1]");
  EXPECT_EQ(to_json(*call("map", arr, R"({"attribute":"a.'b.c'"})")), "[2,1]");
  EXPECT_EQ(to_json(*call("sort", arr, R"({"attribute":"a[\"b.c\"]"})")),
            R"([{"a":{"b.c":1},"n":"y"},{"a":{"b.c":2},"n":"x"}])");
  Value nested = json(R"([{"l":[{"v":1},{"v":2}]}])");
  EXPECT_EQ(to_json(*call("map", nested, R"({"attribute":"l.1.v"})")), "[2]");
  // Tera's path splitter mis-slices the segment after `]`, so this finds nothing.
  EXPECT_EQ(to_json(*call("map", nested, R"({"attribute":"l[1].v"})")), "[]");
  EXPECT_EQ(to_json(*call("map", nested, R"({"attribute":"l.01.v"})")), "[]");
}

// ---- helpers the renderer uses ----

std::string rendered(const Value& v) {
  std::string out;
  EXPECT_TRUE(append_rendered(out, v, SIZE_MAX));
  return out;
}

TEST(Builtins, AppendRendered) {
  EXPECT_EQ(rendered(json(R"([1, 1.5, "a", true, null, [2.0], {"x": 1}])")), "[1, 1.5, a, true, , [2], [object]]");
  EXPECT_EQ(rendered(Value(1e21)), "1000000000000000000000");
  EXPECT_EQ(rendered(Value(0.1)), "0.1");
  EXPECT_EQ(rendered(Value(-0.0)), "-0");
  EXPECT_EQ(rendered(Value()), "");
  std::string out = "x";
  EXPECT_TRUE(append_rendered(out, Value(int64_t{-5}), 3));
  EXPECT_EQ(out, "x-5");
}

TEST(Builtins, AppendRenderedStopsAtTheLimitWithWhatFitted) {
  std::string out = "x";
  EXPECT_FALSE(append_rendered(out, json(R"(["abc", 12345, "de"])"), 9));
  EXPECT_EQ(out, "x[abc, ");
  out.clear();
  EXPECT_FALSE(append_rendered(out, Value(int64_t{-12345}), 5));
  EXPECT_EQ(out, "");
  out.clear();
  EXPECT_TRUE(append_rendered(out, json(R"([[1, 2], "ab"])"), 13));
  EXPECT_EQ(out, "[[1, 2], ab]");
}

TEST(Builtins, Truthiness) {
  EXPECT_FALSE(is_truthy(Value()));
  EXPECT_FALSE(is_truthy(Value(false)));
  EXPECT_FALSE(is_truthy(Value(0)));
  EXPECT_FALSE(is_truthy(Value(0.0)));
  EXPECT_FALSE(is_truthy(Value(std::nan(""))));
  EXPECT_FALSE(is_truthy(Value("")));
  EXPECT_FALSE(is_truthy(json("[]")));
  EXPECT_FALSE(is_truthy(json("{}")));
  EXPECT_TRUE(is_truthy(Value(true)));
  EXPECT_TRUE(is_truthy(Value(-1)));
  EXPECT_TRUE(is_truthy(Value(0.5)));
  EXPECT_TRUE(is_truthy(Value("0")));
  EXPECT_TRUE(is_truthy(json("[0]")));
  EXPECT_TRUE(is_truthy(json(R"({"a":null})")));
}

TEST(Builtins, HtmlEscape) {
  std::string out;
  append_html_escaped(out, "<a href=\"/x\">'&'</a> é");
  EXPECT_EQ(out, "&lt;a href=&quot;&#x2F;x&quot;&gt;&#x27;&amp;&#x27;&lt;&#x2F;a&gt; é");
  out.clear();
  append_html_escaped(out, "");
  EXPECT_EQ(out, "");
}

// ---- nondeterministic functions ----

TEST(Builtins, NowShapes) {
  const FunctionDef* now = find_function("now");
  std::vector<Arg> none;
  auto local = now->fn(Args(none), testing::fresh_budget());
  ASSERT_TRUE(local.ok());
  ASSERT_TRUE(local->is_string());
  std::string_view s = local->get_string();
  EXPECT_GE(s.size(), 25u);
  EXPECT_EQ(s[4], '-');
  EXPECT_EQ(s[10], 'T');

  Value t(true);
  std::vector<Arg> utc{{"utc", t}};
  auto u = now->fn(Args(utc), testing::fresh_budget());
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->get_string().substr(u->get_string().size() - 6), "+00:00");

  std::vector<Arg> ts{{"timestamp", t}};
  auto stamp = now->fn(Args(ts), testing::fresh_budget());
  ASSERT_TRUE(stamp.ok());
  ASSERT_TRUE(stamp->is_int());
  int64_t wall = std::chrono::duration_cast<std::chrono::seconds>(
                     std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_LE(std::abs(stamp->get_int() - wall), 5);
}

TEST(Builtins, GetRandomStaysInRange) {
  const FunctionDef* rnd = find_function("get_random");
  Value start(-3), end(4);
  std::vector<Arg> args{{"start", start}, {"end", end}};
  for (int i = 0; i < 200; ++i) {
    auto r = rnd->fn(Args(args), testing::fresh_budget());
    ASSERT_TRUE(r.ok());
    EXPECT_GE(r->get_int(), -3);
    EXPECT_LT(r->get_int(), 4);
  }
  Value same(4);
  std::vector<Arg> empty{{"start", same}, {"end", same}};
  EXPECT_FALSE(rnd->fn(Args(empty), testing::fresh_budget()).ok());  // Tera panics on an empty range
}

TEST(Builtins, GetEnvReadsTheEnvironment) {
  ::setenv("SINDRI_BUILTINS_TEST_VAR", "hello", 1);
  Value name("SINDRI_BUILTINS_TEST_VAR");
  std::vector<Arg> args{{"name", name}};
  auto r = find_function("get_env")->fn(Args(args), testing::fresh_budget());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->get_string(), "hello");
}

TEST(Builtins, RangeRefusesZeroStep) {
  Value end(3), zero(0);
  std::vector<Arg> args{{"end", end}, {"step_by", zero}};
  EXPECT_FALSE(find_function("range")->fn(Args(args), testing::fresh_budget()).ok());  // Tera loops forever
}

// ---- robustness ----

TEST(Builtins, MatchingInvalidRegexIsAnError) {
  Value s("abc"), bad("(");
  auto r = find_test("matching")->fn(&s, std::span<const Value>(&bad, 1), testing::fresh_budget());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("Tester `matching`: Invalid regular expression: ", 0), 0u);
}

TEST(Builtins, MatchingPathologicalPatternTerminates) {
  Value s(std::string(40, 'a') + "!"), pat("^(a+)+$");
  auto r = find_test("matching")->fn(&s, std::span<const Value>(&pat, 1), testing::fresh_budget());
  // Either answer is quick: no match, or the match limit reports an error.
  if (r.ok()) {
    EXPECT_FALSE(*r);
  }
}

TEST(Builtins, ContainingWithoutParameterOnArrayIsAnError) {
  Value arr = json("[1]");
  EXPECT_FALSE(find_test("containing")->fn(&arr, {}, testing::fresh_budget()).ok());  // Tera panics
}

TEST(Builtins, DateErrorsInsteadOfPanicking) {
  // Tera panics formatting an offset of a timestamp without a time zone.
  EXPECT_FALSE(call("date", Value(0), R"({"format":"%z"})").ok());
  EXPECT_FALSE(call("date", Value(0), R"({"format":"%#z"})").ok());
  EXPECT_FALSE(call("date", Value(INT64_MAX)).ok());
}

TEST(Builtins, LongStringsKeepTheirBytes) {
  std::string big(100000, 'x');
  big += "é";
  EXPECT_EQ(ok_string(call("upper", Value(big))).size(), big.size());
  EXPECT_EQ(ok_string(call("reverse", Value(big))).substr(0, 2), "é");
  EXPECT_EQ(to_json(*call("length", Value(big))), "100001");
}

}  // namespace
}  // namespace sindri::tera
