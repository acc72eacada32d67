// The line scanner behind outline_block_yaml. It reads the block YAML that
// template renderers and kubectl write, one line at a time, and keeps of it
// only what the outline needs: the indentation of every open collection, the
// keys of every open mapping (for duplicates) and the asked-for top-level
// values. It claims an input only when every line is one of the forms below;
// anything else, valid or not, ends the scan with nullopt:
//
//   key: value          a plain key of [A-Za-z0-9_./-] or a quoted key
//                       without escapes; the value on the line, or none
//   - value             a sequence entry; `- key: value` opens a mapping
//   value               a one-line plain, single- or double-quoted scalar, a
//                       `|` or `>` block scalar (chomping, no indentation
//                       indicator), or a one-line flow sequence or mapping of
//                       such scalars
//   ---                 a document start; blank and comment lines
//
// Tabs, carriage returns, control characters, a byte-order mark, anchors,
// aliases, tags, directives, `?` keys, `...`, multi-line plain and quoted
// scalars and hex escapes are outside the subset.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "value/utf8.hpp"
#include "value/yaml/outline.hpp"
#include "value/yaml/outline_top.hpp"
#include "value/yaml/scalar.hpp"

namespace sindri {
namespace {

using yaml_detail::ResolvedScalar;

// Well under YamlOptions::max_depth, so the reader's depth error never applies.
constexpr size_t kMaxDepth = 256;
// YAML limits an implicit key to 1024 characters; stay clear of the edge.
constexpr size_t kMaxKeyLength = 1000;

// The length of a UTF-8 sequence at text[at] whose character YAML 1.1 reads
// as ordinary printable text, or 0 (invalid UTF-8, C1 controls, the line and
// paragraph separators, the byte-order mark, non-characters).
size_t printable_utf8_length(std::string_view text, size_t at) {
  const Utf8CodePoint c = decode_utf8(text, at);
  if (c.length < 2) return 0;
  const char32_t code = c.value;
  if (code < 0xA0 || code == 0x2028 || code == 0x2029 || code == 0xFEFF || code == 0xFFFE || code == 0xFFFF) return 0;
  return c.length;
}

// Whether any byte of the eight in `word` is a control character other than
// a line feed, DEL, or not ASCII. Exact per byte: no carry crosses bytes.
bool has_unusual_byte(uint64_t word) {
  constexpr uint64_t kOnes = 0x0101010101010101;
  constexpr uint64_t kHigh = 0x8080808080808080;
  constexpr uint64_t kLow7 = 0x7F7F7F7F7F7F7F7F;
  const auto zero_bytes = [&](uint64_t x) { return ~(((x & kLow7) + kLow7) | x) & kHigh; };
  const uint64_t below_space = ~(((word & kLow7) + kOnes * (0x80 - 0x20)) | word) & kHigh;
  const uint64_t line_feeds = zero_bytes(word ^ (kOnes * '\n'));
  const uint64_t deletes = zero_bytes(word ^ (kOnes * 0x7F));
  return ((below_space & ~line_feeds) | deletes | (word & kHigh)) != 0;
}

// Printable ASCII and line feeds, or printable UTF-8 past the first byte.
bool only_plain_characters(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) return false;
  size_t at = 0;
  while (at < text.size()) {
    if (at + 8 <= text.size()) {
      uint64_t word;
      std::memcpy(&word, text.data() + at, 8);
      if (!has_unusual_byte(word)) {
        at += 8;
        continue;
      }
    }
    const unsigned char c = static_cast<unsigned char>(text[at]);
    if ((c >= 0x20 && c < 0x7F) || c == '\n') {
      ++at;
    } else if (c >= 0x80) {
      const size_t length = printable_utf8_length(text, at);
      if (length == 0) return false;
      at += length;
    } else {
      return false;
    }
  }
  return true;
}

constexpr auto kKeyCharacters = [] {
  std::array<bool, 256> table{};
  for (int c = 0; c < 256; ++c) {
    table[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
               c == '/' || c == '-';
  }
  return table;
}();

inline bool is_key_character(char c) { return kKeyCharacters[static_cast<unsigned char>(c)]; }

constexpr std::array<bool, 256> table_of(std::string_view characters) {
  std::array<bool, 256> table{};
  for (char c : characters) table[static_cast<unsigned char>(c)] = true;
  return table;
}

constexpr auto kFlowIndicatorOrHash = table_of(",[]{}#");
// Indicators, and the characters this scanner does not let a plain scalar start with.
constexpr auto kNotPlainStart = table_of(",[]{}#&*!|>'\"%@`?:\n ");
// The characters at which a block plain scalar may end or leave the subset.
constexpr auto kPlainInterruptions = table_of(" :[]{}");
// YAML 1.1's double-quoted escapes other than \x, \u, \U and an escaped line break.
constexpr auto kSimpleEscapes = table_of("0abtnvfre \"\\N_LP");

// One line's content: from `at` (past the indentation) to `end` (the line feed or the end of the text).
struct Line {
  std::string_view text;  // the whole input
  size_t start = 0;       // where the line begins
  size_t at = 0;
  size_t end = 0;
  size_t number = 0;      // 1-based

  size_t column() const { return at - start; }
  bool done() const { return at == end; }
  char peek(size_t ahead = 0) const { return at + ahead < end ? text[at + ahead] : '\n'; }
  void skip_spaces() {
    constexpr uint64_t kEightSpaces = 0x2020202020202020;
    const char* p = text.data() + at;
    const char* const stop = text.data() + end;
    for (uint64_t word; stop - p >= 8 && (std::memcpy(&word, p, 8), word == kEightSpaces);) p += 8;
    while (p < stop && *p == ' ') ++p;
    at = static_cast<size_t>(p - text.data());
  }
  void skip_key_characters() {
    const char* p = text.data() + at;
    const char* const stop = text.data() + end;
    while (p < stop && is_key_character(*p)) ++p;
    at = static_cast<size_t>(p - text.data());
  }
  // After a node: only spaces, then the end or a comment.
  bool rest_is_blank() {
    const size_t before = at;
    skip_spaces();
    return done() || (text[at] == '#' && at > before);
  }
};

struct Block {
  size_t indent = 0;
  bool is_mapping = false;
  // A sequence at its parent mapping's indentation (`key:` then `- item`
  // lines at the key's column), which ends at the next key of that mapping.
  bool indentless = false;
  size_t first_key = 0;  // where this mapping's keys start in keys_seen_
};

// What a one-line scalar turned out to be.
enum class Scalar { Invalid, Quoted, QuotedWithEscapes };

class BlockOutline {
 public:
  explicit BlockOutline(std::span<const std::string_view> keys) : top_(keys) {}

  std::optional<std::vector<YamlDocumentOutline>> scan(std::string_view text) {
    if (!only_plain_characters(text)) return std::nullopt;
    text_ = text;
    size_t start = 0;
    size_t number = 0;
    while (start < text.size()) {
      const char* feed = static_cast<const char*>(std::memchr(text.data() + start, '\n', text.size() - start));
      const size_t end = feed ? static_cast<size_t>(feed - text.data()) : text.size();
      Line line{text, start, start, end, ++number};
      if (!take(line)) return std::nullopt;
      start = end + 1;
    }
    if (!end_document()) return std::nullopt;
    return std::move(outlines_);
  }

 private:
  bool take(Line& line) {
    line.skip_spaces();
    if (block_scalar_) {
      if (line.done()) return blank_in_block_scalar(line);
      if (line.column() > block_scalar_parent_) return content_in_block_scalar(line);
      if (!end_block_scalar(line.column())) return false;
    }
    if (line.done() || line.peek() == '#') return true;
    if (line.column() == 0 && line.peek() == '-' && line.peek(1) == '-' && line.peek(2) == '-' &&
        (line.peek(3) == ' ' || line.peek(3) == '\n')) {
      line.at += 3;
      if (!line.rest_is_blank() || !end_document()) return false;
      start_document(line.number);
      return true;
    }
    if (!document_open_) start_document(line.number);
    return node_line(line);
  }

  void start_document(size_t line) {
    outlines_.emplace_back();
    outlines_.back().line = line;
    document_open_ = true;
    root_done_ = false;
    top_.start_document();
  }

  bool end_document() {
    if (block_scalar_ && !end_block_scalar(std::nullopt)) return false;
    if (!document_open_) return true;
    if (pending_ && !fill_pending_with_null()) return false;
    while (!blocks_.empty()) {
      if (!close_block()) return false;
    }
    document_open_ = false;
    return true;
  }

  // A line that holds a node, indented by line.column().
  bool node_line(Line& line) {
    const size_t indent = line.column();
    if (pending_) {
      const Block& owner = blocks_.back();
      if (indent > owner.indent) {
        pending_ = false;
        return open_collection(line, false);
      }
      if (indent == owner.indent && owner.is_mapping && is_dash(line)) {
        pending_ = false;
        return open_collection(line, true);
      }
      if (!fill_pending_with_null()) return false;
    }
    while (!blocks_.empty() && indent < blocks_.back().indent) {
      if (!close_block()) return false;
    }
    if (blocks_.empty()) {
      // The root must be a mapping; it could be anything else, but never is in a manifest.
      if (root_done_ || is_dash(line)) return false;
      return open_collection(line, false);
    }
    if (blocks_.back().indent != indent) return false;
    if (!blocks_.back().is_mapping) {
      if (is_dash(line)) return sequence_entry(line);
      if (!blocks_.back().indentless) return false;
      blocks_.pop_back();
    }
    return mapping_entry(line);
  }

  static bool is_dash(const Line& line) { return line.peek() == '-' && (line.peek(1) == ' ' || line.peek(1) == '\n'); }

  // A mapping or sequence whose first entry is on this line, as the value
  // pending in the innermost block (or as the root).
  bool open_collection(Line& line, bool indentless) {
    if (blocks_.size() >= kMaxDepth) return false;
    const bool is_mapping = !is_dash(line);
    if (!blocks_.empty()) {
      place(!top_.awaiting() ? Value() : is_mapping ? Value(Object{}) : Value(Array{}));
    }
    blocks_.push_back(Block{line.column(), is_mapping, indentless, keys_seen_.size()});
    return is_mapping ? mapping_entry(line) : sequence_entry(line);
  }

  bool sequence_entry(Line& line) {
    ++line.at;
    const size_t before = line.at;
    line.skip_spaces();
    if (line.done() || (line.peek() == '#' && line.at > before)) {
      pending_ = true;
      return true;
    }
    if (is_dash(line)) return false;
    Line past_key = line;
    if (auto key = read_key(past_key)) {
      if (blocks_.size() >= kMaxDepth) return false;
      blocks_.push_back(Block{line.column(), true, false, keys_seen_.size()});
      line = past_key;
      return member_value(line, *key);
    }
    return inline_value(line);
  }

  // The key at line.at, and line.at past its `:` and the spaces after.
  std::optional<std::string_view> read_key(Line& line) const {
    std::string_view key;
    const char first = line.peek();
    if (first == '"' || first == '\'') {
      const size_t open = line.at + 1;
      const char* close = static_cast<const char*>(std::memchr(text_.data() + open, first, line.end - open));
      if (close == nullptr) return std::nullopt;
      key = text_.substr(open, static_cast<size_t>(close - text_.data()) - open);
      if (first == '"' && key.find('\\') != std::string_view::npos) return std::nullopt;
      line.at = static_cast<size_t>(close - text_.data()) + 1;
      if (first == '\'' && line.peek() == '\'') return std::nullopt;
    } else {
      const size_t begin = line.at;
      if (first == '-' || first == '.' || !is_key_character(first)) return std::nullopt;
      line.skip_key_characters();
      key = text_.substr(begin, line.at - begin);
      if (yaml_detail::plain_may_not_be_string(key)) {
        ResolvedScalar resolved = yaml_detail::resolve_plain(key);
        if (resolved.type != ResolvedScalar::Type::String && resolved.type != ResolvedScalar::Type::Timestamp) {
          return std::nullopt;
        }
      }
    }
    if (key.size() > kMaxKeyLength) return std::nullopt;
    line.skip_spaces();
    if (line.peek() != ':' || (line.peek(1) != ' ' && line.peek(1) != '\n')) return std::nullopt;
    ++line.at;
    return key;
  }

  bool mapping_entry(Line& line) {
    auto key = read_key(line);
    return key && member_value(line, *key);
  }

  // After a key's `:`.
  bool member_value(Line& line, std::string_view key) {
    keys_seen_.push_back(key);
    if (blocks_.size() == 1) top_.key(key);
    const size_t before = line.at;
    line.skip_spaces();
    if (line.done() || (line.peek() == '#' && line.at > before)) {
      pending_ = true;
      return true;
    }
    return inline_value(line);
  }

  // A node that starts and ends on this line, or a block scalar's header.
  bool inline_value(Line& line) {
    switch (line.peek()) {
      case '"':
      case '\'': {
        const char quote = line.peek();
        std::string_view body;
        const Scalar scalar = quoted(line, body);
        if (scalar == Scalar::Invalid || !line.rest_is_blank()) return false;
        if (!top_.awaiting()) return place(Value());
        if (scalar == Scalar::Quoted) return place(Value(body));
        // Only a single-quoted scalar's escapes (`''`) are worth decoding here.
        return quote == '\'' && place(Value(unquote_single(body)));
      }
      case '|':
      case '>':
        return block_scalar_header(line);
      case '[':
        return flow_sequence(line) && line.rest_is_blank();
      case '{':
        return flow_mapping(line) && line.rest_is_blank();
      default: {
        std::string_view body;
        if (!block_plain(line, body)) return false;
        if (!top_.awaiting()) return has_json_value(body) && place(Value());
        auto value = yaml_detail::json_value_of(yaml_detail::resolve_plain(body), body);
        return value && place(std::move(*value));
      }
    }
  }

  // A plain scalar in block context, to the end of the line or a comment.
  bool block_plain(Line& line, std::string_view& body) {
    if (!plain_can_start(line)) return false;
    const char* const begin = text_.data() + line.at;
    const char* const stop = text_.data() + line.end;
    const char* last = begin;  // past the last non-space character
    const char* p = begin;
    for (; p < stop; ++p) {
      const char c = *p;
      if (!kPlainInterruptions[static_cast<unsigned char>(c)]) {
        last = p + 1;
        continue;
      }
      const char next = p + 1 < stop ? p[1] : '\n';
      if (c == ' ') {
        if (next == '#') break;
        continue;
      }
      if (c != ':' || next == ' ' || next == '\n') return false;
      last = p + 1;
    }
    line.at = static_cast<size_t>(p - text_.data());
    body = std::string_view(begin, static_cast<size_t>(last - begin));
    return true;
  }

  // A plain scalar may not start with an indicator; of those this scanner
  // takes only `-`, before a character that is not a space (`-1`, `--flag`).
  static bool plain_can_start(const Line& line) {
    const char c = line.peek();
    if (c == '-') {
      const char next = line.peek(1);
      return next != ' ' && next != '\n' && !kFlowIndicatorOrHash[static_cast<unsigned char>(next)];
    }
    return !kNotPlainStart[static_cast<unsigned char>(c)];
  }

  // A one-line quoted scalar; body is its text between the quotes, escapes and all.
  Scalar quoted(Line& line, std::string_view& body) const {
    const char quote = line.peek();
    const char* const open = text_.data() + line.at + 1;
    const char* const stop = text_.data() + line.end;
    bool escapes = false;
    const char* p = open;
    for (; p < stop; ++p) {
      if (*p == quote) {
        if (quote == '"' || p + 1 == stop || p[1] != '\'') break;
        escapes = true;
        ++p;
      } else if (quote == '"' && *p == '\\') {
        if (p + 1 == stop || !kSimpleEscapes[static_cast<unsigned char>(p[1])]) return Scalar::Invalid;
        escapes = true;
        ++p;
      }
    }
    if (p >= stop) return Scalar::Invalid;
    body = std::string_view(open, static_cast<size_t>(p - open));
    line.at = static_cast<size_t>(p + 1 - text_.data());
    return escapes ? Scalar::QuotedWithEscapes : Scalar::Quoted;
  }

  static std::string unquote_single(std::string_view body) {
    std::string text;
    for (size_t at = 0; at < body.size(); ++at) {
      text += body[at];
      if (body[at] == '\'') ++at;
    }
    return text;
  }

  // `|` or `>`, a chomping indicator, then a comment at most. The content
  // lines follow: every line more indented than the owner, and blank lines.
  bool block_scalar_header(Line& line) {
    ++line.at;
    if (line.peek() == '-' || line.peek() == '+') ++line.at;
    if (!line.rest_is_blank()) return false;
    if (top_.awaiting()) return false;
    if (!place(Value())) return false;
    block_scalar_ = true;
    block_scalar_parent_ = blocks_.back().indent;
    block_scalar_indent_ = 0;
    block_scalar_leading_spaces_ = 0;
    return true;
  }

  // Blank lines before the first content line may not be more indented than
  // it; the check waits for that line (or ends the claim at a block scalar
  // that has none).
  bool blank_in_block_scalar(const Line& line) {
    if (block_scalar_indent_ == 0) block_scalar_leading_spaces_ = std::max(block_scalar_leading_spaces_, line.column());
    return true;
  }

  bool content_in_block_scalar(const Line& line) {
    if (block_scalar_indent_ == 0) {
      block_scalar_indent_ = line.column();
      if (block_scalar_leading_spaces_ > block_scalar_indent_) return false;
    }
    return line.column() >= block_scalar_indent_;
  }

  // `next_column`: of the line that ends the block scalar, if one does. A
  // block scalar with no content followed by a line at its owner's
  // indentation is not claimed: libfyaml 0.7 reads that line as the content
  // (kubectl, as YAML says, as the owner's next entry).
  bool end_block_scalar(std::optional<size_t> next_column) {
    block_scalar_ = false;
    if (block_scalar_indent_ != 0) return true;
    return block_scalar_leading_spaces_ == 0 && next_column != block_scalar_parent_;
  }

  // From the opening bracket at line.at to past `close`: the items read by
  // `item`, separated by commas, none after the last.
  template <class Item>
  bool flow_items(Line& line, char close, Item&& item) {
    ++line.at;
    line.skip_spaces();
    for (bool first = true;; first = false) {
      if (line.peek() == close) {
        ++line.at;
        return true;
      }
      if (!first) {
        if (line.peek() != ',') return false;
        ++line.at;
        line.skip_spaces();
      }
      if (!item()) return false;
      line.skip_spaces();
    }
  }

  // `[a, "b", 'c']` on one line: scalars only.
  bool flow_sequence(Line& line) {
    if (blocks_.size() + 1 >= kMaxDepth) return false;
    if (!flow_items(line, ']', [&] { return flow_scalar(line); })) return false;
    return place(!top_.awaiting() ? Value() : Value(Array{}));
  }

  // `{a: b, c: "d"}` on one line: keys as in block mappings, scalar values.
  bool flow_mapping(Line& line) {
    if (blocks_.size() + 1 >= kMaxDepth) return false;
    const size_t first_key = keys_seen_.size();
    const bool read = flow_items(line, '}', [&] {
      auto key = read_key(line);
      if (!key) return false;
      keys_seen_.push_back(*key);
      line.skip_spaces();
      return flow_scalar(line);
    });
    if (!read || !unique_keys_from(first_key)) return false;
    return place(!top_.awaiting() ? Value() : Value(Object{}));
  }

  // A quoted scalar, or a plain one of key characters, inside a flow collection.
  bool flow_scalar(Line& line) {
    if (line.peek() == '"' || line.peek() == '\'') {
      std::string_view body;
      return quoted(line, body) != Scalar::Invalid;
    }
    const size_t begin = line.at;
    if (line.peek() == '-' && !(line.peek(1) >= '0' && line.peek(1) <= '9')) return false;
    line.skip_key_characters();
    if (line.at == begin) return false;
    return has_json_value(text_.substr(begin, line.at - begin));
  }

  // False for the plain scalars that resolve to a float with no JSON value.
  static bool has_json_value(std::string_view plain) {
    if (!yaml_detail::plain_may_not_be_string(plain)) return true;
    // Ports, replicas and the like: an int (or, past 63 bits, a float far from infinity).
    if (plain.size() <= 18 && std::all_of(plain.begin(), plain.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return true;
    }
    ResolvedScalar resolved = yaml_detail::resolve_plain(plain);
    return resolved.type != ResolvedScalar::Type::Float || std::isfinite(resolved.floating);
  }

  // The value of the innermost open block's pending slot: a member's value
  // or a sequence item. Only a top-level member's is ever kept (top_ is
  // given no other key).
  bool place(Value value) {
    pending_ = false;
    top_.value(std::move(value));
    return true;
  }

  // A pending slot that turns out empty. libfyaml 0.7 fails on an empty
  // entry of an indentless sequence (`key:` then `-` alone), which YAML allows.
  bool fill_pending_with_null() {
    if (!blocks_.back().is_mapping && blocks_.back().indentless) return false;
    return place(Value());
  }

  bool close_block() {
    const Block block = blocks_.back();
    blocks_.pop_back();
    if (block.is_mapping && !unique_keys_from(block.first_key)) return false;
    if (blocks_.empty()) {
      root_done_ = true;
      outlines_.back().top = top_.top();
    }
    return true;
  }

  bool unique_keys_from(size_t first) {
    auto begin = keys_seen_.begin() + static_cast<std::ptrdiff_t>(first);
    bool unique = true;
    if (keys_seen_.end() - begin <= 8) {
      // Small mappings, the common case: comparing every pair costs less than sorting.
      for (auto a = begin; a != keys_seen_.end() && unique; ++a) {
        for (auto b = a + 1; b != keys_seen_.end(); ++b) {
          if (a->size() == b->size() && *a == *b) {
            unique = false;
            break;
          }
        }
      }
    } else {
      std::sort(begin, keys_seen_.end());
      unique = std::adjacent_find(begin, keys_seen_.end()) == keys_seen_.end();
    }
    keys_seen_.erase(begin, keys_seen_.end());
    return unique;
  }

  std::string_view text_;
  std::vector<YamlDocumentOutline> outlines_;
  bool document_open_ = false;
  bool root_done_ = false;
  std::vector<Block> blocks_;
  std::vector<std::string_view> keys_seen_;  // of every open mapping, innermost last
  bool pending_ = false;  // the innermost block's last entry has its value on later lines
  bool block_scalar_ = false;
  size_t block_scalar_parent_ = 0;
  size_t block_scalar_indent_ = 0;  // of its first content line; 0 before that
  size_t block_scalar_leading_spaces_ = 0;  // the most spaces on a blank line before that
  yaml_detail::TopLevelKeys top_;
};

}  // namespace

std::optional<std::vector<YamlDocumentOutline>> outline_block_yaml(std::string_view text,
                                                                   std::span<const std::string_view> top_level_keys) {
  return BlockOutline(top_level_keys).scan(text);
}

}  // namespace sindri
