// Violation pointers and messages, remote references, meta-schema checks,
// 2019-09 / 2020-12 keywords, defaults, and the three-tier schema.

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "schema/schema.hpp"
#include "value/json.hpp"

namespace sindri::schema {
namespace {

Value json(std::string_view text) {
  auto parsed = parse_json(text);
  EXPECT_TRUE(parsed.ok()) << text;
  return parsed ? *parsed : Value();
}

Value json_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return json(buffer.str());
}

CompiledSchema compile(std::string_view text) {
  auto compiled = compile_schema(json(text));
  EXPECT_TRUE(compiled.ok()) << (compiled ? "" : compiled.error().describe());
  return std::move(compiled).value();
}

std::vector<std::string> described(const CompiledSchema& schema, std::string_view instance) {
  std::vector<std::string> out;
  for (const Violation& v : validate(schema, json(instance))) out.push_back(v.describe());
  return out;
}

using Lines = std::vector<std::string>;

TEST(SchemaViolations, ReportsEveryViolationWithPointersAndMessages) {
  CompiledSchema schema = compile(R"({
    "type": "object", "required": ["name", "db"],
    "properties": {
      "mode": {"enum": ["a", "b"]},
      "db": {"type": "object", "properties": {"port": {"type": "integer", "maximum": 65535}}},
      "tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}},
      "a/b": {"minLength": 2}
    },
    "additionalProperties": false})");
  EXPECT_EQ(described(schema, R"({"mode": "c", "db": {"port": 70000}, "tags": ["ok", "No"], "a/b": "x", "extra": 1})"),
            (Lines{"/a~1b: must be at least 2 characters long, got 1 (schema /properties/a~1b/minLength)",
                   "/db/port: must be at most 65535, got 70000 (schema /properties/db/properties/port/maximum)",
                   "/extra: property `extra` is not allowed (schema /additionalProperties)",
                   "/mode: must be one of \"a\", \"b\", got \"c\" (schema /properties/mode/enum)",
                   "/tags/1: must match the pattern \"^[a-z]+$\", got \"No\" (schema /properties/tags/items/pattern)",
                   "(root): missing required property `name` (schema /required)"}));
}

TEST(SchemaViolations, ApplicatorsReportOneSummary) {
  CompiledSchema schema = compile(R"({"properties": {
    "any": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    "one": {"oneOf": [{"minimum": 0}, {"maximum": 10}]},
    "not": {"not": {"type": "null"}}}})");
  EXPECT_EQ(described(schema, R"({"any": null, "one": 5, "not": null})"),
            (Lines{"/any: must match at least one of the 2 schemas in anyOf (schema /properties/any/anyOf)",
                   "/not: must not match the schema in `not` (schema /properties/not/not)",
                   "/one: must match exactly one of the 2 schemas in oneOf, matched schemas 0, 1 (schema /properties/one/oneOf)"}));
  EXPECT_TRUE(is_valid(schema, json(R"({"any": 3, "one": -1, "not": 1})")));
}

TEST(SchemaViolations, RefTargetsReportTheirOwnLocation) {
  CompiledSchema schema = compile(R"({"$defs": {"port": {"type": "integer", "maximum": 65535}},
                                      "items": {"$ref": "#/$defs/port"}})");
  EXPECT_EQ(described(schema, "[1, \"x\", 70000]"),
            (Lines{"/1: must be integer, got string (schema /$defs/port/type)",
                   "/2: must be at most 65535, got 70000 (schema /$defs/port/maximum)"}));
}

TEST(SchemaViolations, FormatsAreCheckedByDefaultAndCanBeTurnedOff) {
  CompiledSchema schema = compile(R"({"format": "ipv4"})");
  EXPECT_EQ(described(schema, "\"256.1.1.1\""), (Lines{"(root): must be a valid ipv4, got \"256.1.1.1\" (schema /format)"}));
  ValidateOptions options;
  options.check_formats = false;
  EXPECT_TRUE(validate(schema, json("\"256.1.1.1\""), options).empty());
  for (const char* format : {"date-time", "date", "time", "email", "hostname", "ipv6", "uri", "uuid", "regex"}) {
    CompiledSchema s = compile(std::string(R"({"format": ")") + format + "\"}");
    EXPECT_FALSE(is_valid(s, json("\"not valid [\""))) << format;
  }
  EXPECT_TRUE(is_valid(compile(R"({"format": "uuid"})"), json("\"123e4567-e89b-12d3-a456-426614174000\"")));
  EXPECT_TRUE(is_valid(compile(R"({"format": "date-time"})"), json("\"2024-02-29T12:00:00.5+01:00\"")));
  EXPECT_FALSE(is_valid(compile(R"({"format": "date"})"), json("\"2023-02-29\"")));
}

TEST(SchemaCompile, RemoteRefIsAnErrorNamingIt) {
  auto compiled = compile_schema(json(R"({"properties": {"x": {"$ref": "https://example.com/s.json#/a"}}})"));
  ASSERT_FALSE(compiled.ok());
  EXPECT_EQ(compiled.error().pointer, "/properties/x/$ref");
  EXPECT_NE(compiled.error().message.find("https://example.com/s.json"), std::string::npos);
  EXPECT_NE(compiled.error().message.find("not fetched"), std::string::npos);
}

TEST(SchemaCompile, RegisteredDocumentsResolve) {
  CompileOptions options;
  options.documents.emplace_back("https://example.com/s.json", json(R"({"a": {"type": "string"}})"));
  auto compiled = compile_schema(json(R"({"$ref": "https://example.com/s.json#/a"})"), options);
  ASSERT_TRUE(compiled.ok());
  EXPECT_FALSE(is_valid(*compiled, json("1")));
  EXPECT_TRUE(is_valid(*compiled, json("\"s\"")));
}

TEST(SchemaCompile, BadRegexAndMissingTargetsAreErrors) {
  auto bad_pattern = compile_schema(json(R"({"properties": {"x": {"pattern": "(["}}})"));
  ASSERT_FALSE(bad_pattern.ok());
  EXPECT_EQ(bad_pattern.error().pointer, "/properties/x/pattern");
  auto missing = compile_schema(json(R"({"$ref": "#/definitions/nope"})"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().pointer, "/$ref");
}

TEST(SchemaCompile, RecursiveSchemasTerminate) {
  CompiledSchema tree = compile(R"({"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#"}}}})");
  EXPECT_TRUE(is_valid(tree, json(R"({"children": [{"children": []}, {}]})")));
  EXPECT_FALSE(is_valid(tree, json(R"({"children": [{"children": [1]}]})")));
  CompiledSchema loop = compile(R"({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"})");
  std::vector<Violation> violations = validate(loop, json("1"));
  ASSERT_FALSE(violations.empty());
  EXPECT_NE(violations[0].message.find("recurses"), std::string::npos);
}

TEST(SchemaModernKeywords, DraftSelection) {
  EXPECT_EQ(compile("{}").draft(), Draft::Draft2020_12);
  EXPECT_EQ(compile(R"({"$schema": "http://json-schema.org/draft-07/schema#"})").draft(), Draft::Draft7);
  // Before 2019-09 a $ref hides its siblings; from 2019-09 on they apply.
  Value draft7 = json(R"({"$schema": "http://json-schema.org/draft-07/schema#", "$defs": {"s": {}}, "$ref": "#/$defs/s", "type": "string"})");
  Value modern = json(R"({"$defs": {"s": {}}, "$ref": "#/$defs/s", "type": "string"})");
  EXPECT_TRUE(is_valid(*compile_schema(draft7), json("1")));
  EXPECT_FALSE(is_valid(*compile_schema(modern), json("1")));
}

TEST(SchemaModernKeywords, PrefixItemsDependentRequiredAnchor) {
  CompiledSchema schema = compile(R"({
    "properties": {
      "pair": {"prefixItems": [{"type": "string"}, {"$ref": "#num"}], "items": false},
      "card": {"dependentRequired": {"number": ["expiry"]}, "dependentSchemas": {"cvc": {"required": ["number"]}}}},
    "$defs": {"n": {"$anchor": "num", "type": "integer"}}})");
  EXPECT_TRUE(is_valid(schema, json(R"({"pair": ["a", 1], "card": {"number": 1, "expiry": 2}})")));
  EXPECT_EQ(described(schema, R"({"pair": ["a", "b", 3], "card": {"number": 1, "cvc": 3}})"),
            (Lines{"/card: missing property `expiry`, required when `number` is present (schema /properties/card/dependentRequired/number)",
                   "/pair/1: must be integer, got string (schema /$defs/n/type)",
                   "/pair/2: no item is allowed at index 2 (at most 2 items) (schema /properties/pair/items)"}));
}

TEST(SchemaModernKeywords, UnevaluatedPropertiesSeesThroughApplicators) {
  CompiledSchema schema = compile(R"({
    "allOf": [{"properties": {"a": {}}}],
    "anyOf": [{"properties": {"b": {}}, "required": ["b"]}, {"properties": {"c": {}}, "required": ["c"]}],
    "unevaluatedProperties": false})");
  EXPECT_TRUE(is_valid(schema, json(R"({"a": 1, "b": 2})")));
  EXPECT_EQ(described(schema, R"({"a": 1, "b": 2, "d": 4})"),
            (Lines{"/d: property `d` is not allowed (unevaluatedProperties) (schema /unevaluatedProperties)"}));
  CompiledSchema items = compile(R"({"prefixItems": [{"type": "integer"}], "contains": {"type": "string"}, "unevaluatedItems": false})");
  EXPECT_TRUE(is_valid(items, json(R"([1, "x"])")));
  EXPECT_FALSE(is_valid(items, json(R"([1, "x", null])")));
}

TEST(SchemaDefaults, FillsAbsentPropertiesWhereTheInstanceReaches) {
  CompiledSchema schema = compile(R"({"properties": {
    "port": {"default": 80},
    "db": {"properties": {"host": {"default": "localhost"}}},
    "cache": {"properties": {"ttl": {"default": 60}}},
    "list": {"items": {"properties": {"on": {"default": true}}}},
    "choice": {"anyOf": [{"properties": {"x": {"default": 1}}}]}},
    "allOf": [{"properties": {"mode": {"default": "fast"}}}]})");
  Value filled = apply_defaults(schema, json(R"({"db": {}, "list": [{}, {"on": false}], "choice": {}})"));
  EXPECT_EQ(to_json(filled),
            R"({"choice":{},"db":{"host":"localhost"},"list":[{"on":true},{"on":false}],"mode":"fast","port":80})");
}

// Defaults reached only through $ref and items, missing in one place: that
// place is filled, and an instance that already holds them all comes back
// as it was.
TEST(SchemaDefaults, FillsOnlyWhereADefaultIsMissing) {
  CompiledSchema schema = compile(R"({
    "definitions": {"port": {"properties": {"number": {"default": 80}, "name": {"type": "string"}}}},
    "properties": {
      "services": {"items": {"properties": {"ports": {"items": {"$ref": "#/definitions/port"}}}}},
      "replicas": {"default": 1}}})");
  const Value complete =
      json(R"({"replicas": 3, "services": [{"ports": [{"number": 1, "name": "a"}]}, {"ports": [{"number": 2}]}]})");
  EXPECT_EQ(apply_defaults(schema, complete), complete);
  Value deep = apply_defaults(
      schema, json(R"({"replicas": 3, "services": [{"ports": [{"number": 1}]}, {"ports": [{"name": "b"}, {}]}]})"));
  EXPECT_EQ(to_json(deep),
            R"({"replicas":3,"services":[{"ports":[{"number":1}]},{"ports":[{"name":"b","number":80},{"number":80}]}]})");
}

TEST(SchemaMeta, CheckSchemaReportsProblemsWithPointers) {
  EXPECT_TRUE(check_schema(json(R"({"type": "object", "properties": {"a": {"type": "string"}}})")).empty());
  std::vector<Violation> problems = check_schema(json(R"({"$schema": "http://json-schema.org/draft-07/schema#",
                                                          "properties": {"a": {"type": "strng", "minLength": -1}}})"));
  ASSERT_FALSE(problems.empty());
  for (const Violation& v : problems) EXPECT_EQ(v.instance_location.rfind("/properties/a/", 0), 0u) << v.describe();
  std::vector<Violation> remote = check_schema(json(R"({"$ref": "http://example.com/x.json"})"));
  ASSERT_EQ(remote.size(), 1u);
  EXPECT_EQ(remote[0].instance_location, "/$ref");
  for (Draft draft : {Draft::Draft4, Draft::Draft6, Draft::Draft7, Draft::Draft2020_12}) {
    EXPECT_TRUE(check_schema(meta_schema(draft), draft).empty()) << draft_name(draft);
  }
  // A meta-schema Sindri does not know would be read by another draft's rules.
  std::vector<Violation> unknown = check_schema(json(R"({"$schema": "http://example.com/unknown#", "type": "object"})"));
  ASSERT_EQ(unknown.size(), 1u);
  EXPECT_EQ(unknown[0].instance_location, "/$schema");
  EXPECT_NE(unknown[0].message.find("unknown meta-schema \"http://example.com/unknown#\""), std::string::npos)
      << unknown[0].message;
  EXPECT_TRUE(check_schema(json(R"({"$schema": "https://json-schema.org/draft/2019-09/schema"})")).empty());
  // A default its own subschema refuses would fail every validation after
  // apply_defaults, on a value the user never gave.
  std::vector<Violation> defaults = check_schema(json(R"({"properties": {"name": {"type": "string", "default": 5},
      "tags": {"type": "array", "items": {"type": "string"}, "default": ["a", 2]},
      "ok": {"type": "integer", "default": 3}, "a#b": {"type": "string", "default": 1}}})"));
  std::multiset<std::string> where;
  for (const Violation& v : defaults) where.insert(v.instance_location);
  EXPECT_EQ(where, (std::multiset<std::string>{"/properties/name/default", "/properties/tags/default/1",
                                               "/properties/a#b/default"}));
  EXPECT_NE(defaults.at(0).message.find("the default does not satisfy its own schema: "), std::string::npos);
}

// The pair reported is the first in (i, j) order: the earliest item that has
// a duplicate, with its nearest later duplicate.
TEST(SchemaUniqueItems, ReportsTheFirstDuplicatePair) {
  CompiledSchema schema = compile(R"({"uniqueItems": true})");
  EXPECT_EQ(described(schema, "[1, 2, 2, 1]"),
            (Lines{"(root): items must be unique, but items 0 and 3 are both 1 (schema /uniqueItems)"}));
  EXPECT_EQ(described(schema, R"(["b", "a", "c", "a", "c", "a"])"),
            (Lines{"(root): items must be unique, but items 1 and 3 are both \"a\" (schema /uniqueItems)"}));
  EXPECT_EQ(described(schema, "[{}, [], [], {}]"),
            (Lines{"(root): items must be unique, but items 0 and 3 are both {} (schema /uniqueItems)"}));
  EXPECT_TRUE(is_valid(schema, json("[]")));
  EXPECT_TRUE(is_valid(schema, json("[3, 2, 1]")));
  EXPECT_FALSE(is_valid(schema, json("[3, 2, 1, 2]")));
}

TEST(SchemaUniqueItems, ItemsAreComparedAsJsonValues) {
  CompiledSchema schema = compile(R"({"uniqueItems": true})");
  auto duplicate = [&](std::string_view instance) { return !is_valid(schema, json(instance)); };
  EXPECT_TRUE(duplicate("[1, 1.0]"));
  EXPECT_TRUE(duplicate("[-0.0, 0]"));
  EXPECT_TRUE(duplicate("[0.0, -0.0]"));
  EXPECT_TRUE(duplicate("[2.5, 25e-1]"));
  EXPECT_TRUE(duplicate(R"([{"a": 1, "b": 2}, {"b": 2, "a": 1}])"));
  EXPECT_TRUE(duplicate(R"([[1, [2, {"x": [3]}]], [1.0, [2, {"x": [3.0]}]]])"));
  EXPECT_TRUE(duplicate("[null, null]"));
  EXPECT_TRUE(duplicate("[false, false]"));
  EXPECT_TRUE(duplicate(R"(["long string past the inline size", "long string past the inline size"])"));
  EXPECT_FALSE(duplicate("[[1, 2], [2, 1]]"));
  EXPECT_FALSE(duplicate("[[1], [1, 1]]"));
  EXPECT_FALSE(duplicate(R"([{"a": 1}, {"a": 1, "b": 2}, {"b": 1}])"));
  EXPECT_FALSE(duplicate(R"([1, true, "1", [1], {"1": 1}])"));
  EXPECT_FALSE(duplicate("[0, false, null, [], {}, \"\"]"));
  EXPECT_FALSE(duplicate(R"(["a", "A", "a "])"));
  EXPECT_FALSE(duplicate("[1, 1.5, 2]"));
  // int64 integers stay exact: these differ only beyond a double's 53 bits.
  EXPECT_FALSE(duplicate("[9007199254740992, 9007199254740993]"));
  EXPECT_FALSE(duplicate("[9223372036854775807, 9223372036854775806]"));
  EXPECT_FALSE(duplicate("[-9223372036854775808, -9223372036854775807]"));
  EXPECT_TRUE(duplicate("[9223372036854775807, 9223372036854775807]"));
}

TEST(SchemaUniqueItems, ChecksNestedArraysItemByItem) {
  CompiledSchema schema = compile(R"({"items": {"uniqueItems": true}})");
  EXPECT_EQ(described(schema, "[[1, 2], [3, 3], [1, 1.0]]"),
            (Lines{"/1: items must be unique, but items 0 and 1 are both 3 (schema /items/uniqueItems)",
                   "/2: items must be unique, but items 0 and 1 are both 1 (schema /items/uniqueItems)"}));
}

// A refused value is shown as its JSON text cut to 80 characters, however
// large it is.
TEST(SchemaViolations, LargeValuesAreShownCutTo80Characters) {
  CompiledSchema schema = compile(R"({"const": 0})");
  Array numbers;
  for (int i = 0; i < 100'000; ++i) numbers.push_back(Value(i));
  Value nested(Object{Member{Value("b"), Value(Array{Value(numbers)})}, Member{Value("a"), Value("x")}});
  for (const Value& large : {Value(numbers), nested, Value(Array{nested, nested})}) {
    std::vector<Violation> found = validate(schema, large);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].message, "must be 0, got " + to_json(large).substr(0, 77) + "...");
  }
  // Exactly 80 characters stay whole.
  const std::string eighty(78, 'x');
  EXPECT_EQ(described(schema, "\"" + eighty + "\""),
            (Lines{"(root): must be 0, got \"" + eighty + "\" (schema /const)"}));
  EXPECT_EQ(described(schema, R"([[1, {"k": [true, null]}], "s"])"),
            (Lines{R"((root): must be 0, got [[1,{"k":[true,null]}],"s"] (schema /const))"}));
}

// A NaN (YAML's .nan) equals nothing, not even another NaN.
TEST(SchemaUniqueItems, NanEqualsNothing) {
  CompiledSchema schema = compile(R"({"uniqueItems": true})");
  const Value nan(std::nan(""));
  EXPECT_TRUE(is_valid(schema, Value(Array{nan, nan, Value(Array{nan}), Value(Array{nan})})));
  std::vector<Violation> found =
      validate(schema, Value(Array{Value(Array{Value(1), nan}), Value(Array{Value(1), nan}), Value(Array{Value(1), Value(2)}),
                                   nan, Value(Array{Value(1), Value(2.0)})}));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].message, "items must be unique, but items 2 and 4 are both [1,2]");
}

// Comparing every pair took 51 s for the 200,000 integers and 15 s for the
// 50,000 objects.
TEST(SchemaUniqueItems, LargeArraysAreCheckedQuickly) {
  CompiledSchema schema = compile(R"({"properties": {"x": {"uniqueItems": true}}})");
  auto holding = [](Array items) { return Value(Object{Member{Value("x"), Value(std::move(items))}}); };
  Array numbers;
  for (int i = 0; i < 200'000; ++i) numbers.push_back(Value(i));
  EXPECT_TRUE(validate(schema, holding(numbers)).empty());
  numbers.push_back(Value(0.0));
  EXPECT_EQ(described(schema, to_json(holding(numbers))),
            (Lines{"/x: items must be unique, but items 0 and 200000 are both 0 (schema /properties/x/uniqueItems)"}));
  Array objects;
  for (int i = 0; i < 50'000; ++i) {
    objects.push_back(Value(Object{Member{Value("id"), Value(i)}, Member{Value("name"), Value("replica")}}));
  }
  EXPECT_TRUE(is_valid(schema, holding(objects)));
  EXPECT_TRUE(validate(schema, holding(objects)).empty());
}

// An int64 beyond 2^53 is not rounded to a double to be compared with one:
// 2^53 + 1 would equal 2^53.0, which equals 2^53, which 2^53 + 1 does not.
TEST(SchemaNumbers, IntegersAndDoublesCompareByMathematicalValue) {
  auto valid = [](std::string_view schema, std::string_view instance) {
    return is_valid(compile(schema), json(instance));
  };
  EXPECT_TRUE(valid(R"({"const": 9007199254740992.0})", "9007199254740992"));
  EXPECT_FALSE(valid(R"({"const": 9007199254740992.0})", "9007199254740993"));
  EXPECT_TRUE(valid(R"({"enum": [1e18]})", "1000000000000000000"));
  EXPECT_FALSE(valid(R"({"enum": [1e18]})", "1000000000000000001"));
  EXPECT_FALSE(valid(R"({"const": 9223372036854775808})", "9223372036854775807"));
  EXPECT_TRUE(valid(R"({"const": -9223372036854775808.0})", "-9223372036854775808"));
  EXPECT_TRUE(valid(R"({"const": [1, {"a": 2}]})", R"([1.0, {"a": 2.0}])"));
  EXPECT_TRUE(valid(R"({"const": 0})", "-0.0"));
  EXPECT_FALSE(valid(R"({"const": 1})", "1.5"));
  EXPECT_EQ(described(compile(R"({"uniqueItems": true})"), "[9007199254740993, 9007199254740992.0, 9007199254740992]"),
            (Lines{"(root): items must be unique, but items 1 and 2 are both 9007199254740992.0 (schema /uniqueItems)"}));
  EXPECT_FALSE(valid(R"({"maximum": 9007199254740992.0})", "9007199254740993"));
  EXPECT_TRUE(valid(R"({"maximum": 9007199254740992.0})", "9007199254740992"));
  EXPECT_FALSE(valid(R"({"minimum": 1e18})", "999999999999999999"));
  EXPECT_TRUE(valid(R"({"minimum": 1e18})", "1000000000000000000"));
  EXPECT_TRUE(valid(R"({"exclusiveMaximum": 9223372036854775808})", "9223372036854775807"));
  EXPECT_FALSE(valid(R"({"exclusiveMinimum": -9223372036854775808.0})", "-9223372036854775808"));
  EXPECT_TRUE(valid(R"({"minimum": -1e300, "maximum": 1e300})", "-9223372036854775808"));
  EXPECT_FALSE(valid(R"({"minimum": 0.5})", "0"));
  EXPECT_TRUE(valid(R"({"minimum": 0.5})", "1"));
  EXPECT_TRUE(valid(R"({"maximum": -0.5})", "-1"));
  EXPECT_FALSE(valid(R"({"maximum": -0.5})", "0"));
  EXPECT_TRUE(valid(R"({"exclusiveMinimum": 2, "exclusiveMaximum": 3})", "2.5"));
}

TEST(SchemaNumbers, MultipleOfLargeDivisorsAndIntegers) {
  auto valid = [](std::string_view schema, std::string_view instance) {
    return is_valid(compile(schema), json(instance));
  };
  // A quotient within rounding error of 0 made every small number a multiple.
  EXPECT_FALSE(valid(R"({"multipleOf": 1e10})", "1"));
  EXPECT_FALSE(valid(R"({"multipleOf": 1e10})", "1.5"));
  EXPECT_FALSE(valid(R"({"multipleOf": 1e308})", "5"));
  EXPECT_FALSE(valid(R"({"multipleOf": 0.01})", "1e-12"));
  EXPECT_TRUE(valid(R"({"multipleOf": 1e10})", "0"));
  EXPECT_TRUE(valid(R"({"multipleOf": 1e10})", "-0.0"));
  EXPECT_TRUE(valid(R"({"multipleOf": 1e10})", "20000000000"));
  EXPECT_TRUE(valid(R"({"multipleOf": 1e10})", "-2e10"));
  EXPECT_TRUE(valid(R"({"multipleOf": 0.1})", "0.3"));
  EXPECT_TRUE(valid(R"({"multipleOf": 0.0001})", "0.0075"));
  EXPECT_FALSE(valid(R"({"multipleOf": 0.1})", "0.35"));
  // Integers, whether written 2 or 2.0, by remainder rather than through doubles.
  EXPECT_FALSE(valid(R"({"multipleOf": 2.0})", "9007199254740993"));
  EXPECT_TRUE(valid(R"({"multipleOf": 2.0})", "9007199254740994"));
  EXPECT_FALSE(valid(R"({"multipleOf": 7})", "1e18"));
  EXPECT_TRUE(valid(R"({"multipleOf": 7})", "7e17"));
  EXPECT_TRUE(valid(R"({"multipleOf": 7.0})", "-9223372036854775807"));
  EXPECT_FALSE(valid(R"({"multipleOf": 7.0})", "-9223372036854775808"));
  EXPECT_TRUE(valid(R"({"multipleOf": 2.0})", "-9223372036854775808"));
}

// A limit of 2^64 or more passes the meta-schema (it is an integer) and is
// more than any size: 1e20 was converted to a uint64_t by undefined
// behaviour, minLength 1e20 then accepted "abc" and maxLength 1e20 refused it.
TEST(SchemaLimits, LimitsBeyondUint64AreMoreThanAnySize) {
  for (std::string huge : {"18446744073709551615", "18446744073709551616", "1e20", "1e30", "1e308", "9223372036854775807"}) {
    auto valid = [&](const std::string& keywords, std::string_view instance) {
      std::string text = "{" + keywords + huge + "}";
      EXPECT_TRUE(check_schema(json(text)).empty()) << text;
      return is_valid(compile(text), json(instance));
    };
    EXPECT_FALSE(valid(R"("minLength": )", R"("abc")")) << huge;
    EXPECT_FALSE(valid(R"("minLength": )", R"("")")) << huge;
    EXPECT_TRUE(valid(R"("maxLength": )", R"("abc")")) << huge;
    EXPECT_FALSE(valid(R"("minItems": )", "[1]")) << huge;
    EXPECT_TRUE(valid(R"("maxItems": )", "[1, 2]")) << huge;
    EXPECT_FALSE(valid(R"("minProperties": )", "{}")) << huge;
    EXPECT_TRUE(valid(R"("maxProperties": )", R"({"a": 1})")) << huge;
    EXPECT_FALSE(valid(R"("contains": true, "minContains": )", "[1, 1]")) << huge;
    EXPECT_TRUE(valid(R"("contains": true, "maxContains": )", "[1, 1]")) << huge;
  }
  EXPECT_EQ(described(compile(R"({"minLength": 1e30})"), R"("abc")"),
            (Lines{"(root): must be at least 18446744073709551615 characters long, got 3 (schema /minLength)"}));
  EXPECT_TRUE(is_valid(compile(R"({"minLength": 3.0, "maxLength": 3.0})"), json(R"("abc")")));
  for (const char* bad : {"-1", "-1e30", "1.5", "\"3\"", "null"}) {
    EXPECT_FALSE(compile_schema(json(std::string(R"({"maxItems": )") + bad + "}")).ok()) << bad;
  }
}

TEST(SchemaThreeTier, CorpusParametersAreValid) {
  Value schema_json = json_file(SINDRI_TESTS_DIR "/schema/three-tier.schema.json");
  EXPECT_TRUE(check_schema(schema_json).empty());
  auto schema = compile_schema(schema_json);
  ASSERT_TRUE(schema.ok()) << schema.error().describe();
  Value params = json_file(SINDRI_TESTS_DIR "/../../shared/corpus/bench/three-tier.json");
  for (const Violation& v : validate(*schema, params)) ADD_FAILURE() << v.describe();
  Value broken = params;
  Value db = *broken.find("db");
  db.set("port", Value(70000));
  broken.set("db", db);
  EXPECT_EQ(described(*schema, to_json(broken)),
            (Lines{"/db/port: must be at most 65535, got 70000 (schema /properties/db/properties/port/maximum)"}));
}

// A large instance against a recursive schema made millions of violations
// (gigabytes of messages); with a cap the list stops and says so.
TEST(SchemaViolationCap, TheListStopsAtTheCapAndSaysMoreFollow) {
  const CompiledSchema schema = compile(R"({"items": {"type": "string"}})");
  const Value ten = json("[1,2,3,4,5,6,7,8,9,10]");
  EXPECT_EQ(validate(schema, ten).size(), 10u);
  const auto capped = validate(schema, ten, ValidateOptions{.max_violations = 3});
  ASSERT_EQ(capped.size(), 4u);
  EXPECT_EQ(capped[0].instance_location, "/0");
  EXPECT_EQ(capped[2].instance_location, "/2");
  EXPECT_EQ(capped[3].message, "more violations follow; only the first 3 are listed");
  // Exactly as many as the cap: nothing follows, nothing is said.
  EXPECT_EQ(validate(schema, json("[1,2,3]"), ValidateOptions{.max_violations = 3}).size(), 3u);
  EXPECT_EQ(validate(schema, json(R"([1,2,3,"x"])"), ValidateOptions{.max_violations = 3}).size(), 3u);

  // Ten consts at each of 500 levels of a recursive schema, on 200,000
  // integers: two million violations uncapped.
  const CompiledSchema recursive = compile(R"({"$defs": {"level": {"anyOf": [
      {"type": "integer", "allOf": [{"const": "a"}, {"const": "b"}, {"const": "c"}]},
      {"type": "array", "items": {"$ref": "#/$defs/level"}}]}},
    "$ref": "#/$defs/level", "items": {"allOf": [{"const": "a"}, {"const": "b"}, {"const": "c"}, {"const": "d"},
      {"const": "e"}, {"const": "f"}, {"const": "g"}, {"const": "h"}, {"const": "i"}, {"const": "j"}]}})");
  Array numbers;
  for (int64_t i = 0; i < 200000; ++i) numbers.push_back(Value(i));
  const auto many = validate(recursive, Value(std::move(numbers)), ValidateOptions{.max_violations = 100});
  ASSERT_EQ(many.size(), 101u);
  EXPECT_EQ(many.back().message, "more violations follow; only the first 100 are listed");

  // propertyNames gathers its violations apart: the cap holds there too.
  Object keys;
  for (int i = 0; i < 1000; ++i) keys.push_back({Value("long-name-" + std::to_string(i)), Value(i)});
  const auto names = validate(compile(R"({"propertyNames": {"maxLength": 1}})"), Value(std::move(keys)),
                              ValidateOptions{.max_violations = 10});
  ASSERT_EQ(names.size(), 11u);
  EXPECT_EQ(names.back().message, "more violations follow; only the first 10 are listed");
}

TEST(SchemaMeta, ConstrainsAnythingTellsASchemaFromAValuesFile) {
  EXPECT_TRUE(constrains_anything(json(R"({"type": "object"})")));
  EXPECT_TRUE(constrains_anything(json(R"({"title": "web", "required": ["name"]})")));
  EXPECT_TRUE(constrains_anything(json("true")));
  EXPECT_FALSE(constrains_anything(json(R"({"name": "web", "replicas": 2, "image": {"type": "x"}})")));
  EXPECT_FALSE(constrains_anything(json("{}")));
  // Keywords that only describe or define refuse nothing: a values file
  // with a `description` or a `title` is still no schema.
  EXPECT_FALSE(constrains_anything(json(R"({"name": "x", "description": "my app", "replicas": 2})")));
  EXPECT_FALSE(constrains_anything(json(R"({"title": "only a title", "name": "web"})")));
  EXPECT_FALSE(constrains_anything(json(R"({"$defs": {}, "default": {}, "examples": [], "$comment": "c"})")));
  // The keywords are those of the schema's own draft: draft 4 has no `const`.
  EXPECT_TRUE(constrains_anything(json(R"({"const": 1})")));
  EXPECT_FALSE(constrains_anything(json(R"({"const": 1})"), Draft::Draft4));
}

}  // namespace
}  // namespace sindri::schema
