#include <gtest/gtest.h>

#include "value/json.hpp"
#include "value/number_format.hpp"

using namespace sindri;

namespace {
std::string plain(double d) {
  std::string s;
  append_float_plain(s, d);
  return s;
}
std::string json(double d) {
  std::string s;
  append_float_json(s, d);
  return s;
}
}  // namespace

TEST(Json, RoundTripsDocuments) {
  auto v = parse_json(R"({"b": [1, 2.5, "x\n\u00e9\ud83d\ude00", null, true], "a": {"c": -3}})");
  ASSERT_TRUE(v) << v.error().describe();
  EXPECT_EQ(to_json(*v), "{\"a\":{\"c\":-3},\"b\":[1,2.5,\"x\\n\xC3\xA9\xF0\x9F\x98\x80\",null,true]}");
  EXPECT_EQ(to_json_pretty(*parse_json(R"({"a":[],"b":{},"c":[1]})")), "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n    1\n  ]\n}");
}

TEST(Json, StringsEscapeExactlyWhatJsonRequires) {
  std::string out;
  append_json_string(out, std::string("a\"b\\c\b\f\n\r\t\x01\x1f /\x7f\xc3\xa9", 17));
  EXPECT_EQ(out, R"("a\"b\\c\b\f\n\r\t\u0001\u001f /)" "\x7f\xc3\xa9\"");
  // Appends to what is there.
  out = "x";
  append_json_string(out, "");
  EXPECT_EQ(out, "x\"\"");

  // Every byte below 0x80, alone and in a run, reads back as itself.
  for (int c = 0; c < 0x80; ++c) {
    const std::string text = "ab" + std::string(1, static_cast<char>(c)) + "cd" + std::string(3, static_cast<char>(c));
    std::string encoded;
    append_json_string(encoded, text);
    auto decoded = parse_json(encoded);
    ASSERT_TRUE(decoded.ok()) << c << ": " << encoded;
    EXPECT_EQ(decoded->get_string(), text) << c;
  }
}

// The scan for bytes to escape goes eight bytes at a time: every position
// in a word, among every byte value that needs no escape.
TEST(Json, EscapesAreFoundAtEveryPositionOfAWord) {
  for (int filler = 0x20; filler < 0x100; ++filler) {
    if (filler == '"' || filler == '\\') continue;
    for (char special : {'"', '\\', '\n', '\x01', '\x1f'}) {
      for (size_t position = 0; position < 24; ++position) {
        std::string text(24, static_cast<char>(filler));
        text[position] = special;
        std::string encoded;
        append_json_string(encoded, text);
        // A byte of 0x80 and over alone is never UTF-8, which JSON text must
        // be: each is written as U+FFFD (3 bytes).
        const size_t filler_width = filler >= 0x80 ? 3 : 1;
        EXPECT_EQ(encoded.size(),
                  23 * filler_width + 2 + (special == '\x01' || special == '\x1f' ? 6 : 2)) << encoded;
        auto decoded = parse_json(encoded);
        ASSERT_TRUE(decoded.ok()) << encoded;
        std::string expected;
        for (char c : text) expected += c == special ? std::string(1, c) : filler >= 0x80 ? "\xEF\xBF\xBD" : std::string(1, c);
        EXPECT_EQ(decoded->get_string(), expected) << int(special) << " at " << position << " among " << filler;
      }
    }
  }
}

// JSON text is UTF-8 (RFC 8259): a string that is not is refused where it
// goes wrong, so that nothing stored can fail to read back as JSON.
TEST(Json, StringsMustBeUtf8) {
  struct Case {
    std::string text;
    size_t column;
    const char* message;
  };
  for (const Case& bad : {Case{"\"st\xff\"", 4, "invalid UTF-8: byte 0xFF"},
                          Case{"{\"a\": \"abcdefghij\xc0\xaf\"}", 18, "invalid UTF-8: byte 0xC0"},
                          Case{"[\"\xed\xa0\x80\"]", 3, "invalid UTF-8: byte 0xED"},
                          Case{"\"caf\xc3\"", 5, "invalid UTF-8: byte 0xC3"},
                          Case{"\"\xf4\x90\x80\x80\"", 2, "invalid UTF-8: byte 0xF4"}}) {
    auto parsed = parse_json(bad.text);
    ASSERT_FALSE(parsed.ok()) << bad.text;
    EXPECT_EQ(parsed.error().message, bad.message) << bad.text;
    EXPECT_EQ(parsed.error().column, bad.column) << bad.text;
  }
  auto fine = parse_json("\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 abcdefgh\"");
  ASSERT_TRUE(fine.ok()) << fine.error().message;
  EXPECT_EQ(fine->get_string(), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 abcdefgh");
}

// An error message may quote a client's bytes (a path segment, a query
// value): what is written must still be JSON.
TEST(Json, TextThatIsNotUtf8IsWrittenAsValidJson) {
  const std::string replacement = "\xEF\xBF\xBD";
  EXPECT_EQ(to_json(Value(std::string("got \"\xff\xfe\""))), "\"got \\\"" + replacement + replacement + "\\\"\"");
  EXPECT_EQ(to_json(Value(std::string("caf\xc3 \xc3\xa9 abcdefgh\xed\xa0\x80"))),
            "\"caf" + replacement + " \xc3\xa9 abcdefgh" + replacement + replacement + replacement + "\"");
  Value object{Object{}};
  object.set(std::string("k\xff"), Value(1));
  const std::string written = to_json(object);
  EXPECT_EQ(written, "{\"k" + replacement + "\":1}");
  EXPECT_TRUE(parse_json(written).ok());
}

TEST(Json, DuplicateKeysLastWinsUnlessRefused) {
  const std::string text = "{\"a\": 1,\n \"b\": {\"x\": 1, \"y\": 2, \"x\": 3},\n \"a\": 2}";
  auto lenient = parse_json(text);
  ASSERT_TRUE(lenient.ok()) << lenient.error().describe();
  EXPECT_EQ(to_json(*lenient), R"({"a":2,"b":{"x":3,"y":2}})");
  auto strict = parse_json(text, JsonOptions{.reject_duplicate_keys = true});
  ASSERT_FALSE(strict.ok());
  // The innermost object closes first: its repeat is the one named.
  EXPECT_EQ(strict.error().describe(), "line 2 column 24: duplicate key \"x\" (first at line 2 column 8)");
  auto top = parse_json("{\"b\": 1, \"a\": 2, \"b\": 3, \"a\": 4}", JsonOptions{.reject_duplicate_keys = true});
  ASSERT_FALSE(top.ok());
  EXPECT_EQ(top.error().describe(), "line 1 column 18: duplicate key \"b\" (first at line 1 column 2)");
  EXPECT_TRUE(parse_json("{\"a\": {\"a\": 1}}", JsonOptions{.reject_duplicate_keys = true}).ok());
}

TEST(Json, StringsWithManyEscapesReadBack) {
  std::string manifest;
  for (int line = 0; line < 200; ++line) manifest += "  key" + std::to_string(line) + ": \"value\\" + "\t\n";
  std::string encoded;
  append_json_string(encoded, manifest);
  auto decoded = parse_json(encoded);
  ASSERT_TRUE(decoded.ok()) << decoded.error().describe();
  EXPECT_EQ(decoded->get_string(), manifest);
  // A raw control character inside a string is an error, not data.
  auto raw = parse_json(std::string("\"a\nb\""));
  ASSERT_FALSE(raw.ok());
  EXPECT_NE(raw.error().message.find("control character"), std::string::npos) << raw.error().message;
}

TEST(Json, IntegersStayIntegers) {
  EXPECT_TRUE(parse_json("12345678901")->is_int());
  EXPECT_TRUE(parse_json("1.0")->is_float());
  EXPECT_TRUE(parse_json("1e3")->is_float());
  EXPECT_TRUE(parse_json("99999999999999999999")->is_float()) << "beyond int64";
}

TEST(Json, ErrorsNameLineAndColumn) {
  auto v = parse_json("{\n  \"a\": 1,\n  \"b\" 2\n}");
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().line, 3u);
  EXPECT_EQ(v.error().column, 7u);
  EXPECT_NE(v.error().message.find("expected `:`"), std::string::npos);
  EXPECT_FALSE(parse_json(""));
  EXPECT_FALSE(parse_json("[1,]"));
  EXPECT_FALSE(parse_json("{\"a\":1} x"));
  EXPECT_FALSE(parse_json("\"\\ud800\""));
  EXPECT_FALSE(parse_json("01"));
  EXPECT_FALSE(parse_json("\"tab\there\""));
}

TEST(Json, DeepNestingIsAnErrorNotACrash) {
  std::string deep(100000, '[');
  auto v = parse_json(deep);
  ASSERT_FALSE(v);
  EXPECT_NE(v.error().message.find("nesting"), std::string::npos);
}

TEST(Json, WritingWithinALimitStopsWithWhatFitted) {
  const Value v = *parse_json(R"({"a":[1,"xy\n",null],"b":{}})");
  const std::string whole = to_json(v);
  std::string out = "> ";
  EXPECT_TRUE(append_json_within(out, v, 2 + whole.size()));
  EXPECT_EQ(out, "> " + whole);
  for (size_t max = 0; max < 2 + whole.size(); ++max) {
    out = "> ";
    EXPECT_FALSE(append_json_within(out, v, max)) << max;
    EXPECT_LE(out.size(), std::max<size_t>(max, 2)) << max;
    EXPECT_EQ(out, ("> " + whole).substr(0, out.size())) << max;
  }
  const std::string pretty = to_json_pretty(v);
  out.clear();
  EXPECT_TRUE(append_json_pretty_within(out, v, pretty.size()));
  EXPECT_EQ(out, pretty);
  out.clear();
  EXPECT_FALSE(append_json_pretty_within(out, v, pretty.size() - 1));
  EXPECT_EQ(out, pretty.substr(0, out.size()));
}

TEST(Json, ASmallValueSharingALargeOneIsNotExpandedPastTheLimit) {
  Array numbers;
  for (int i = 0; i < 100000; ++i) numbers.emplace_back(i);
  const Value list(std::move(numbers));
  Value shared = list;
  for (int level = 0; level < 10; ++level) shared = Value(Array{shared, shared, shared, shared});
  std::string out;
  EXPECT_FALSE(append_json_within(out, shared, 1 << 20));
  EXPECT_LE(out.size(), 1u << 20);
}

TEST(NumberFormat, PlainAsRustDisplay) {
  EXPECT_EQ(plain(1.0), "1");
  EXPECT_EQ(plain(0.5), "0.5");
  EXPECT_EQ(plain(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(plain(1e21), "1000000000000000000000");
  EXPECT_EQ(plain(1.5e-7), "0.00000015");
  EXPECT_EQ(plain(-0.0), "-0");
  EXPECT_EQ(plain(-2.5), "-2.5");
}

TEST(NumberFormat, JsonAsSerde) {
  EXPECT_EQ(json(1.0), "1.0");
  EXPECT_EQ(json(0.5), "0.5");
  EXPECT_EQ(json(1e16), "1e16");
  EXPECT_EQ(json(1.5e-7), "1.5e-7");
  EXPECT_EQ(json(123456.789), "123456.789");
  EXPECT_EQ(json(0.0001), "0.0001");
  EXPECT_EQ(json(-0.0), "-0.0");
}
