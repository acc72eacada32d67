#include "value/json.hpp"

#include <array>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <vector>

#include "value/number_format.hpp"
#include "value/text_position.hpp"
#include "value/utf8.hpp"

namespace sindri {

std::string TextError::describe() const {
  return "line " + std::to_string(line) + " column " + std::to_string(column) + ": " + message;
}

namespace {

// For each byte, how JSON escapes it inside a string: 0 when it stands for
// itself, else the letter after the backslash ('u' for \u00XX). The reader
// stops at the same bytes, since a quote, a backslash or a control character
// is never part of a plain run.
constexpr std::array<char, 256> kStringEscapes = [] {
  std::array<char, 256> table{};
  for (int c = 0; c < 0x20; ++c) table[c] = 'u';
  table['"'] = '"';
  table['\\'] = '\\';
  table['\b'] = 'b';
  table['\f'] = 'f';
  table['\n'] = 'n';
  table['\r'] = 'r';
  table['\t'] = 't';
  return table;
}();

char string_escape(char c) { return kStringEscapes[static_cast<unsigned char>(c)]; }

// How many bytes from `from` on need no escape, eight at a time: a byte
// needs one when it is below 0x20, a quote or a backslash. For each test the
// lowest flagged byte of a word is exact (borrows only run upwards), which is
// all the first match needs.
size_t plain_run(const char* from, const char* end) {
  static_assert(std::endian::native == std::endian::little, "the lowest flagged byte is found with ctz");
  constexpr uint64_t kOnes = 0x0101010101010101;
  constexpr uint64_t kHighs = 0x8080808080808080;
  const char* at = from;
  while (end - at >= 8) {
    uint64_t word;
    std::memcpy(&word, at, 8);
    const uint64_t quote = word ^ (kOnes * '"');
    const uint64_t backslash = word ^ (kOnes * '\\');
    const uint64_t flagged = ((word - kOnes * 0x20) | (quote - kOnes) | (backslash - kOnes)) & ~word & kHighs;
    if (flagged != 0) return static_cast<size_t>(at - from) + static_cast<size_t>(__builtin_ctzll(flagged) / 8);
    at += 8;
  }
  while (at < end && string_escape(*at) == 0) ++at;
  return static_cast<size_t>(at - from);
}

// The character at text[at] for a message: itself in backquotes when it is
// printable, else what it is, so that a message never carries a byte that
// would make it invalid UTF-8 or break a terminal.
std::string describe_character(std::string_view text, size_t at) {
  const auto byte = static_cast<unsigned char>(text[at]);
  if (byte >= 0x20 && byte < 0x7f) return std::string("character `") + text[at] + "`";
  if (byte < 0x80) return "control character " + ascii_code_point(text[at]);
  const size_t length = utf8_sequence_length(text, at);
  if (length == 0) return "byte that is not UTF-8 (" + invalid_utf8_message(text[at]) + ")";
  return "character `" + std::string(text.substr(at, length)) + "`";
}

class JsonReader {
 public:
  JsonReader(std::string_view text, const JsonOptions& options)
      : text_(text), max_depth_(options.max_depth), reject_duplicate_keys_(options.reject_duplicate_keys) {}

  Result<Value, TextError> read_document() {
    skip_space();
    Value v;
    if (!read_value(v, 0)) return error_;
    skip_space();
    if (pos_ != text_.size()) {
      fail("trailing characters after the JSON value");
      return error_;
    }
    return v;
  }

 private:
  bool fail(std::string message) {
    LineColumn at = line_column(text_, pos_);
    error_ = TextError{std::move(message), at.line, at.column};
    return false;
  }

  void skip_space() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
      ++pos_;
    }
  }

  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return text_[pos_]; }

  bool expect_literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return fail("expected a JSON value");
    pos_ += word.size();
    return true;
  }

  bool read_value(Value& out, size_t depth) {
    if (at_end()) return fail("unexpected end of input, expected a JSON value");
    switch (peek()) {
      case '{':
        return read_object(out, depth);
      case '[':
        return read_array(out, depth);
      case '"': {
        std::string s;
        if (!read_string(s)) return false;
        out = Value(s);
        return true;
      }
      case 't':
        if (!expect_literal("true")) return false;
        out = Value(true);
        return true;
      case 'f':
        if (!expect_literal("false")) return false;
        out = Value(false);
        return true;
      case 'n':
        if (!expect_literal("null")) return false;
        out = Value();
        return true;
      default:
        if (peek() == '-' || (peek() >= '0' && peek() <= '9')) return read_number(out);
        return fail("unexpected " + describe_character(text_, pos_) + ", expected a JSON value");
    }
  }

  bool read_number(Value& out) {
    size_t start = pos_;
    bool is_float = false;
    if (peek() == '-') ++pos_;
    if (at_end() || !(peek() >= '0' && peek() <= '9')) return fail("invalid number: expected a digit");
    if (peek() == '0') {
      ++pos_;
    } else {
      while (!at_end() && peek() >= '0' && peek() <= '9') ++pos_;
    }
    if (!at_end() && peek() == '.') {
      is_float = true;
      ++pos_;
      if (at_end() || !(peek() >= '0' && peek() <= '9')) return fail("invalid number: expected a digit after `.`");
      while (!at_end() && peek() >= '0' && peek() <= '9') ++pos_;
    }
    if (!at_end() && (peek() == 'e' || peek() == 'E')) {
      is_float = true;
      ++pos_;
      if (!at_end() && (peek() == '+' || peek() == '-')) ++pos_;
      if (at_end() || !(peek() >= '0' && peek() <= '9')) return fail("invalid number: expected a digit in the exponent");
      while (!at_end() && peek() >= '0' && peek() <= '9') ++pos_;
    }
    const char* first = text_.data() + start;
    const char* last = text_.data() + pos_;
    if (!is_float) {
      int64_t i = 0;
      auto res = std::from_chars(first, last, i);
      if (res.ec == std::errc() && res.ptr == last) {
        out = Value(static_cast<long>(i));
        return true;
      }
    }
    double d = 0;
    auto res = std::from_chars(first, last, d);
    if (res.ec == std::errc::result_out_of_range) {
      pos_ = start;
      return fail("number out of range");
    }
    out = Value(d);
    return true;
  }

  static void append_utf8(std::string& s, uint32_t cp) {
    if (cp < 0x80) {
      s += static_cast<char>(cp);
    } else if (cp < 0x800) {
      s += static_cast<char>(0xC0 | (cp >> 6));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      s += static_cast<char>(0xE0 | (cp >> 12));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      s += static_cast<char>(0xF0 | (cp >> 18));
      s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  bool read_hex4(uint32_t& out) {
    if (pos_ + 4 > text_.size()) return fail("invalid \\u escape: expected 4 hex digits");
    out = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_++];
      out <<= 4;
      if (c >= '0' && c <= '9') out |= c - '0';
      else if (c >= 'a' && c <= 'f') out |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') out |= c - 'A' + 10;
      else return --pos_, fail("invalid \\u escape: expected 4 hex digits");
    }
    return true;
  }

  bool read_string(std::string& s) {
    ++pos_;  // opening quote
    while (true) {
      const size_t run = pos_ + plain_run(text_.data() + pos_, text_.data() + text_.size());
      // JSON is UTF-8 (RFC 8259): a stored string must read back as JSON.
      if (const size_t bad = first_invalid_utf8(text_, pos_, run); bad != run) {
        pos_ = bad;
        return fail(invalid_utf8_message(text_[bad]));
      }
      s.append(text_.data() + pos_, run - pos_);
      pos_ = run;
      if (at_end()) return fail("unterminated string");
      char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c != '\\') return fail("control character in string: escape it");
      ++pos_;
      if (at_end()) return fail("unterminated string");
      char e = text_[pos_++];
      switch (e) {
        case '"': s += '"'; break;
        case '\\': s += '\\'; break;
        case '/': s += '/'; break;
        case 'b': s += '\b'; break;
        case 'f': s += '\f'; break;
        case 'n': s += '\n'; break;
        case 'r': s += '\r'; break;
        case 't': s += '\t'; break;
        case 'u': {
          uint32_t cp = 0;
          if (!read_hex4(cp)) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (text_.substr(pos_, 2) != "\\u") return fail("unpaired surrogate in \\u escape");
            pos_ += 2;
            uint32_t low = 0;
            if (!read_hex4(low)) return false;
            if (low < 0xDC00 || low > 0xDFFF) return fail("invalid low surrogate in \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return fail("unpaired surrogate in \\u escape");
          }
          append_utf8(s, cp);
          break;
        }
        default:
          --pos_;
          return fail("invalid escape: a backslash before the " + describe_character(text_, pos_));
      }
    }
  }

  bool read_array(Value& out, size_t depth) {
    if (depth >= max_depth_) return fail("nesting deeper than " + std::to_string(max_depth_) + " levels");
    ++pos_;
    Array items;
    skip_space();
    if (!at_end() && peek() == ']') {
      ++pos_;
      out = Value(std::move(items));
      return true;
    }
    while (true) {
      skip_space();
      Value item;
      if (!read_value(item, depth + 1)) return false;
      items.push_back(std::move(item));
      skip_space();
      if (at_end()) return fail("unexpected end of input, expected `,` or `]`");
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == ']') {
        ++pos_;
        out = Value(std::move(items));
        return true;
      }
      return fail("expected `,` or `]`");
    }
  }

  bool read_object(Value& out, size_t depth) {
    if (depth >= max_depth_) return fail("nesting deeper than " + std::to_string(max_depth_) + " levels");
    ++pos_;
    Object members;
    const size_t first_key = key_offsets_.size();
    skip_space();
    if (!at_end() && peek() == '}') {
      ++pos_;
      out = Value(std::move(members));
      return true;
    }
    while (true) {
      skip_space();
      if (at_end() || peek() != '"') return fail("expected a string key");
      if (reject_duplicate_keys_) key_offsets_.push_back(pos_);
      std::string key;
      if (!read_string(key)) return false;
      skip_space();
      if (at_end() || peek() != ':') return fail("expected `:` after the key");
      ++pos_;
      skip_space();
      Value v;
      if (!read_value(v, depth + 1)) return false;
      members.push_back(Member{Value(key), std::move(v)});
      skip_space();
      if (at_end()) return fail("unexpected end of input, expected `,` or `}`");
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == '}') {
        ++pos_;
        const size_t count = members.size();
        out = Value(std::move(members));
        if (reject_duplicate_keys_) {
          // Value(Object) keeps one of equal keys: fewer members means a repeat.
          if (out.get_object().size() != count) return fail_on_duplicate_key(first_key, key_offsets_.size());
          key_offsets_.resize(first_key);
        }
        return true;
      }
      return fail("expected `,` or `}`");
    }
  }

  // Called when Value(Object) dropped a repeated key of the object whose
  // keys start at key_offsets_[first, end): reads those keys again and
  // fails at the first repeat, naming where the key was first.
  bool fail_on_duplicate_key(size_t first, size_t end) {
    std::vector<std::pair<std::string, size_t>> seen;  // key, offset; the error path only
    for (size_t i = first; i < end; ++i) {
      pos_ = key_offsets_[i];
      std::string key;
      read_string(key);
      for (const auto& [earlier, offset] : seen) {
        if (earlier != key) continue;
        const LineColumn at = line_column(text_, offset);
        pos_ = key_offsets_[i];
        return fail("duplicate key " + to_json(Value(key)) + " (first at line " + std::to_string(at.line) +
                    " column " + std::to_string(at.column) + ")");
      }
      seen.emplace_back(std::move(key), key_offsets_[i]);
    }
    return fail("duplicate key");
  }

  std::string_view text_;
  size_t max_depth_;
  bool reject_duplicate_keys_;
  // Where each key of the objects being read starts, a stack shared by the
  // nested ones (only when duplicates are refused).
  std::vector<size_t> key_offsets_;
  size_t pos_ = 0;
  TextError error_;
};

// Writes JSON into `out` unless that would make it longer than `max_size`:
// then it stops, leaving what fitted, and returns false.
class JsonWriter {
 public:
  JsonWriter(std::string& out, size_t max_size) : out_(out), max_size_(max_size) {}

  bool compact(const Value& value) {
    if (value.is_array()) {
      if (!put('[')) return false;
      bool first = true;
      for (const Value& item : value.get_array()) {
        if (!first && !put(',')) return false;
        first = false;
        if (!compact(item)) return false;
      }
      return put(']');
    }
    if (value.is_object()) {
      if (!put('{')) return false;
      bool first = true;
      for (const Member& m : value.get_object()) {
        if (!first && !put(',')) return false;
        first = false;
        if (!string(m.key.get_string()) || !put(':') || !compact(m.value)) return false;
      }
      return put('}');
    }
    return scalar(value);
  }

  bool pretty(const Value& value, int depth) {
    if (value.is_array()) {
      if (value.size() == 0) return put("[]");
      if (!put("[\n")) return false;
      bool first = true;
      for (const Value& item : value.get_array()) {
        if (!first && !put(",\n")) return false;
        first = false;
        if (!indent(depth + 1) || !pretty(item, depth + 1)) return false;
      }
      return put('\n') && indent(depth) && put(']');
    }
    if (value.is_object()) {
      if (value.size() == 0) return put("{}");
      if (!put("{\n")) return false;
      bool first = true;
      for (const Member& m : value.get_object()) {
        if (!first && !put(",\n")) return false;
        first = false;
        if (!indent(depth + 1) || !string(m.key.get_string()) || !put(": ") || !pretty(m.value, depth + 1)) {
          return false;
        }
      }
      return put('\n') && indent(depth) && put('}');
    }
    return scalar(value);
  }

  bool string(std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    if (!put('"')) return false;
    const char* at = s.data();
    const char* const end = at + s.size();
    while (true) {
      const size_t run = plain_run(at, end);
      if (!put_as_utf8(std::string_view(at, run))) return false;
      at += run;
      if (at == end) break;
      const char escape = string_escape(*at);
      const char short_escape[2] = {'\\', escape};
      if (escape != 'u') {
        if (!put(std::string_view(short_escape, 2))) return false;
      } else {
        const auto byte = static_cast<unsigned char>(*at);
        const char long_escape[6] = {'\\', 'u', '0', '0', kHex[byte >> 4], kHex[byte & 0xF]};
        if (!put(std::string_view(long_escape, 6))) return false;
      }
      ++at;
    }
    return put('"');
  }

 private:
  // Whether `bytes` more fit (sizes are far below where the sum overflows).
  bool fits(size_t bytes) const { return out_.size() + bytes <= max_size_; }

  [[gnu::always_inline]] bool put(char c) {
    if (!fits(1)) return false;
    out_.push_back(c);
    return true;
  }
  [[gnu::always_inline]] bool put(std::string_view text) {
    if (!fits(text.size())) return false;
    out_.append(text);
    return true;
  }

  // JSON is UTF-8, and text that is not (an error message quoting a client's
  // bytes) must still be written as JSON: each byte that starts no valid
  // character becomes U+FFFD, as a decoder would show it.
  bool put_as_utf8(std::string_view text) {
    size_t from = 0;
    while (true) {
      const size_t bad = first_invalid_utf8(text, from, text.size());
      if (!put(text.substr(from, bad - from))) return false;
      if (bad == text.size()) return true;
      if (!put("\xEF\xBF\xBD")) return false;
      from = bad + 1;
    }
  }

  bool indent(int depth) {
    const size_t spaces = static_cast<size_t>(depth) * 2;
    if (!fits(spaces)) return false;
    out_.append(spaces, ' ');
    return true;
  }

  bool scalar(const Value& v) {
    switch (v.kind()) {
      case Value::Kind::Null:
        return put("null");
      case Value::Kind::Bool:
        return put(v.get_bool() ? "true" : "false");
      case Value::Kind::Int:
      case Value::Kind::Float: {
        const size_t before = out_.size();
        if (v.is_int()) {
          append_int(out_, v.get_int());
        } else {
          append_float_json(out_, v.get_float());
        }
        if (out_.size() <= max_size_) return true;
        out_.resize(before);
        return false;
      }
      case Value::Kind::String:
        return string(v.get_string());
      default:
        return true;
    }
  }

  std::string& out_;
  const size_t max_size_;
};

}  // namespace

Result<Value, TextError> parse_json(std::string_view text, const JsonOptions& options) {
  return JsonReader(text, options).read_document();
}

void append_json_string(std::string& out, std::string_view s) { JsonWriter(out, SIZE_MAX).string(s); }

void append_json(std::string& out, const Value& value) { JsonWriter(out, SIZE_MAX).compact(value); }

void append_json_pretty(std::string& out, const Value& value, int depth) {
  JsonWriter(out, SIZE_MAX).pretty(value, depth);
}

bool append_json_within(std::string& out, const Value& value, size_t max_size) {
  return JsonWriter(out, max_size).compact(value);
}

bool append_json_pretty_within(std::string& out, const Value& value, size_t max_size) {
  return JsonWriter(out, max_size).pretty(value, 0);
}

std::string to_json(const Value& value) {
  std::string out;
  append_json(out, value);
  return out;
}

std::string to_json_pretty(const Value& value) {
  std::string out;
  append_json_pretty(out, value);
  return out;
}

}  // namespace sindri
