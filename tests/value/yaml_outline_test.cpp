// outline_yaml_stream against parse_yaml_stream: on every input the outline
// must be parse_yaml_stream's documents cut down to their top, or the same
// error (message, document, line, column).

#include "value/yaml/outline.hpp"

#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace sindri {
namespace {

namespace fs = std::filesystem;

constexpr std::array<std::string_view, 2> kKeys = {"apiVersion", "kind"};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The reference: parse_yaml_stream's documents, cut as YamlDocumentOutline::top says.
YamlOutlines reference_outlines(std::string_view text) {
  auto documents = parse_yaml_stream(text);
  if (!documents) return documents.error();
  std::vector<YamlDocumentOutline> outlines;
  for (const YamlDocument& document : *documents) {
    Value top = document.value;
    if (top.is_array()) top = Value(Array{});
    if (top.is_object()) {
      Object kept;
      for (const Member& member : top.get_object()) {
        if (member.key.get_string() != "apiVersion" && member.key.get_string() != "kind") continue;
        const Value& v = member.value;
        kept.push_back(Member{member.key, v.is_object() ? Value(Object{}) : v.is_array() ? Value(Array{}) : v});
      }
      top = Value(std::move(kept));
    }
    outlines.push_back(YamlDocumentOutline{document.line, std::move(top)});
  }
  return outlines;
}

std::string describe(const YamlOutlines& outlines) {
  if (!outlines) {
    const YamlError& e = outlines.error();
    return "error in document " + std::to_string(e.document) + " at " + std::to_string(e.line) + ":" +
           std::to_string(e.column) + ": " + e.message;
  }
  std::string out = std::to_string(outlines->size()) + " documents:";
  for (const YamlDocumentOutline& d : *outlines) {
    out += " [line " + std::to_string(d.line) + " " + d.top.kind_name();
    if (d.top.is_object()) {
      for (const Member& m : d.top.get_object()) {
        out += std::string(" ") + std::string(m.key.get_string()) + "=" + m.value.kind_name();
        if (m.value.is_string()) out += ":" + std::string(m.value.get_string());
      }
    }
    out += "]";
  }
  return out;
}

bool same(const YamlOutlines& a, const YamlOutlines& b) {
  if (a.ok() != b.ok()) return false;
  if (!a.ok()) {
    const YamlError &x = a.error(), &y = b.error();
    return x.message == y.message && x.document == y.document && x.line == y.line && x.column == y.column;
  }
  if (a->size() != b->size()) return false;
  for (size_t i = 0; i < a->size(); ++i) {
    if ((*a)[i].line != (*b)[i].line || !((*a)[i].top == (*b)[i].top)) return false;
  }
  return true;
}

void expect_same_as_reference(std::string_view text) {
  YamlOutlines expected = reference_outlines(text);
  YamlOutlines actual = outline_yaml_stream(text, kKeys);
  EXPECT_TRUE(same(actual, expected)) << "input:\n"
                                      << text << "\noutline:   " << describe(actual)
                                      << "\nreference: " << describe(expected);
}

bool takes_fast_path(std::string_view text) { return outline_yaml_stream_by_events(text, kKeys).has_value(); }
bool takes_block_path(std::string_view text) { return outline_block_yaml(text, kKeys).has_value(); }

const char* const kCorpus[] = {
    // valid streams, empty documents
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: \"1\"\n",
    "apiVersion: v1\nkind: A\n---\napiVersion: apps/v1\nkind: B\nspec:\n  replicas: 3\n",
    "---\napiVersion: v1\nkind: A\n...\n---\n...\n",
    "", "---", "---\n", "---\n---\n", "...\n", "# only a comment\n", "# one\n---\n# two\n",
    "\n\n\n  apiVersion: v1\n  kind: A\n",
    // non-mapping roots
    "- a\n- b\n", "hello\n", "123\n", "~\n", "null\n", "yes\n", "\"quoted\"\n", "[1, 2]\n", "|\n  text\n",
    "apiVersion: v1\nkind: A\n---\n- a\n", "---\n~\n---\napiVersion: v1\nkind: A\n",
    // missing, empty, non-string apiVersion and kind
    "kind: A\n", "apiVersion: v1\n", "apiVersion: \"\"\nkind: A\n", "apiVersion: v1\nkind:\n",
    "apiVersion: v1\nkind: 123\n", "apiVersion: v1\nkind: \"123\"\n", "apiVersion: v1\nkind: ~\n",
    "apiVersion: v1\nkind: yes\n", "apiVersion: v1\nkind: 1.5\n", "apiVersion: v1\nkind: 1e3\n",
    "apiVersion: v1\nkind: 0755\n", "apiVersion: v1\nkind: 2001-12-14\n", "apiVersion: v1\nkind: 99999999999999999999\n",
    "apiVersion: v1\nkind: [a]\n", "apiVersion: v1\nkind: {a: 1}\n", "apiVersion: v1\nkind:\n  nested: x\n",
    "apiVersion: v1\nkind: ''\n", "apiVersion: 1\nkind: A\n", "metadata:\n  apiVersion: v1\n  kind: A\n",
    // anchors, aliases, merge keys
    "base: &b {apiVersion: v1, kind: A}\n<<: *b\n", "apiVersion: &v v1\nkind: *v\n",
    "apiVersion: v1\nkind: A\nx: *nowhere\n", "a: &x [1]\nb: *x\napiVersion: v1\nkind: A\n",
    "apiVersion: v1\nkind: A\n<<: {kind: B}\n", "apiVersion: v1\n<<: {kind: B}\n", "<<: 1\n",
    "apiVersion: v1\nkind: A\nspec:\n  <<: {a: 1}\n", "apiVersion: v1\nkind: A\nspec:\n  <<: 1\n",
    "&r {apiVersion: v1, kind: A}\n", "apiVersion: v1\nkind: A\nspec: &s\n  a: 1\n",
    // flow mappings, quoted keys, tags
    "{apiVersion: v1, kind: X}\n", "{apiVersion: v1, kind: X}\n---\n{apiVersion: v1}\n",
    "\"kind\": X\n'apiVersion': v1\n", "? kind\n: X\n? apiVersion\n: v1\n", "apiVersion: v1\nkind: !!str 123\n",
    "apiVersion: v1\nkind: !!int x\n", "apiVersion: v1\nkind: !custom X\n", "!!map {apiVersion: v1, kind: A}\n",
    "apiVersion: v1\nkind: A\nspec: !!binary aGVsbG8=\n", "%TAG ! tag:example.com,2000:\n---\nkind: !x A\napiVersion: v1\n",
    "apiVersion: v1\nkind: A\nx: !!float 1\n", "apiVersion: v1\nkind: A\nx: !!null ~\n",
    // duplicate keys, at the top and nested, and keys that convert
    "apiVersion: v1\nkind: A\nkind: B\n", "apiVersion: v1\nkind: A\n\"kind\": B\n",
    "apiVersion: v1\nkind: A\nspec:\n  a: 1\n  a: 2\n", "apiVersion: v1\nkind: A\nspec:\n  b: 1\n  a: 2\n  b: 3\n  a: 4\n",
    "apiVersion: v1\nkind: A\nm:\n  yes: 1\n  true: 2\n", "apiVersion: v1\nkind: A\nm:\n  0755: 1\n  493: 2\n",
    "apiVersion: v1\nkind: A\nm:\n  ~: 1\n", "apiVersion: v1\nkind: A\nm:\n  : 1\n",
    "apiVersion: v1\nkind: A\nm:\n  99999999999999999999: 1\n", "apiVersion: v1\nkind: A\nm:\n  1.5: a\n  1.50: b\n",
    "apiVersion: v1\nkind: A\nm:\n  ? [a]\n  : 1\n", "apiVersion: v1\nkind: A\nm: {a: 1, a: 2}\n",
    "apiVersion: v1\nkind: A\ns:\n- a: 1\n  a: 2\n", "apiVersion: v1\nkind: A\na: {x: 1}\nb: {x: 1}\n",
    "a: 1\na: 2\nkind: [\n",
    // scalars with no JSON value
    "apiVersion: v1\nkind: A\nx: .inf\n", "apiVersion: v1\nkind: A\nx: [-.inf]\n", "apiVersion: v1\nkind: A\nx: .NaN\n",
    "apiVersion: v1\nkind: A\nx: \".inf\"\n", ".nan\n", "apiVersion: v1\nkind: .inf\n", "apiVersion: v1\nkind: A\nx: 1e999\n",
    // syntax errors of every kind
    "apiVersion: v1\nkind: [A\n", "apiVersion: v1\nkind: {A\n", "apiVersion: v1\nkind: \"A\n", "apiVersion: v1\nkind: 'A\n",
    "apiVersion: v1\n kind: A\n", "apiVersion: v1\nkind: A\n  bad: x\n", "a:\n- b\n c: d\n", "key: value: other\n",
    "apiVersion: v1\nkind: A\n---\nkind: B\n  apiVersion: v1\n", "- a\nb: c\n", "\tapiVersion: v1\n", "a: b\n\tc: d\n",
    "apiVersion: v1\nkind: A\n---\n]\n", "{a: 1}}\n", "@foo\n", "`foo\n", "a: &\n", "a: *\n", "!<>\n",
    "%YAML 1.1\n%YAML 1.1\n---\na: 1\n", "%FOO bar\n---\na: 1\n", "a: |\n  x\n y\n", "\"\\q\"\n", "a: 'b'c\n",
    "---\napiVersion: v1\nkind: A\n--- x: y\n", "apiVersion: v1\nkind: A\n...\nkind: B\n", "? a\n? b\n: c\n: d\n",
    "a: [1, 2]]\n", "[a, b\nc: d\n", "- - - [\n", "\xff\xfe" "bad\n", "a: \"\\x4\"\n",
    // a BOM, CRLF line ends
    "\xEF\xBB\xBF" "apiVersion: v1\nkind: A\n", "apiVersion: v1\r\nkind: A\r\n---\r\napiVersion: v1\r\n",
    "apiVersion: v1\r\nkind: [A\r\n", "\xEF\xBB\xBF" "---\r\n- a\r\n",
    // the block scanner's edges: an empty block scalar ended by a comment left
    // of its owner (libfyaml then reads the owner's next line as a key), a
    // no-break space around `:`, runs of escaped single quotes, document markers
    // as plain scalars, an indentless sequence under a compact mapping
    "  x: |\n # c\n  kind: K\n", "x:\n  w: |\n# c\n  v: 1\nkind: K\n", "kind: a:\xC2\xA0" "b\n",
    "kind: a\xC2\xA0: b\n", "kind: 'a''''b'\napiVersion: ''''''\n", "x:\n- ---\n- ... a\nkind: --- # c\n",
    "x:\n-   a:\n    - b\n    c: 1\nkind: K\n",
    // empty block scalars followed by a line at their parent's indentation,
    // which libfyaml alone reads as their content
    "x:\n  a: |\n  kind: K\napiVersion: v1\n", "apiVersion: v1\nkind: K\nx:\n  a: |+\n\n  b: 1\n",
    "- a: |\n  kind: 1\n", "x:\n  a: >-\n  b: |\n  c: 1\n---\nkind: K\n", "x:\n  a: |\n  b: 1\n  b: 2\nkind: K\n",
};

TEST(YamlOutline, SameAsParseYamlStreamOnTheCorpus) {
  for (const char* text : kCorpus) expect_same_as_reference(text);
}

// The event walk reads libfyaml's events with their repair (yaml/libfyaml/block_indent.hpp).
TEST(YamlOutline, TheEventWalkDecidesEmptyBlockScalarsItself) {
  for (const char* text : {"apiVersion: v1\nkind: K\ndata:\n  a: |\n  b: \"1\"\n", "- a: |\n  b: 1\n"}) {
    expect_same_as_reference(text);
    EXPECT_FALSE(takes_block_path(text)) << text;
    EXPECT_TRUE(takes_fast_path(text)) << text;
  }
}

TEST(YamlOutline, SameOnTheKubectlPinnedCasesAndTheBenchOutput) {
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(SINDRI_TESTS_DIR) / "value" / "yaml_cases")) {
    if (entry.path().extension() != ".yaml") continue;
    expect_same_as_reference(read_file(entry.path()));
    ++files;
  }
  EXPECT_GT(files, 10u);
  std::string three_tier = read_file(fs::path(SINDRI_SHARED_CORPUS) / "bench" / "three-tier.expected.out");
  ASSERT_FALSE(three_tier.empty());
  expect_same_as_reference(three_tier);
  EXPECT_TRUE(takes_fast_path(three_tier));
  EXPECT_TRUE(takes_block_path(three_tier));
}

TEST(YamlOutline, SameOnAOneMegabyteStream) {
  std::string text;
  for (int i = 0; text.size() < (1u << 20); ++i) {
    text += "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-" + std::to_string(i) +
            "\n  labels: {app: web, tier: \"front\"}\ndata:\n  key: |\n    line one\n    line two\n  list:\n  - 1\n  - "
            "two\n";
  }
  expect_same_as_reference(text);
  EXPECT_TRUE(takes_fast_path(text));
  EXPECT_TRUE(takes_block_path(text));
  expect_same_as_reference(text + "broken: [\n");
}

TEST(YamlOutline, SameOnDeepNesting) {
  for (size_t depth : {100u, 511u, 512u, 513u, 2000u}) {
    std::string block = "apiVersion: v1\nkind: A\nspec:\n";
    std::string flow = "apiVersion: v1\nkind: A\nspec: ";
    for (size_t i = 0; i < depth; ++i) {
      block += std::string(2 * (i + 1), ' ') + "k:\n";
      flow += i % 2 ? "{k: " : "[";
    }
    block += std::string(2 * (depth + 1), ' ') + "v\n";
    flow += "v";
    for (size_t i = depth; i-- > 0;) flow += i % 2 ? "}" : "]";
    flow += "\n";
    expect_same_as_reference(block);
    expect_same_as_reference(flow);
  }
}

TEST(YamlOutline, ANulOrABadByteIsTheReadersErrorInItsDocument) {
  using namespace std::string_literals;
  struct Case {
    std::string text;
    size_t document;
  };
  for (const Case& bad : {Case{"apiVersion: v1\nkind: A # \0\n"s, 0}, Case{"apiVersion: v1\nkind: A\0B\n"s, 0},
                          Case{"apiVersion: v1\nkind: A\n---\nkind: \"\0\"\n"s, 1},
                          Case{"apiVersion: v1\nkind: A\n---\napiVersion: v1\nkind: \xff\n"s, 1}}) {
    expect_same_as_reference(bad.text);
    const YamlOutlines outlines = outline_yaml_stream(bad.text, kKeys);
    ASSERT_FALSE(outlines.ok()) << bad.text;
    EXPECT_EQ(outlines.error().document, bad.document) << outlines.error().describe();
  }
}

TEST(YamlOutline, OrdinaryManifestsAndSyntaxErrorsNeedNoFallback) {
  EXPECT_TRUE(takes_fast_path("apiVersion: v1\nkind: A\nspec:\n  a: [1, {b: c}]\n  m: 1.5\n---\n- x\n"));
  EXPECT_TRUE(takes_fast_path("apiVersion: v1\nkind: [A\n"));
  EXPECT_TRUE(takes_fast_path("apiVersion: v1\nkind: 123\n"));
  EXPECT_FALSE(takes_fast_path("apiVersion: v1\nkind: A\nspec:\n  a: 1\n  a: 2\n"));
  EXPECT_FALSE(takes_fast_path("a: &x 1\nb: *x\n"));
  EXPECT_FALSE(takes_fast_path("apiVersion: v1\nkind: A\nspec:\n  n: 1\n"));  // `n` is the key "false"
  EXPECT_FALSE(takes_fast_path("kind: !!str 1\n"));
}

// Small random variations on a manifest, fixed seed: keys and values that
// convert, repeat, alias, merge, are tagged or quoted, at random indents,
// with document markers, comments and characters that break the syntax.
std::string random_yaml(std::mt19937& rng) {
  static const char* const kKeyPieces[] = {"apiVersion", "kind",   "\"kind\"", "'apiVersion'", "metadata", "spec", "a",
                                           "a",          "yes",    "true",     "0755",         "493",      "~",    "<<",
                                           "1.5",        "? kind", "&k kind",  "*k",           "!!str kind", "",   "- a"};
  static const char* const kValuePieces[] = {"v1",    "X",       "123",     "\"123\"",   "~",          "",
                                             "''",    "\"\"",    ".inf",    "!!str 123", "!!int x",    "&a v",
                                             "*a",    "[1, 2]",  "{a: 1}",  "{kind: B}", "|\n  text",  ">-\n  folded",
                                             "yes",   "1e3",     "0x1F",    "2001-12-14", "[",         "{a: 1, a: 2}",
                                             "\"x",   "'y",      "@bad",    "a: b",       "- item",    "# comment",
                                             "*none", "!!float 2", "99999999999999999999", "\"\\x41\"", "{apiVersion: v1, kind: Y}"};
  static const char* const kLinePrefixes[] = {"", "", "", "", "", "  ", "  ", "    ", "- ", "\t", " "};
  std::uniform_int_distribution<size_t> lines(0, 8);
  std::string out;
  if (rng() % 10 == 0) out += "\xEF\xBB\xBF";
  size_t count = lines(rng);
  const char* eol = rng() % 8 == 0 ? "\r\n" : "\n";
  for (size_t i = 0; i < count; ++i) {
    switch (rng() % 12) {
      case 0:
        out += "---";
        break;
      case 1:
        out += rng() % 2 ? "..." : "# comment";
        break;
      default:
        out += kLinePrefixes[rng() % std::size(kLinePrefixes)];
        out += kKeyPieces[rng() % std::size(kKeyPieces)];
        out += ": ";
        out += kValuePieces[rng() % std::size(kValuePieces)];
    }
    out += eol;
  }
  return out;
}

TEST(YamlOutline, SameOnRandomVariants) {
  std::mt19937 rng(20240611);
  size_t fast = 0, errors = 0, objects = 0;
  constexpr size_t kVariants = 4000;
  for (size_t i = 0; i < kVariants; ++i) {
    std::string text = random_yaml(rng);
    expect_same_as_reference(text);
    if (HasFailure()) return;
    fast += takes_fast_path(text);
    YamlOutlines reference = reference_outlines(text);
    if (!reference) ++errors;
    else if (!reference->empty() && (*reference)[0].top.is_object()) ++objects;
  }
  // The variants must exercise all three outcomes, not only one.
  EXPECT_GT(fast, kVariants / 5);
  EXPECT_GT(errors, kVariants / 10);
  EXPECT_GT(objects, kVariants / 20);
}

TEST(YamlOutline, TheBlockScannerClaimsTheYamlRenderersWrite) {
  const char* const kClaimed[] = {
      "apiVersion: v1\nkind: A\n",
      "# leading comment\n\napiVersion: v1\nkind: A\n",
      "---\napiVersion: v1\nkind: A\n---\n\n---\napiVersion: v1\nkind: B\n",
      "apiVersion: \"v1\"\n'kind': 'A'\nmetadata:\n  annotations:\n    \"a.b/c\": \"x: y # z\"\n",
      "apiVersion: v1\nkind: A\nspec:\n  containers:\n  - name: a\n    args: [\"--x\", -1, 'y']\n  -   name: b\n",
      "apiVersion: v1\nkind: A\nspec:\n  list:\n    - a\n    -\n      b: c\n    - - \n",
      "apiVersion: v1\nkind: A\ndata:\n  script: |-\n    #!/bin/sh\n\n    echo \"a: b\" # kept\n  other: >\n    folded\n",
      "apiVersion: v1\nkind: A\nmetadata: {name: a, \"n\": 1}\nspec: []\n",
      "apiVersion: 'it''s'\nkind: A\nb: |\n\n  \n   x\n  \n",
      "apiVersion: v1 # trailing comment\nkind: A\nx: http://host:80/p?q=1#frag\nz: caf\xc3\xa9\n",
  };
  for (const char* text : kClaimed) {
    expect_same_as_reference(text);
    if (std::string_view(text).find("- - ") == std::string_view::npos) {
      EXPECT_TRUE(takes_block_path(text)) << text;
    }
  }
  const char* const kLeftToTheEventWalk[] = {
      "apiVersion: v1\r\nkind: A\r\n", "\tapiVersion: v1\n", "a: &x 1\nb: *x\n", "a: !!str 1\n",
      "a: b\n  c\n", "a: \"multi\n  line\"\n", "a: [1,\n  2]\n", "a: |2\n    x\n", "? a\n: b\n",
      "a: 1\na: 2\n", "yes: 1\n", "a: .inf\n", "- a\n", "a: \"\\x41\"\n", "a: 1\n...\n", "\xEF\xBB\xBF" "a: 1\n",
      "a: |\n    \n  x\n", "a: |\n    \nb: 1\n", "a: b: c\n", "a: {b: [c]}\n", "a: x\xc2\x85y\n",
  };
  for (const char* text : kLeftToTheEventWalk) {
    expect_same_as_reference(text);
    EXPECT_FALSE(takes_block_path(text)) << text;
  }
}

// Manifests built at random from block-YAML pieces (nested mappings and
// sequences, indentless and compact sequences, block scalars, comments,
// documents), then damaged at random (a character inserted or deleted, a
// line's indent moved, lines swapped), so that many inputs sit on the edge
// of the scanner's subset.
class RandomBlockYaml {
 public:
  explicit RandomBlockYaml(std::mt19937& rng) : rng_(rng) {}

  std::string next() {
    lines_.clear();
    for (size_t d = 0, documents = 1 + pick(2); d < documents; ++d) {
      if (d > 0 || pick(3) == 0) lines_.push_back(pick(4) ? "---" : "--- # doc");
      mapping(pick(5) == 0 ? 2 : 0, 0, "", true);
    }
    for (size_t damage = pick(3); damage > 0; --damage) damage_a_line();
    std::string out;
    for (const std::string& line : lines_) out += line + "\n";
    return out;
  }

 private:
  size_t pick(size_t n) { return rng_() % n; }
  static std::string spaces(size_t n) { return std::string(n, ' '); }

  void noise(size_t indent) {
    if (pick(6) == 0) lines_.push_back(pick(2) ? spaces(indent) + "# comment" : spaces(pick(3)));
  }

  // Entries at `indent`; the first goes on a line that starts with `prefix` (a compact mapping's `- `).
  void mapping(size_t indent, size_t depth, const std::string& prefix, bool root) {
    static const char* const kKeys[] = {"name", "a", "b", "\"q\"", "'s'", "x.y/z", "n-1", "2001-12-14", "image"};
    static const char* const kRareKeys[] = {"on", "1", "a b", "\"a\\tb\"", "'a''b'", "<<", "~", ".inf", "-x"};
    std::vector<std::string> keys;
    if (root) keys = {"apiVersion", "kind"};
    for (size_t i = 0, count = 1 + pick(4); i < count; ++i) keys.push_back(kKeys[pick(std::size(kKeys))]);
    std::sort(keys.begin(), keys.end());
    if (pick(20)) keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    if (pick(20) == 0) keys.push_back(kRareKeys[pick(std::size(kRareKeys))]);
    std::shuffle(keys.begin(), keys.end(), rng_);
    for (size_t i = 0; i < keys.size(); ++i) {
      std::string line = (i == 0 && !prefix.empty() ? prefix : spaces(indent)) + keys[i] + ":";
      if (root && (keys[i] == "apiVersion" || keys[i] == "kind") && pick(10)) {
        lines_.push_back(line + " " + scalar());
      } else {
        value(line, indent, depth);
      }
      noise(indent);
    }
  }

  void sequence(size_t indent, size_t depth) {
    for (size_t i = 0, count = 1 + pick(3); i < count; ++i) {
      std::string dash = spaces(indent) + (pick(5) ? "- " : "-   ");
      switch (depth > 4 ? 0 : pick(4)) {
        case 0:
          lines_.push_back(dash + scalar());
          break;
        case 1:
          mapping(dash.size(), depth + 1, dash, false);
          break;
        case 2:
          lines_.push_back(spaces(indent) + "-");
          mapping(indent + 2, depth + 1, "", false);
          break;
        default:
          value(dash.substr(0, dash.size() - 1), indent, depth);
      }
    }
  }

  // A member's or item's value: on the line, or nested below it.
  void value(std::string line, size_t indent, size_t depth) {
    switch (depth > 4 ? 0 : pick(6)) {
      case 0:
      case 1:
        lines_.push_back(line + " " + scalar());
        return;
      case 2:
        lines_.push_back(line + (pick(4) ? "" : " # nested"));
        noise(indent);
        mapping(indent + (pick(4) ? 2 : 4), depth + 1, "", false);
        return;
      case 3:
        lines_.push_back(line);
        sequence(indent + (pick(2) ? 0 : 2), depth + 1);
        return;
      case 4: {
        static const char* const kHeaders[] = {"|", "|-", "|+", ">", ">-", "| # c"};
        lines_.push_back(line + " " + kHeaders[pick(std::size(kHeaders))]);
        const size_t content = indent + 2 + pick(2);
        for (size_t i = 0, count = pick(8) ? 1 + pick(3) : 0; i < count; ++i) {
          static const char* const kContent[] = {"text: # not a key", "- not an item", "", "---x", "  deeper", "#!/bin/sh"};
          const char* text = kContent[pick(std::size(kContent))];
          lines_.push_back(*text ? spaces(content) + text : spaces(pick(content + 2)));
        }
        return;
      }
      default: {
        static const char* const kFlow[] = {"[]", "{}", "[a, \"b\", 3]", "{k: v, 'l': -1}", "[ x , 'y' ]"};
        static const char* const kRareFlow[] = {"[x, ]", "{k: v, k: w}", "[a: b]", "[[a]]", "{a: {}}", "[.nan]", "[a b]"};
        lines_.push_back(line + " " +
                         (pick(20) ? kFlow[pick(std::size(kFlow))] : kRareFlow[pick(std::size(kRareFlow))]));
      }
    }
  }

  std::string scalar() {
    static const char* const kScalars[] = {"v1",      "Deployment", "\"quoted # not a comment\"", "'it''s'", "42",
                                           "-1",      "1.5",        "true",                      "~",       "\"\"",
                                           "''",      "a b c",      "x # c",                     "http://h:1/p#f",
                                           "\"esc\\n\"", "--f",        "caf\xc3\xa9",                "a,b",     "0x1F",
                                           "'a: b'",  "2001-12-14", "a'b\"c",                    "-.5"};
    static const char* const kRareScalars[] = {"1e999", "\"\\/\"", ".inf", "&a x", "*a", "!t x", "a: b", "- a",
                                               "\"\\x41\"", "'x", "x]", "@x", "%x", "? x", ":x", "\"a\\\"b\""};
    return pick(25) ? kScalars[pick(std::size(kScalars))] : kRareScalars[pick(std::size(kRareScalars))];
  }

  void damage_a_line() {
    static const char kDamage[] = {' ', ' ', ':', '-', '#', '"', '\'', '[', ']', '{', '}', ',', '|', '>',
                                   '&', '*', '!', '?', '\t', '\r', 'x', '\n', '%', '@'};
    if (lines_.empty()) return;
    std::string& line = lines_[pick(lines_.size())];
    switch (pick(4)) {
      case 0:
        line.insert(0, pick(2) ? " " : "  ");
        break;
      case 1:
        if (!line.empty()) line.erase(pick(line.size()), 1);
        break;
      case 2:
        line.insert(line.empty() ? 0 : pick(line.size()), 1, kDamage[pick(std::size(kDamage))]);
        break;
      default:
        std::swap(line, lines_[pick(lines_.size())]);
    }
  }

  std::mt19937& rng_;
  std::vector<std::string> lines_;
};

TEST(YamlOutline, BlockScannerSameOnRandomBlockYaml) {
  std::mt19937 rng(20261121);
  RandomBlockYaml generator(rng);
  size_t claimed = 0, valid = 0, errors = 0;
  constexpr size_t kVariants = 6000;
  for (size_t i = 0; i < kVariants; ++i) {
    std::string text = generator.next();
    expect_same_as_reference(text);
    if (HasFailure()) return;
    claimed += takes_block_path(text);
    if (reference_outlines(text).ok()) ++valid;
    else ++errors;
  }
  // The scanner must claim a good share of the valid variants (many hold a
  // piece it leaves to the event walk on purpose), and the damage must reach
  // the errors too, or the comparison proves little.
  EXPECT_GT(claimed, valid / 3) << claimed << " claimed of " << valid << " valid";
  EXPECT_GT(errors, kVariants / 10);
}

}  // namespace
}  // namespace sindri
