#include "value/yaml/yaml.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "value/json.hpp"

namespace sindri {
namespace {

namespace fs = std::filesystem;

const fs::path kCases = fs::path(SINDRI_TESTS_DIR) / "value" / "yaml_cases";

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Value parse_one(std::string_view text, const YamlOptions& options = {}) {
  auto result = parse_yaml(text, "test.yaml", options);
  EXPECT_TRUE(result.ok()) << (result.ok() ? "" : result.error().describe());
  return result.ok() ? *result : Value();
}

// Where the node at `pointer` of the first document of `text` starts, as
// "LINE:COLUMN"; "" when there is no such node.
std::string position_in(std::string_view text, std::string_view pointer) {
  YamlOptions options;
  options.record_positions = true;
  auto docs = parse_yaml_stream(text, "test.yaml", options);
  EXPECT_TRUE(docs.ok()) << (docs.ok() ? "" : docs.error().describe());
  const YamlPosition* at = docs.ok() && !docs->empty() ? docs->front().position_of(pointer) : nullptr;
  return at ? std::to_string(at->line) + ":" + std::to_string(at->column) : "";
}

YamlError parse_error(std::string_view text, const YamlOptions& options = {}) {
  auto result = parse_yaml_stream(text, "bad.yaml", options);
  EXPECT_FALSE(result.ok()) << "parsed: " << text;
  return result.ok() ? YamlError{} : result.error();
}

Value json(std::string_view text) {
  auto result = parse_json(text);
  EXPECT_TRUE(result.ok()) << text;
  return result.ok() ? *result : Value();
}

// --- Cases pinned by kubectl (yaml_cases/regenerate.sh) -------------------

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kCases)) {
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

class KubectlCase : public ::testing::TestWithParam<std::string> {};

TEST_P(KubectlCase, ReadsAsKubectlDoes) {
  const std::string& name = GetParam();
  std::string yaml = read_file(kCases / (name + ".yaml"));
  YamlOptions options;
  // kubectl keeps the last of duplicate keys; Sindri only when asked to.
  options.allow_duplicate_keys = name.starts_with("lenient_");
  auto parsed = parse_yaml(yaml, name + ".yaml", options);
  if (fs::exists(kCases / (name + ".error"))) {
    EXPECT_FALSE(parsed.ok()) << "kubectl rejects " << name << ": " << read_file(kCases / (name + ".error"));
    if (!parsed.ok()) {
      EXPECT_GT(parsed.error().line, 0u) << parsed.error().describe();
      EXPECT_EQ(parsed.error().file, name + ".yaml");
    }
    return;
  }
  ASSERT_TRUE(parsed.ok()) << parsed.error().describe();
  Value expected = json(read_file(kCases / (name + ".json")));
  EXPECT_EQ(*parsed, expected) << "sindri: " << to_json(*parsed) << "\nkubectl: " << to_json(expected);
  // And what we write reads back the same.
  auto again = parse_yaml(to_yaml(*parsed));
  ASSERT_TRUE(again.ok()) << again.error().describe() << "\n" << to_yaml(*parsed);
  EXPECT_EQ(*again, expected) << to_yaml(*parsed);
}

INSTANTIATE_TEST_SUITE_P(YamlCases, KubectlCase, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return info.param; });

TEST(YamlCases, StrictByDefaultOnDuplicateKeys) {
  YamlError error = parse_error(read_file(kCases / "lenient_duplicates.yaml"));
  // The first duplicate to complete: the inner mapping closes before the outer.
  EXPECT_EQ(error.line, 8u);
  EXPECT_EQ(error.column, 3u);
  EXPECT_EQ(error.message, "duplicate key \"true\" (first at line 7 column 3)");
}

// --- Streams, documents, positions ----------------------------------------

TEST(YamlStream, DocumentsWithStartLinesAndEmptyDocuments) {
  auto docs = parse_yaml_stream("a: 1\n---\n---\n# only a comment\n---\nb: [1, 2]\n...\n");
  ASSERT_TRUE(docs.ok()) << docs.error().describe();
  ASSERT_EQ(docs->size(), 4u);
  EXPECT_EQ((*docs)[0].value, json(R"({"a":1})"));
  EXPECT_EQ((*docs)[0].line, 1u);
  EXPECT_TRUE((*docs)[1].value.is_null());
  EXPECT_EQ((*docs)[1].line, 2u);
  EXPECT_TRUE((*docs)[2].value.is_null());
  EXPECT_EQ((*docs)[3].value, json(R"({"b":[1,2]})"));
  EXPECT_EQ((*docs)[3].line, 5u);
}

TEST(YamlStream, EmptyTextHasNoDocuments) {
  auto docs = parse_yaml_stream("");
  ASSERT_TRUE(docs.ok());
  EXPECT_TRUE(docs->empty());
  EXPECT_TRUE(parse_one("").is_null());
}

TEST(YamlStream, ParseYamlWantsOneDocument) {
  auto result = parse_yaml("a: 1\n---\nb: 2\n", "two.yaml");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().document, 1u);
  EXPECT_EQ(result.error().line, 2u);
}

// Text that is not UTF-8 is an error naming where, never a hang: libfyaml
// spins forever on a directive holding such a byte.
TEST(YamlStream, BytesThatAreNotUtf8AreErrorsWithAPosition) {
  for (const char* text : {"%    \xa6\xa6\n", "a: 1\n%\xa6\n", "%\xff\n---\na: 1\n", "a: \xc0\xaf\n", "a: \xed\xa0\x80\n",
                           "a: \xf4\x90\x80\x80\n", "a: \xe2\x82\n"}) {
    auto result = parse_yaml_stream(text, "bad.yaml");
    ASSERT_FALSE(result.ok()) << text;
    EXPECT_NE(result.error().message.find("invalid UTF-8"), std::string::npos) << result.error().describe();
  }
  auto late = parse_yaml_stream("a: 1\nb: x\xa6\n", "late.yaml");
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.error().line, 2u);
  EXPECT_EQ(late.error().column, 5u);
  EXPECT_TRUE(parse_yaml_stream("a: caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\n", "ok.yaml").ok());
}

// libfyaml takes a NUL for the end of the text, which would drop what
// follows it in silence: a NUL anywhere is an error at its line and column.
TEST(YamlStream, ANulAnywhereIsAnErrorAtItsPosition) {
  using namespace std::string_literals;
  struct Case {
    std::string text;
    size_t line, column;
  };
  for (const Case& nul : {Case{"a: x\0y\n"s, 1, 5}, Case{"a: 1 # c\0mment\nb: 2\n"s, 1, 9},
                          Case{"a: 1\nb: \"x\0y\"\n"s, 2, 6}, Case{"a: |\n  t\0\n"s, 2, 4},
                          Case{"a: 1\n---\nb: [\0]\n"s, 3, 5}, Case{"\0"s, 1, 1},
                          // Lines end where libfyaml ends them; columns count characters.
                          Case{"a: 1\rb: 2\rc: x\0y\n"s, 3, 5}, Case{"a: \xc3\xa9\xc3\xa9\0\n"s, 1, 6}}) {
    auto result = parse_yaml_stream(nul.text, "nul.yaml");
    ASSERT_FALSE(result.ok()) << nul.text;
    EXPECT_EQ(result.error().line, nul.line) << result.error().describe();
    EXPECT_EQ(result.error().column, nul.column) << result.error().describe();
    EXPECT_NE(result.error().message.find("NUL"), std::string::npos) << result.error().describe();
  }
}

// Characters are checked before parsing, yet the error names the document
// they are in, as the parser numbers documents.
TEST(YamlStream, ARefusedCharacterIsPlacedInItsDocument) {
  using namespace std::string_literals;
  struct Case {
    std::string text;
    size_t document;
  };
  for (const Case& bad : {Case{"\xff"s, 0}, Case{"a: 1\nb: \xff\n"s, 0}, Case{"a: 1\n---\nb: \xff\n"s, 1},
                          Case{"---\na: 1\n---\nb: \"x\0\"\n"s, 1}, Case{"a: 1\n---\n---\nc: \xc0\n"s, 2},
                          Case{"a: 1\n---\nb: |\n  x\n  \0\n"s, 1}, Case{"a: 1\n--- \0\n"s, 1},
                          // Inside a construct the character leaves open.
                          Case{"a: 1\n---\nb: [1,\n  \xff]\n"s, 1},
                          // After an explicit document end, the next document's.
                          Case{"a: 1\n...\n\xff\n"s, 1}, Case{"a: 1\n...\n\n  b: \0\n"s, 1},
                          // `---x` is no document marker.
                          Case{"---\xff\n"s, 0}, Case{"a: 1\n---\n---\xff\n"s, 1}}) {
    auto result = parse_yaml_stream(bad.text, "bad.yaml");
    ASSERT_FALSE(result.ok()) << bad.text;
    EXPECT_EQ(result.error().document, bad.document) << result.error().describe();
    EXPECT_NE(result.error().message.find(bad.text.find('\0') != std::string::npos ? "NUL" : "invalid UTF-8"),
              std::string::npos)
        << result.error().describe();
  }
}

// A syntax error on a line before the refused character comes first, and
// is the one reported.
TEST(YamlStream, ASyntaxErrorBeforeARefusedCharacterIsReportedFirst) {
  auto result = parse_yaml_stream("a: 1\n---\nb: c: d\n---\ne: \xff\n", "bad.yaml");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().line, 3u) << result.error().describe();
  EXPECT_EQ(result.error().document, 1u) << result.error().describe();
  EXPECT_EQ(result.error().message.find("invalid UTF-8"), std::string::npos) << result.error().describe();
  // On the character's own line, the character is the error.
  auto same_line = parse_yaml_stream("%YAML 1.1\xff\n---\na: 1\n", "bad.yaml");
  ASSERT_FALSE(same_line.ok());
  EXPECT_NE(same_line.error().message.find("invalid UTF-8"), std::string::npos) << same_line.error().describe();
}

// libfyaml refuses a directive of YAML 2 or later without a position; the
// error names the version where it stands.
TEST(YamlStream, AnUnsupportedYamlVersionIsNamedWhereItStands) {
  auto first = parse_yaml_stream("%YAML 9.9\n---\na: 1\n", "v.yaml");
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.error().line, 1u) << first.error().describe();
  EXPECT_EQ(first.error().column, 7u) << first.error().describe();
  EXPECT_NE(first.error().message.find("`9.9`"), std::string::npos) << first.error().describe();
  auto later = parse_yaml_stream("a: 1\n...\n%YAML  2.0\r\n---\nb: 2\n", "v.yaml");
  ASSERT_FALSE(later.ok());
  EXPECT_EQ(later.error().line, 3u) << later.error().describe();
  EXPECT_EQ(later.error().column, 8u) << later.error().describe();
  EXPECT_NE(later.error().message.find("`2.0` is not supported"), std::string::npos) << later.error().describe();
  // A byte order mark takes no column; libfyaml counts a NEL as a line break.
  auto after_bom = parse_yaml_stream("\xEF\xBB\xBF%YAML 2.0\n---\na: 1\n", "v.yaml");
  ASSERT_FALSE(after_bom.ok());
  EXPECT_EQ(after_bom.error().line, 1u) << after_bom.error().describe();
  EXPECT_EQ(after_bom.error().column, 7u) << after_bom.error().describe();
  auto after_nel = parse_yaml_stream("a: |\n  x\xC2\x85  y\n...\n%YAML 2.0\n---\nb: 1\n", "v.yaml");
  ASSERT_FALSE(after_nel.ok());
  EXPECT_EQ(after_nel.error().line, 5u) << after_nel.error().describe();
  // A scalar's line that reads like a directive is content, not a directive.
  auto in_scalar = parse_yaml_stream("--- |\n%YAML 2.0\n...\n%YAML 3.0\n---\na: 1\n", "v.yaml");
  ASSERT_FALSE(in_scalar.ok());
  EXPECT_EQ(in_scalar.error().line, 4u) << in_scalar.error().describe();
  EXPECT_NE(in_scalar.error().message.find("`3.0`"), std::string::npos) << in_scalar.error().describe();
  EXPECT_TRUE(parse_yaml_stream("%YAML 1.1\n---\na: 1\n", "v.yaml").ok());
  EXPECT_TRUE(parse_yaml_stream("%YAML 1.2\n---\na: 1\n", "v.yaml").ok());
}

// libfyaml counts no column for a byte order mark, and nor do the errors
// found before parsing.
TEST(YamlStream, AByteOrderMarkTakesNoColumn) {
  auto result = parse_yaml_stream("\xEF\xBB\xBF" "a: \xff\n", "bom.yaml");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().line, 1u);
  EXPECT_EQ(result.error().column, 4u) << result.error().describe();
  auto parsed = parse_yaml_stream("\xEF\xBB\xBF" "a: b: c\n", "bom.yaml");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().column, 5u) << parsed.error().describe();  // libfyaml's own count, for comparison
}

// libfyaml 0.7.12 frees a key twice, and crashes, on a tab before an
// indicator after the `:` of a key inside a complex key. Such a tab is
// whitespace between tokens: read as a space, the text gets kubectl's
// "invalid map key" error, at its own line and column; a tab inside a
// scalar stays content.
TEST(YamlStream, ATabBeforeAnIndicatorInAComplexKeyIsReadAsASpace) {
  using namespace std::string_literals;
  struct Case {
    std::string text;
    size_t line, column;
  };
  for (const Case& bad : {Case{"? k:\t|"s, 1, 3}, Case{"? k:\t>\n"s, 1, 3}, Case{"? - k:\t|"s, 1, 3},
                          Case{"a:\n  ? k:\t|\n"s, 2, 5}, Case{"? k:\t- a"s, 1, 3}, Case{"? k: \t\t?"s, 1, 3},
                          Case{"- ? k:\t|"s, 1, 5},
                          // NEL, LS and PS end a dash as a line feed does, in YAML 1.1.
                          Case{"? k:\t-\xc2\x85"s, 1, 3}, Case{"? k:\t-\xe2\x80\xa8"s, 1, 3},
                          Case{"x:\n  ? k:\t-\xe2\x80\xa9  y\n"s, 2, 5}}) {
    auto result = parse_yaml_stream(bad.text, "tab.yaml");
    ASSERT_FALSE(result.ok()) << bad.text;
    EXPECT_EQ(result.error().line, bad.line) << result.error().describe();
    EXPECT_EQ(result.error().column, bad.column) << result.error().describe();
    EXPECT_NE(result.error().message.find("map key"), std::string::npos) << result.error().describe();
  }
  EXPECT_EQ(parse_one("a: \"x:\t|\"\nb: |\n  k:\t|\nc: 'k:\t- a'\nd:\t|\n  text\n"),
            parse_one("{\"a\": \"x:\\t|\", \"b\": \"k:\\t|\\n\", \"c\": \"k:\\t- a\", \"d\": \"text\\n\"}"));
}

// A tab the first reading keeps (libfyaml took it for part of a block
// scalar) can become one to make a space once the empty block scalars are
// repaired; the repaired text the parser then reads must stay alive (found
// by fuzz_yaml_outline under AddressSanitizer).
TEST(YamlStream, ATabMadeASpaceAfterARepairIsReadFromTextThatLives) {
  auto result = parse_yaml_stream(
      "api&aapiVe:\n sapi&a sstriata:\n  literal.x: |\n  strip: |-\n  keep: |+p: \t|-\n  keep: |+\ndf :  \n: !! \n",
      "fuzz.yaml");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().line, 5u) << result.error().describe();
  EXPECT_EQ(result.error().column, 11u) << result.error().describe();
}

TEST(YamlStream, PositionsByPointer) {
  YamlOptions options;
  options.record_positions = true;
  auto docs = parse_yaml_stream("kind: Pod\n---\nspec:\n  containers:\n  - name: web\n    image: \"nginx\"\n  a/b~c: 1\n",
                                "pod.yaml", options);
  ASSERT_TRUE(docs.ok()) << docs.error().describe();
  const YamlDocument& doc = (*docs)[1];
  const YamlPosition* image = doc.position_of("/spec/containers/0/image");
  ASSERT_NE(image, nullptr);
  EXPECT_EQ(image->line, 6u);
  EXPECT_EQ(image->column, 12u);
  const YamlPosition* escaped = doc.position_of("/spec/a~1b~0c");
  ASSERT_NE(escaped, nullptr);
  EXPECT_EQ(escaped->line, 7u);
  ASSERT_NE(doc.position_of(""), nullptr);
  EXPECT_EQ(doc.position_of("")->line, 3u);
  EXPECT_EQ(doc.position_of("/nope"), nullptr);
  EXPECT_TRUE(parse_yaml_stream("a: 1\n")->front().positions.empty()) << "positions only when asked";
}

TEST(YamlStream, TheNearestPositionIsTheNodesOrItsNearestAncestors) {
  YamlOptions options;
  options.record_positions = true;
  auto docs = parse_yaml_stream("spec:\n  containers:\n  - name: web\n  empty:\n", "pod.yaml", options);
  ASSERT_TRUE(docs.ok()) << docs.error().describe();
  const YamlDocument& doc = docs->front();
  const YamlPosition* name = doc.nearest_position_of("/spec/containers/0/name");
  ASSERT_NE(name, nullptr);
  EXPECT_EQ(name, doc.position_of("/spec/containers/0/name"));
  ASSERT_NE(doc.position_of("/spec/containers/0"), nullptr);
  EXPECT_EQ(doc.nearest_position_of("/spec/containers/0/image"), doc.position_of("/spec/containers/0"));
  EXPECT_EQ(doc.nearest_position_of("/spec/containers/7/name"), doc.position_of("/spec/containers"));
  // An empty value is recorded without a place (line 0): its parent's stands in.
  ASSERT_NE(doc.position_of("/spec/empty"), nullptr);
  EXPECT_EQ(doc.position_of("/spec/empty")->line, 0u);
  ASSERT_NE(doc.position_of("/spec"), nullptr);
  EXPECT_EQ(doc.nearest_position_of("/spec/empty"), doc.position_of("/spec"));
  EXPECT_EQ(doc.nearest_position_of("/spec/empty/x"), doc.position_of("/spec"));
  ASSERT_NE(doc.position_of(""), nullptr);
  EXPECT_EQ(doc.nearest_position_of("/other"), doc.position_of(""));
  EXPECT_EQ(doc.nearest_position_of("no-slash"), nullptr) << "not a pointer: nothing, and no endless walk";
  EXPECT_EQ(parse_yaml_stream("a: 1\n")->front().nearest_position_of("/a"), nullptr) << "positions only when asked";
}

// --- Errors name file, document, line, column ------------------------------

TEST(YamlErrors, SyntaxErrorHasPosition) {
  YamlError error = parse_error("a: 1\n---\nb:\n  c: 1\n d: 2\n");
  EXPECT_EQ(error.file, "bad.yaml");
  EXPECT_EQ(error.document, 1u);
  EXPECT_EQ(error.line, 5u);
  EXPECT_GT(error.column, 0u);
  EXPECT_FALSE(error.message.empty());
  EXPECT_EQ(error.describe().rfind("bad.yaml:5:", 0), 0u) << error.describe();
  EXPECT_NE(error.describe().find("document 2"), std::string::npos) << error.describe();
}

TEST(YamlErrors, InfinityIsNoJsonNumber) {
  YamlError error = parse_error("spec:\n  x: [1, .inf]\n");
  EXPECT_EQ(error.line, 2u);
  EXPECT_EQ(error.column, 10u);
  EXPECT_EQ(error.message, "`.inf` is not a JSON number (kubectl: json: unsupported value: +Inf)");
}

TEST(YamlErrors, KeysThatCannotBeJsonKeys) {
  EXPECT_EQ(parse_error("a:\n  ~: 1\n").line, 2u);
  EXPECT_NE(parse_error("[a]: 1\n").message.find("invalid map key"), std::string::npos);
  EXPECT_NE(parse_error("18446744073709551615: 1\n").message.find("uint64"), std::string::npos);
}

TEST(YamlErrors, UnknownAnchorAndBadTag) {
  YamlError error = parse_error("a: 1\nb: *missing\n");
  EXPECT_EQ(error.message, "unknown anchor 'missing' referenced");
  EXPECT_EQ(error.line, 2u);
  EXPECT_EQ(error.column, 4u);
  EXPECT_EQ(parse_error("a: !!int abc\n").message, "cannot decode `abc` as a !!int");
}

TEST(YamlErrors, DuplicateKeyAfterResolution) {
  YamlError error = parse_error("a:\n  yes: 1\n  on: 2\n");
  EXPECT_EQ(error.message, "duplicate key \"true\" (first at line 2 column 3)");
  EXPECT_EQ(error.line, 3u);
}

TEST(YamlErrors, MergedKeysAreNoDuplicates) {
  EXPECT_EQ(parse_one("b: &b {x: 1}\nc:\n  <<: *b\n  x: 2\n"), json(R"({"b":{"x":1},"c":{"x":2}})"));
}

TEST(YamlErrors, BillionLaughsIsStopped) {
  std::string text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  char previous = 'a';
  for (char name = 'b'; name <= 'j'; ++name, ++previous) {
    text += std::string(1, name) + ": &" + name + " [";
    for (int i = 0; i < 10; ++i) text += std::string(i ? ", *" : "*") + previous;
    text += "]\n";
  }
  YamlError error = parse_error(text);
  EXPECT_NE(error.message.find("excessive aliasing"), std::string::npos) << error.message;
  YamlOptions generous;
  generous.max_alias_expansion = 100;
  EXPECT_FALSE(parse_yaml_stream("a: &a [1, 2, 3]\nb: [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n", {}, generous).ok());
}

TEST(YamlErrors, DepthIsBounded) {
  std::string deep(2000, '[');
  EXPECT_NE(parse_error(deep).message.find("nesting deeper"), std::string::npos);
}

// --- Scalar text, around libfyaml 0.7.12's formatting bugs ----------------
// Expected values are kubectl's. The unit tests run under LeakSanitizer
// (scripts/test.sh): libfyaml's own text for the scalars below leaks.

TEST(YamlScalars, EveryStyleReadsAsKubectlReadsIt) {
  EXPECT_EQ(parse_one("plain: a plain scalar\n"
                      "plainMultiline: one\n  two\n\n  three\n"
                      "single: 'it''s'\n"
                      "singleMultiline: 'one\n  two\n\n  three  '\n"
                      "double: \"tab\\tquote\\\" \\u00e9\"\n"
                      "doubleMultiline: \"one \\\n  two\n  three\\n\"\n"
                      "literal: |\n  line one\n    indented\n"
                      "literalStrip: |-\n  no newline\n"
                      "literalKeep: |+\n  kept\n\n"
                      "folded: >\n  folded\n  text\n\n  paragraph\n"
                      "foldedStrip: >-\n  a\n  b\n"
                      "indicator: |2\n    two leading spaces\n  then none\n"
                      "emptyLiteral: |\n  \n"),
            json(R"({"plain": "a plain scalar", "plainMultiline": "one two\nthree", "single": "it's",
                     "singleMultiline": "one two\nthree  ", "double": "tab\tquote\" é", "doubleMultiline": "one two three\n",
                     "literal": "line one\n  indented\n", "literalStrip": "no newline", "literalKeep": "kept\n\n",
                     "folded": "folded text\nparagraph\n", "foldedStrip": "a b",
                     "indicator": "  two leading spaces\nthen none\n", "emptyLiteral": ""})"));
}

// libfyaml formats a run of n escaped quotes as 2n - 1 quotes, cut to the
// length its scanner counted; from five on it also leaks 512 bytes.
TEST(YamlScalars, RunsOfEscapedQuotesInSingleQuotedScalars) {
  auto docs = parse_yaml_stream("five: ''''''''''''\n"
                                "'x''''''''''y': 'p\n  q''''''r\n\n  s  '\n"
                                "two: 'a''''b'\n"
                                "flow: {'''''''''''': 'k''''''''''v'}\n"
                                "---\n"
                                "['''''''''''''''''''''', 'one''''''''''two']\n"
                                "---\n"
                                "''''''''''''\n");
  ASSERT_TRUE(docs.ok()) << docs.error().describe();
  ASSERT_EQ(docs->size(), 3u);
  EXPECT_EQ((*docs)[0].value, json(R"({"five": "'''''", "x'''''y": "p q'''r\ns  ", "two": "a''b",
                                       "flow": {"'''''": "k'''''v"}})"));
  EXPECT_EQ((*docs)[1].value, json(R"(["''''''''''", "one'''''two"])"));
  EXPECT_EQ((*docs)[2].value, Value("'''''"));
}

// Before a closing quote libfyaml's formatter counts CR LF as two breaks,
// writes past the length its scanner counted, and leaks.
TEST(YamlScalars, CrLfBreaksBeforeAClosingQuote) {
  auto docs = parse_yaml_stream("\"b  \\tbb\\\"\\t\r\n\r\n\n\"\r\n"
                                "--- \"a\r\n\n\r\n\r\n\t\t\r\n \r\"\r\n"
                                "--- ' \n\n \n\r\n\n\r\n\r\n'\r\n"
                                "--- 'a''''''''''b\r\n\r\n  c''''''''''\r\n  '\r\n");
  ASSERT_TRUE(docs.ok()) << docs.error().describe();
  ASSERT_EQ(docs->size(), 4u);
  EXPECT_EQ((*docs)[0].value, Value("b  \tbb\"\t\n\n"));
  EXPECT_EQ((*docs)[1].value, Value("a\n\n\n\n\n"));
  EXPECT_EQ((*docs)[2].value, Value("\n\n\n\n\n\n"));
  EXPECT_EQ((*docs)[3].value, Value("a'''''b\nc''''' "));
}

// --- Empty entries of indentless sequences, around libfyaml 0.7.12 ----------
// libfyaml refuses `k:\n-\n- a`; kubectl reads {k: [null, a]}
// (yaml_cases/empty_sequence_entries pins more of it against kubectl).

TEST(YamlEmptySequenceEntries, ReadAsNull) {
  EXPECT_EQ(parse_one("k:\n-\n- a\n"), json(R"({"k": [null, "a"]})"));
  EXPECT_EQ(parse_one("k:\n- a\n-"), json(R"({"k": ["a", null]})"));
  EXPECT_EQ(parse_one("k:\r\n-  # c\r\n\r\n- a\r\n"), json(R"({"k": [null, "a"]})"));
  EXPECT_EQ(parse_one("k:\n-\n  a: 1\n"), json(R"({"k": [{"a": 1}]})"));  // content on the next line
  // All at once: one more parse however many there are.
  std::string many = "k:\n";
  std::string nulls;
  for (int i = 0; i < 200; ++i) {
    many += "-\n";
    nulls += i ? ",null" : "null";
  }
  EXPECT_EQ(parse_one(many + "j: 1\n"), json("{\"k\": [" + nulls + "], \"j\": 1}"));
}

TEST(YamlEmptySequenceEntries, PositionsAndErrorsAfterThemAreTheTexts) {
  EXPECT_EQ(position_in("k:\n-\n- a\nb: \"q\"\n", "/b"), "4:4");
  auto later = parse_yaml_stream("k:\n-\n- a\nb: [\n");
  ASSERT_FALSE(later.ok());
  EXPECT_EQ(later.error().line, 5u);
  // Still errors, with kubectl: a dash in a flow collection, a tab after the
  // dash.
  for (const char* text : {"k: [\n-\n]\n", "k:\n-\t\n- a\n"}) {
    auto refused = parse_yaml_stream(text);
    EXPECT_FALSE(refused.ok()) << text;
  }
}

// --- Block scalars with no content, around libfyaml 0.7.12's misreading ----
// libfyaml reads a line at the parent's indentation after a block scalar
// header with no content as the scalar's content; kubectl ends the scalar
// there (yaml_cases/empty_block_scalars pins more of it against kubectl).

TEST(YamlEmptyBlockScalars, EveryIndicatorAtEveryLevel) {
  for (std::string header : {"|", "|-", "|+", ">", ">-", ">+", "|  # c", ">-  # c"}) {
    SCOPED_TRACE(header);
    EXPECT_EQ(parse_one("a: " + header + "\nb: 1\n"), json(R"({"a": "", "b": 1})"));
    EXPECT_EQ(parse_one("x:\n  a: " + header + "\n  b: 1\n"), json(R"({"x": {"a": "", "b": 1}})"));
    EXPECT_EQ(parse_one("x:\n    a: " + header + "\n    b: 1\n"), json(R"({"x": {"a": "", "b": 1}})"));
    EXPECT_EQ(parse_one("- a: " + header + "\n  b: 1\n"), json(R"([{"a": "", "b": 1}])"));
    EXPECT_EQ(parse_one("x:\n  - " + header + "\n  - b\n"), json(R"({"x": ["", "b"]})"));
    EXPECT_EQ(parse_one("x:\n  list:\n  - " + header + "\n  - b\n"), json(R"({"x": {"list": ["", "b"]}})"));
    EXPECT_EQ(parse_one("- - " + header + "\n  - b\n"), json(R"([["", "b"]])"));
    EXPECT_EQ(parse_one("x:\n  ? " + header + "\n  : v\n"), json(R"({"x": {"": "v"}})"));
    EXPECT_EQ(parse_one("x:\n  \"k|\": !!str &a " + header + "\n  b: *a\n"), json(R"({"x": {"k|": "", "b": ""}})"));
  }
}

TEST(YamlEmptyBlockScalars, CommentsAndBlankLinesBetween) {
  EXPECT_EQ(parse_one("x:\n  a: |\n  # c\n  b: 1\n"), json(R"({"x": {"a": "", "b": 1}})"));
  EXPECT_EQ(parse_one("x:\n  a: |\n\n  \n# c\n  b: 1\n"), json(R"({"x": {"a": "", "b": 1}})"));
  // Keep chomping keeps the blank lines as line breaks, as kubectl does.
  EXPECT_EQ(parse_one("x:\n  a: |+\n\n  \n  b: 1\n  c: >+\n\n  d: 2\n"),
            json(R"({"x": {"a": "\n\n", "b": 1, "c": "\n", "d": 2}})"));
  // Blank lines wider than the parent's indentation: libfyaml reads these right.
  EXPECT_EQ(parse_one("x:\n  a: |+\n     \n  b: 1\n"), json(R"({"x": {"a": "\n", "b": 1}})"));
  EXPECT_EQ(parse_one("x:\r\n  a: |\r\n  b: 1\r\n"), json(R"({"x": {"a": "", "b": 1}})"));
}

TEST(YamlEmptyBlockScalars, OnesInsideTheLinesAMisreadOneSwallowed) {
  EXPECT_EQ(parse_one("x:\n  a: |\n  b: |\n  c: >-\n  d: 1\n"), json(R"({"x": {"a": "", "b": "", "c": "", "d": 1}})"));
  EXPECT_EQ(parse_one("x:\n  a: |\n  inner:\n    p: |\n    q: 1\n  z: |\n    text\n  w: 2\n"),
            json(R"({"x": {"a": "", "inner": {"p": "", "q": 1}, "z": "text\n", "w": 2}})"));
  // Content indented more than the parent is content; `---` there is text.
  EXPECT_EQ(parse_one("x:\n  cfg: |\n    a: |\n    b: 1\n  next: |\n  ---: 1\n"),
            json(R"({"x": {"cfg": "a: |\nb: 1\n", "next": "", "---": 1}})"));
}

TEST(YamlEmptyBlockScalars, AtTheEndOfDocumentsOfAStream) {
  auto docs = parse_yaml_stream("x:\n  a: |\n  b: 1\n---\n- a: >\n  b: 2\n  c: |-\n...\n---\nx:\n  a: |+\n");
  ASSERT_TRUE(docs.ok()) << docs.error().describe();
  ASSERT_EQ(docs->size(), 3u);
  EXPECT_EQ((*docs)[0].value, json(R"({"x": {"a": "", "b": 1}})"));
  EXPECT_EQ((*docs)[1].value, json(R"([{"a": "", "b": 2, "c": ""}])"));
  EXPECT_EQ((*docs)[1].line, 4u);
  EXPECT_EQ((*docs)[2].value, json(R"({"x": {"a": ""}})"));
}

// The repair gives libfyaml an indentation indicator it did not read in the
// text: positions and errors must still be the text's own.
TEST(YamlEmptyBlockScalars, PositionsAndErrorsAfterThemAreTheTexts) {
  const std::string text = "x:\n  a: |\n  b: \"q\"\n  c: |  # c\n  d: 'r'\n";
  EXPECT_EQ(position_in(text, "/x/b"), "3:6");
  EXPECT_EQ(position_in(text, "/x/d"), "5:6");

  auto bad_tag = parse_yaml_stream("x:\n  a: |\n  b: 1\n  c: !!int x\n");
  ASSERT_FALSE(bad_tag.ok());
  EXPECT_EQ(bad_tag.error().line, 4u);
  EXPECT_EQ(bad_tag.error().column, 12u);
  auto syntax = parse_yaml_stream("x:\n  a: | # c\n  b: \"x\n");
  ASSERT_FALSE(syntax.ok());
  EXPECT_EQ(syntax.error().line, 3u);
  EXPECT_EQ(syntax.error().column, 7u);
  auto duplicate = parse_yaml_stream("x:\n  a: |\n  a: 1\n");
  ASSERT_FALSE(duplicate.ok());
  EXPECT_EQ(duplicate.error().describe(), "<input>:3:3: document 1: duplicate key \"a\" (first at line 2 column 3)");
}

// Each level of empty block scalars nested inside the lines one swallowed
// is read again; past kMaxEmptyBlockScalarNesting levels the reader refuses.
TEST(YamlEmptyBlockScalars, NestingIsBounded) {
  auto nested = [](size_t levels) {
    std::string text = "m:\n";
    for (size_t level = 0; level < levels; ++level) {
      const std::string indent((level + 1) * 2, ' ');
      text += indent + "a: |\n" + indent + "b:\n";
    }
    return text + std::string((levels + 1) * 2, ' ') + "end: 1\n";
  };
  auto ten = parse_yaml(nested(10));
  ASSERT_TRUE(ten.ok()) << ten.error().describe();
  const Value* level = &ten->get_object()[0].value;
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(level->get_object()[0].value, Value(""));
    level = &level->get_object()[1].value;
  }
  EXPECT_EQ(*level, json(R"({"end": 1})"));
  auto deep = parse_yaml(nested(40));
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.error().message, "block scalars with no content nested too deeply to read");
  EXPECT_EQ(deep.error().line, 2u);
  EXPECT_EQ(deep.error().column, 6u);
}

// --- Emission in kubectl's style ------------------------------------------

TEST(YamlEmit, KubectlLayout) {
  Value v = json(R"({"kind":"Case","m":{},"l":[],"nested":[[1,2],{"a":[{"b":1,"c":[]}]},null,true,1.5,1e21,1e-7,0.1,1234567.5],
                    "obj":{"list":[{"name":"a","v":1},"x"],"z":null}})");
  EXPECT_EQ(to_yaml(v),
            "kind: Case\n"
            "l: []\n"
            "m: {}\n"
            "nested:\n"
            "- - 1\n"
            "  - 2\n"
            "- a:\n"
            "  - b: 1\n"
            "    c: []\n"
            "- null\n"
            "- true\n"
            "- 1.5\n"
            "- 1e+21\n"
            "- 1e-07\n"
            "- 0.1\n"
            "- 1.2345675e+06\n"
            "obj:\n"
            "  list:\n"
            "  - name: a\n"
            "    v: 1\n"
            "  - x\n"
            "  z: null\n");
}

// Expected text from `kubectl patch --local -f o.json --type merge -p '{}' -o yaml`.
TEST(YamlEmit, ScalarStylesAsKubectlChoosesThem) {
  Value v = json(R"({"data":{"Nstr":"N","amp":"&x","colon":"a: b","colon2":"a:b","colonend":"a:","ctrl":"a\u0001b",
    "dash":"- x","dash2":"-","date":"2024-01-01","dot5":".5","e":"1e3","eight":"08","emoji":"\ud83d\ude00","empty":"",
    "hash":"a #b","hash2":"#x","inner_quote":"it's","lead":"  x\ny\n","lsp":" x","n":"null","nonl":"a\nb","oct":"0755",
    "q":"?x","quote":"'x","script":"#!/bin/sh\necho hi\n","sexa":"1:20","spaces":"a \nb\n","tabs":"a\tb","tilde":"~",
    "trail":"a\nb\n\n","tsp":"x ","uni":"h\u00e9llo \u2713 \u65e5\u672c","yes":"yes","notstamp":"2024-02-30",
    "nozone":"2024-01-01T10:00:00","stamp":"2024-1-2T3:4:5Z"}})");
  EXPECT_EQ(to_yaml(v),
            "data:\n"
            "  Nstr: \"N\"\n"
            "  amp: '&x'\n"
            "  colon: 'a: b'\n"
            "  colon2: a:b\n"
            "  colonend: 'a:'\n"
            "  ctrl: \"a\\x01b\"\n"
            "  dash: '- x'\n"
            "  dash2: '-'\n"
            "  date: \"2024-01-01\"\n"
            "  dot5: \".5\"\n"
            "  e: \"1e3\"\n"
            "  eight: \"08\"\n"
            "  emoji: \"\\U0001F600\"\n"
            "  empty: \"\"\n"
            "  hash: 'a #b'\n"
            "  hash2: '#x'\n"
            "  inner_quote: it's\n"
            "  lead: |2\n"
            "      x\n"
            "    y\n"
            "  lsp: ' x'\n"
            "  \"n\": \"null\"\n"
            "  nonl: |-\n"
            "    a\n"
            "    b\n"
            "  notstamp: 2024-02-30\n"
            "  nozone: 2024-01-01T10:00:00\n"
            "  oct: \"0755\"\n"
            "  q: ?x\n"
            "  quote: '''x'\n"
            "  script: |\n"
            "    #!/bin/sh\n"
            "    echo hi\n"
            "  sexa: \"1:20\"\n"
            "  spaces: \"a \\nb\\n\"\n"
            "  stamp: \"2024-1-2T3:4:5Z\"\n"
            "  tabs: \"a\\tb\"\n"
            "  tilde: \"~\"\n"
            "  trail: |+\n"
            "    a\n"
            "    b\n"
            "\n"
            "  tsp: 'x '\n"
            "  uni: héllo ✓ 日本\n"
            "  \"yes\": \"yes\"\n");
}

TEST(YamlEmit, LongLinesFoldLikeKubectl) {
  std::string words;
  for (int i = 0; i < 20; ++i) words += "word ";
  Value v = Value(Object{Member{"deep", Value(Object{Member{"a", Value(Object{Member{"b", words + "end"}})}})},
                         Member{"lst", Value(Array{Value(words), Value("tab\t" + words + "x"),
                                                   Value(std::string(90, 'o') + " ppppp")})}});
  EXPECT_EQ(to_yaml(v),
            "deep:\n"
            "  a:\n"
            "    b: word word word word word word word word word word word word word word word\n"
            "      word word word word word end\n"
            "lst:\n"
            "- 'word word word word word word word word word word word word word word word word\n"
            "  word word word word '\n"
            "- \"tab\\tword word word word word word word word word word word word word word word\n"
            "  word word word word word x\"\n"
            "- " + std::string(90, 'o') + "\n"
            "  ppppp\n");
}

TEST(YamlEmit, ComplexKeys) {
  Value v = Value(Object{Member{"x\ny", 4}, Member{std::string(130, 'k'), 1}});
  std::string text = to_yaml(v);
  EXPECT_EQ(text, "? " + std::string(130, 'k') + "\n: 1\n? |-\n  x\n  y\n: 4\n");
  EXPECT_EQ(parse_one(text), v);
}

TEST(YamlEmit, MergeKeyStringIsQuotedAsKey) {
  Value v = json(R"({"<<":"<<"})");
  EXPECT_EQ(to_yaml(v), "\"<<\": <<\n");
  EXPECT_EQ(parse_one(to_yaml(v)), v);
}

TEST(YamlEmit, TopLevelScalarsAndStreams) {
  EXPECT_EQ(to_yaml(Value()), "null\n");
  EXPECT_EQ(to_yaml(Value("yes")), "\"yes\"\n");
  EXPECT_EQ(to_yaml(Value("a\nb")), "|-\n  a\n  b\n");
  EXPECT_EQ(to_yaml(json("[]")), "[]\n");
  std::vector<Value> docs{json(R"({"a":1})"), Value(), json(R"([1])")};
  EXPECT_EQ(to_yaml_stream(docs), "a: 1\n---\nnull\n---\n- 1\n");
}

// Every string that needs it comes back as a string, never a bool or number.
TEST(YamlEmit, AmbiguousStringsRoundTrip) {
  const char* strings[] = {"yes", "no", "y", "N", "on", "Off", "true", "FALSE", "~", "null", "Null", "", "0755",
                           "0o17", "0x1F", "1_000", "08", "1e3", "1.5", ".5", "-.5", "+1", "-1", ".inf", "-.inf",
                           ".nan", "2024-01-01", "2024-01-01T10:00:00Z", "1:20", "12:30:45", "- a", "-", "? a",
                           ": a", "a: b", "a #b", "#a", " lead", "trail ", "a\tb", "a\r\nb", "---", "...", "--- a",
                           "@a", "`a", "%a", "!a", "&a", "*a", "|", ">", "[a]", "{a}", "a,b", "'", "\"", "\\",
                           "a\u0085b", "a\u2028b", "\xEF\xBB\xBF" "bom", "\x7f", "multi\nline\n", "\n", "\n\n",
                           " \n", "x\n ", "<<", "9223372036854775808"};
  for (const char* s : strings) {
    Value v = Value(Object{Member{s, s}, Member{"list", Value(Array{Value(s)})}});
    std::string text = to_yaml(v);
    auto back = parse_yaml(text);
    ASSERT_TRUE(back.ok()) << "for \"" << s << "\":\n" << text << back.error().describe();
    EXPECT_EQ(*back, v) << "for \"" << s << "\":\n" << text;
  }
}

// --- Round trip over manifests ---------------------------------------------

constexpr std::string_view kManifests = R"(# A stream covering what users write.
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: &labels
    app.kubernetes.io/name: web
    tier: "frontend"
  annotations:
    mode: "0755"
    enabled: "yes"
    ratio: "1e3"
    created: 2024-05-01T12:00:00Z
    day: 2024-05-01
    note: "héllo wörld ✓ 日本語 😀"
spec:
  replicas: 3
  selector:
    matchLabels: *labels
  template:
    metadata:
      labels:
        <<: *labels
        extra: on
    spec:
      containers:
        - name: web
          image: nginx:1.25
          args: ["--port", "8080", --verbose, "a: b", '#hash']
          env:
            - {name: FLAG, value: "on"}
            - name: EMPTY
              value: ""
          resources: {limits: {cpu: 500m, memory: 1Gi}}
      volumes:
        - name: config
          configMap: {name: web, defaultMode: 0644}
---
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  serviceName: db
  replicas: 1
  template:
    spec:
      containers:
      - name: db
        image: postgres:16
        command:
        - /bin/sh
        - -c
        - |
          set -e
          exec postgres -c 'max_connections=200'
        volumeMounts:
        - {name: data, mountPath: /var/lib/postgresql/data}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 10Gi}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: yes
    storage: on
    schema:
      openAPIV3Schema:
        description: >
          A widget is a thing
          that does stuff.

          Second paragraph.
        type: object
        properties:
          script:
            type: string
            description: |-
              Runs:
                  indented code
              done
          keep:
            description: |+
              kept trailing

          leading:
            description: |2
                starts with spaces
              then not
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: oddities
data:
  yes: unquoted yes key
  "no": quoted no key
  0755: octal key
  off: on
  values: [yes, 0755, on, 1e3, 0x1F, 1_000, 08, ~, null, 2024-01-01, 12:30:45, 1.5, -0.0]
  quoted: ["yes", "0755", "on", "1e3", "~", "null", "2024-01-01", "12:30:45"]
  long: this is a long line of text that kubectl would fold after the eightieth column of output
  trailing: "spaces   "
...
)";

Value parse_stream_values(std::string_view text) {
  auto docs = parse_yaml_stream(text);
  EXPECT_TRUE(docs.ok()) << (docs.ok() ? "" : docs.error().describe()) << "\n" << text;
  Array values;
  if (docs.ok()) {
    for (auto& doc : *docs) values.push_back(doc.value);
  }
  return Value(std::move(values));
}

TEST(YamlRoundTrip, ParseEmitParseIsStable) {
  Value first = parse_stream_values(kManifests);
  ASSERT_EQ(first.size(), 5u);
  EXPECT_TRUE(first.at(1)->is_null());
  const Value& data = *first.at(4)->find("data");
  EXPECT_EQ(*data.find("true"), Value("unquoted yes key"));
  EXPECT_EQ(*data.find("493"), Value("octal key"));
  EXPECT_EQ(*data.find("values"), json(R"([true,493,true,1000,31,1000,8,null,null,"2024-01-01","12:30:45",1.5,0])"));
  EXPECT_EQ(*data.find("quoted"), json(R"(["yes","0755","on","1e3","~","null","2024-01-01","12:30:45"])"));
  std::string emitted = to_yaml_stream(first.get_array());
  Value second = parse_stream_values(emitted);
  EXPECT_EQ(second, first) << emitted;
  EXPECT_EQ(to_yaml_stream(second.get_array()), emitted) << "emission is a fixed point";
}

// PyYAML (YAML 1.1, like kubectl) reads the emitted text to the same JSON.
TEST(YamlRoundTrip, PythonYamlReadsTheEmittedText) {
  if (std::system("python3 -c 'import yaml' 2>/dev/null") != 0) GTEST_SKIP() << "python3-yaml not installed";
  Value values = parse_stream_values(kManifests);
  std::string emitted = to_yaml_stream(values.get_array());
  fs::path dir = fs::temp_directory_path() / ("sindri_yaml_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "in.yaml") << emitted;
  // json.dumps sorts nothing; sindri's JSON reader sorts keys anyway.
  std::string command = "python3 -c 'import sys, json, yaml; "
                        "print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1], encoding=\"utf-8\"))), "
                        "default=str))' " + (dir / "in.yaml").string() + " > " + (dir / "out.json").string();
  ASSERT_EQ(std::system(command.c_str()), 0) << emitted;
  Value from_python = json(read_file(dir / "out.json"));
  fs::remove_all(dir);
  ASSERT_EQ(from_python.size(), values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(*from_python.at(i), *values.at(i)) << "document " << i << "\n" << emitted;
  }
}

}  // namespace
}  // namespace sindri
