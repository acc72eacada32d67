#include "placeholder/kcl.hpp"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <random>
#include <string>

#include <gtest/gtest.h>

namespace sindri::kcl {
namespace {

std::string kcl(const Value& v) {
  auto out = to_kcl(v);
  EXPECT_TRUE(out.ok()) << (out.ok() ? "" : out.error().message);
  return out.ok() ? *out : "";
}

TEST(KclString, PlainTextIsQuoted) { EXPECT_EQ(kcl("cluster"), "\"cluster\""); }
TEST(KclString, Empty) { EXPECT_EQ(kcl(""), "\"\""); }
TEST(KclString, QuoteAndBackslash) { EXPECT_EQ(kcl("a\"b\\c"), R"("a\"b\\c")"); }
TEST(KclString, SingleQuoteStaysBare) { EXPECT_EQ(kcl("it's"), R"("it's")"); }
TEST(KclString, NewlineCarriageReturnTab) { EXPECT_EQ(kcl("a\nb\rc\td"), R"("a\nb\rc\td")"); }
TEST(KclString, OtherControlCharactersAsHex) {
  EXPECT_EQ(kcl(std::string("\x00\x01\x1b\x7f", 4)), R"("\x00\x01\x1b\x7f")");
}
TEST(KclString, C1ControlsAndLineSeparatorsAsUnicodeEscapes) {
  EXPECT_EQ(kcl("\xC2\x85|\xE2\x80\xA8|\xE2\x80\xA9"), R"("\u0085|\u2028|\u2029")");
}
TEST(KclString, UnicodeIsKeptAsUtf8) {
  EXPECT_EQ(kcl("w\xC3\xB6rld \xE2\x82\xAC \xF0\x9F\x98\x80"), "\"w\xC3\xB6rld \xE2\x82\xAC \xF0\x9F\x98\x80\"");
}
TEST(KclString, InterpolationIsSplitIntoConcatenation) {
  EXPECT_EQ(kcl("a${b}c"), R"(("a$" + "{b}c"))");
  EXPECT_EQ(kcl("${x}${y}"), R"(("$" + "{x}$" + "{y}"))");
}
TEST(KclString, DollarAndBraceAloneStayPlain) { EXPECT_EQ(kcl("$5 {x} $$"), R"("$5 {x} $$")"); }
TEST(KclString, HelmAndCelSyntaxStaysPlain) { EXPECT_EQ(kcl("{{ .Values.x }}"), R"("{{ .Values.x }}")"); }
TEST(KclString, InvalidUtf8IsAnError) {
  auto out = to_kcl(Value("a\xFF"));
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().message.find("not valid UTF-8"), std::string::npos) << out.error().message;
  EXPECT_FALSE(to_kcl(Value("\xED\xA0\x80")).ok());  // a surrogate
  EXPECT_FALSE(to_kcl(Value("\xC0\xAF")).ok());      // overlong
}

TEST(KclScalar, IntsFloatsBoolsNone) {
  EXPECT_EQ(kcl(3), "3");
  EXPECT_EQ(kcl(-42), "-42");
  EXPECT_EQ(kcl(Value(std::numeric_limits<int64_t>::min())), "(-9223372036854775807 - 1)");
  EXPECT_EQ(kcl(1.0), "1.0");
  EXPECT_EQ(kcl(0.1), "0.1");
  EXPECT_EQ(kcl(-2.5), "-2.5");
  EXPECT_EQ(kcl(1e16), "1e16");
  EXPECT_EQ(kcl(1.5e-7), "1.5e-7");
  EXPECT_EQ(kcl(true), "True");
  EXPECT_EQ(kcl(false), "False");
  EXPECT_EQ(kcl(Value()), "None");
}
TEST(KclScalar, FloatsReadBackToTheSameDouble) {
  for (double d : {0.1, 1.0 / 3, 1e300, 5e-324, 123456789.125, -0.0}) {
    EXPECT_EQ(std::strtod(kcl(d).c_str(), nullptr), d) << kcl(d);
  }
}
TEST(KclScalar, NonFiniteFloatsAreErrorsNamingThem) {
  Value v{Object{}};
  v.set("ratio", Value(std::nan("")));
  auto out = to_kcl(v);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().message.find("NaN"), std::string::npos) << out.error().message;
  EXPECT_NE(out.error().message.find("/ratio"), std::string::npos) << out.error().message;
  auto inf = to_kcl(Value(std::numeric_limits<double>::infinity()));
  ASSERT_FALSE(inf.ok());
  EXPECT_NE(inf.error().message.find("+Inf"), std::string::npos);
}

TEST(KclContainer, ListsOfScalarsOnOneLine) {
  EXPECT_EQ(kcl(Value(Array{1, "a", true})), R"([1, "a", True])");
  EXPECT_EQ(kcl(Value(Array{})), "[]");
}
TEST(KclContainer, ListsOfMapsSpreadOverLines) {
  Value a{Object{}}, b{Object{}};
  a.set("x", 1), a.set("y", 2), b.set("z", 3);
  EXPECT_EQ(kcl(Value(Array{a, b})), "[\n    {\n        x = 1\n        y = 2\n    }\n    {z = 3}\n]");
}
TEST(KclContainer, DictsInKeyOrderWithQuotedNonIdentifierKeys) {
  Value v{Object{}};
  v.set("zeta", 1);
  v.set("app.kubernetes.io/name", "pg");
  v.set("if", 2);
  v.set("_hidden", 3);
  v.set("9lives", 4);
  v.set("alpha_1", 5);
  EXPECT_EQ(kcl(v),
            "{\n    \"9lives\" = 4\n    \"_hidden\" = 3\n    alpha_1 = 5\n    \"app.kubernetes.io/name\" = \"pg\"\n"
            "    \"if\" = 2\n    zeta = 1\n}");
}
TEST(KclContainer, SingleMemberDictsStayOnOneLine) {
  Value inner{Object{}};
  inner.set("size", "1Gi");
  Value outer{Object{}};
  outer.set("storage", inner);
  EXPECT_EQ(kcl(outer), R"({storage = {size = "1Gi"}})");
  EXPECT_EQ(kcl(Value(Object{})), "{}");
}
TEST(KclContainer, ExpressionsAreUnquoted) {
  Value v{Object{}};
  v.set("instances", expression("oxr.spec.parameters.size.replicas"));
  v.set("name", "pg");
  EXPECT_EQ(kcl(v), "{\n    instances = oxr.spec.parameters.size.replicas\n    name = \"pg\"\n}");
  EXPECT_EQ(kcl(Value(Array{expression("a.b"), 1})), "[a.b, 1]");
}

// --- property: a small KCL string reader gives back the original -----------

// Reads one KCL double-quoted literal starting at `i` as KCL's lexer does
// (str_content_eval), refusing values KCL would interpolate.
std::optional<std::string> read_quoted(const std::string& s, size_t& i) {
  if (s[i] != '"') return std::nullopt;
  std::string out;
  for (++i; i < s.size() && s[i] != '"'; ++i) {
    if (s[i] == '\n') return std::nullopt;
    if (s[i] != '\\') {
      out.push_back(s[i]);
      continue;
    }
    const char e = s[++i];
    auto code_point = [&](int digits) {
      const uint32_t c = std::stoul(s.substr(i + 1, digits), nullptr, 16);
      i += digits;
      std::string utf8;
      if (c < 0x80) utf8.push_back(static_cast<char>(c));
      else if (c < 0x800) utf8 += {static_cast<char>(0xC0 | (c >> 6)), static_cast<char>(0x80 | (c & 0x3F))};
      else utf8 += {static_cast<char>(0xE0 | (c >> 12)), static_cast<char>(0x80 | ((c >> 6) & 0x3F)),
                    static_cast<char>(0x80 | (c & 0x3F))};
      return utf8;
    };
    switch (e) {
      case '\\': out += '\\'; break;
      case '"': out += '"'; break;
      case '\'': out += '\''; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'v': out += '\v'; break;
      case 'x': out += code_point(2); break;
      case 'u': out += code_point(4); break;
      default: out += '\\', out += e;
    }
  }
  if (i >= s.size()) return std::nullopt;
  ++i;
  if (out.find("${") != std::string::npos) return std::nullopt;  // KCL would interpolate it
  return out;
}

// A literal or a parenthesised `+` concatenation of literals, the whole text.
std::optional<std::string> read_kcl_string(const std::string& s) {
  size_t i = 0;
  const bool grouped = !s.empty() && s[0] == '(';
  if (grouped) ++i;
  std::string out;
  while (true) {
    auto piece = read_quoted(s, i);
    if (!piece) return std::nullopt;
    out += *piece;
    if (!grouped || s.compare(i, 3, " + ") != 0) break;
    i += 3;
  }
  if (grouped && (i >= s.size() || s[i++] != ')')) return std::nullopt;
  return i == s.size() ? std::optional(out) : std::nullopt;
}

void append_utf8(std::string& out, uint32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out += {static_cast<char>(0xC0 | (c >> 6)), static_cast<char>(0x80 | (c & 0x3F))};
  } else if (c < 0x10000) {
    out += {static_cast<char>(0xE0 | (c >> 12)), static_cast<char>(0x80 | ((c >> 6) & 0x3F)),
            static_cast<char>(0x80 | (c & 0x3F))};
  } else {
    out += {static_cast<char>(0xF0 | (c >> 18)), static_cast<char>(0x80 | ((c >> 12) & 0x3F)),
            static_cast<char>(0x80 | ((c >> 6) & 0x3F)), static_cast<char>(0x80 | (c & 0x3F))};
  }
}

TEST(KclStringProperty, EmittedLiteralsReadBackToTheOriginal) {
  std::mt19937 rng(20260622);
  const std::string alphabet = "ab$${}\\\"'\n\r\t #.";
  for (int round = 0; round < 5000; ++round) {
    std::string original;
    const int length = std::uniform_int_distribution<int>(0, 24)(rng);
    for (int k = 0; k < length; ++k) {
      switch (std::uniform_int_distribution<int>(0, 3)(rng)) {
        case 0: original.push_back(alphabet[rng() % alphabet.size()]); break;
        case 1: append_utf8(original, rng() % 0x80); break;  // ASCII, controls included
        case 2: append_utf8(original, 0x80 + rng() % (0x3000 - 0x80)); break;
        default: {
          uint32_t c = 0x3000 + rng() % (0x110000 - 0x3000);
          if (c >= 0xD800 && c <= 0xDFFF) c = 0xFFFD;
          append_utf8(original, c);
        }
      }
    }
    auto literal = string_literal(original);
    ASSERT_TRUE(literal.ok()) << literal.error().message;
    EXPECT_EQ(literal->find('\n'), std::string::npos);
    auto back = read_kcl_string(*literal);
    ASSERT_TRUE(back.has_value()) << *literal;
    ASSERT_EQ(*back, original) << *literal;
  }
}

}  // namespace
}  // namespace sindri::kcl
