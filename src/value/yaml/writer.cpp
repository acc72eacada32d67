// Values to YAML text the way `kubectl -o yaml` writes it (go-yaml v2's
// emitter: block style, sequences in mappings not indented, scalar styles
// chosen by its analysis of the text, plain lines folded after column 80).

#include <string>

#include "value/number_format.hpp"
#include "value/yaml/yaml.hpp"
#include "value/yaml/scalar.hpp"

namespace sindri {

namespace {

constexpr size_t kBestWidth = 80;
constexpr size_t kMaxSimpleKeyLength = 128;

size_t utf8_width(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  if ((lead & 0xF8) == 0xF0) return 4;
  return 1;  // not UTF-8; kept as one byte
}

unsigned char byte_at(std::string_view s, size_t i) { return i < s.size() ? static_cast<unsigned char>(s[i]) : 0; }

// go-yaml's is_printable: what may appear unescaped in a YAML scalar.
bool is_printable(std::string_view s, size_t i) {
  unsigned char b = byte_at(s, i), next = byte_at(s, i + 1), after = byte_at(s, i + 2);
  return b == 0x0A || (b >= 0x20 && b <= 0x7E) || (b == 0xC2 && next >= 0xA0) || (b > 0xC2 && b < 0xED) ||
         (b == 0xED && next < 0xA0) || b == 0xEE ||
         (b == 0xEF && !(next == 0xBB && after == 0xBF) && !(next == 0xBF && (after == 0xBE || after == 0xBF)));
}

bool is_bom(std::string_view s, size_t i) {
  return byte_at(s, i) == 0xEF && byte_at(s, i + 1) == 0xBB && byte_at(s, i + 2) == 0xBF;
}

// NEL, LS and PS: line breaks to YAML 1.1, plain characters to YAML 1.2.
bool is_unicode_break(std::string_view s, size_t i) {
  unsigned char b = byte_at(s, i), next = byte_at(s, i + 1), after = byte_at(s, i + 2);
  return (b == 0xC2 && next == 0x85) || (b == 0xE2 && next == 0x80 && (after == 0xA8 || after == 0xA9));
}

bool is_break(std::string_view s, size_t i) {
  unsigned char b = byte_at(s, i);
  return b == '\n' || b == '\r' || is_unicode_break(s, i);
}

bool is_blank(std::string_view s, size_t i) { return byte_at(s, i) == ' ' || byte_at(s, i) == '\t'; }

// go-yaml's yaml_emitter_analyze_scalar, reduced to what block style needs.
struct ScalarAnalysis {
  bool multiline = false;
  bool plain_allowed = true;
  bool single_quoted_allowed = true;
  bool block_allowed = true;
  bool has_unicode_break = false;
};

ScalarAnalysis analyze(std::string_view value) {
  ScalarAnalysis a;
  if (value.empty()) {
    a.block_allowed = false;
    return a;
  }
  bool indicators = value.substr(0, 3) == "---" || value.substr(0, 3) == "...";
  bool special = false, line_breaks = false, leading_space = false, leading_break = false;
  bool trailing_space = false, trailing_break = false, break_space = false, space_break = false;
  bool previous_space = false, previous_break = false, preceded_by_whitespace = true;
  for (size_t i = 0, w = 0; i < value.size(); i += w) {
    w = utf8_width(byte_at(value, i));
    bool followed_by_whitespace = i + w >= value.size() || is_blank(value, i + w);
    char c = value[i];
    if (i == 0) {
      switch (c) {
        case '#': case ',': case '[': case ']': case '{': case '}': case '&': case '*':
        case '!': case '|': case '>': case '\'': case '"': case '%': case '@': case '`':
          indicators = true;
          break;
        case '?': case ':': case '-':
          if (followed_by_whitespace) indicators = true;
          break;
        default:
          break;
      }
    } else if ((c == ':' && followed_by_whitespace) || (c == '#' && preceded_by_whitespace)) {
      indicators = true;
    }
    if (!is_printable(value, i)) special = true;
    if (is_unicode_break(value, i)) a.has_unicode_break = true;
    if (c == ' ') {
      if (i == 0) leading_space = true;
      if (i + w == value.size()) trailing_space = true;
      if (previous_break) break_space = true;
      previous_space = true;
      previous_break = false;
    } else if (is_break(value, i)) {
      line_breaks = true;
      if (i == 0) leading_break = true;
      if (i + w == value.size()) trailing_break = true;
      if (previous_space) space_break = true;
      previous_space = false;
      previous_break = true;
    } else {
      previous_space = false;
      previous_break = false;
    }
    preceded_by_whitespace = is_blank(value, i) || is_break(value, i) || c == '\0';
  }
  a.multiline = line_breaks;
  if (leading_space || leading_break || trailing_space || trailing_break || line_breaks || indicators) {
    a.plain_allowed = false;
  }
  if (trailing_space) a.block_allowed = false;
  if (break_space) a.plain_allowed = a.single_quoted_allowed = false;
  if (space_break || special) a.plain_allowed = a.single_quoted_allowed = a.block_allowed = false;
  return a;
}

enum class Style { Plain, SingleQuoted, DoubleQuoted, Literal };

// go-yaml v2's choice: a string that would read back as something else is
// double-quoted, one with a newline is a literal block, anything else plain;
// then the analysis demotes plain to single-quoted and either to double.
Style choose_style(std::string_view s, bool simple_key) {
  Style style;
  if (s.find('\n') != std::string_view::npos) {
    style = Style::Literal;
  } else {
    auto type = yaml_detail::resolve_plain(s).type;
    bool reads_back_as_string = type == yaml_detail::ResolvedScalar::Type::String &&
                                !yaml_detail::looks_like_base60_float(s);
    // kubectl would write a "<<" key plain, which reads back as a merge key.
    if (simple_key && s == "<<") reads_back_as_string = false;
    style = reads_back_as_string ? Style::Plain : Style::DoubleQuoted;
  }
  ScalarAnalysis a = analyze(s);
  if (style == Style::Plain && !a.plain_allowed) style = Style::SingleQuoted;
  // go-yaml would fold NEL, LS and PS as line breaks, which YAML 1.2 readers
  // do not; escapes in double quotes read back the same everywhere.
  if (style == Style::SingleQuoted && (!a.single_quoted_allowed || a.multiline)) style = Style::DoubleQuoted;
  if (style == Style::Literal && (!a.block_allowed || simple_key || a.has_unicode_break)) {
    style = Style::DoubleQuoted;
  }
  return style;
}

bool is_simple_key(std::string_view key) {
  return key.size() <= kMaxSimpleKeyLength && key.find('\n') == std::string_view::npos;
}

class Writer {
 public:
  explicit Writer(std::string& out) : out_(out) {}

  void document(const Value& value) {
    if (value.is_object() && value.size() > 0) {
      mapping(value, 0, false);
    } else if (value.is_array() && value.size() > 0) {
      sequence(value, 0, false);
    } else {
      scalar(value, 2);
      end_line();
    }
  }

 private:
  void indent(size_t width) { out_.append(width, ' '); }

  void end_line() {
    if (out_.empty() || out_.back() != '\n') out_.push_back('\n');
  }

  static bool is_block_collection(const Value& v) { return (v.is_object() || v.is_array()) && v.size() > 0; }

  void mapping(const Value& value, size_t width, bool continues_line) {
    for (const Member& member : value.get_object()) {
      if (!continues_line) indent(width);
      continues_line = false;
      std::string_view key = member.key.get_string();
      if (is_simple_key(key)) {
        string(key, width + 2, true);
        out_.push_back(':');
      } else {
        out_ += "? ";
        string(key, width + 2, false);
        end_line();
        indent(width);
        out_.push_back(':');
      }
      member_value(member.value, width);
    }
  }

  void member_value(const Value& value, size_t width) {
    if (value.is_object() && value.size() > 0) {
      out_.push_back('\n');
      mapping(value, width + 2, false);
    } else if (value.is_array() && value.size() > 0) {
      out_.push_back('\n');
      sequence(value, width, false);  // kubectl does not indent these
    } else {
      out_.push_back(' ');
      scalar(value, width + 2);
      end_line();
    }
  }

  void sequence(const Value& value, size_t width, bool continues_line) {
    for (const Value& item : value.get_array()) {
      if (!continues_line) indent(width);
      continues_line = false;
      out_ += "- ";
      if (item.is_object() && item.size() > 0) {
        mapping(item, width + 2, true);
      } else if (item.is_array() && item.size() > 0) {
        sequence(item, width + 2, true);
      } else {
        scalar(item, width + 2);
        end_line();
      }
    }
  }

  // A scalar or an empty collection; `width` is where continuation lines
  // and block scalar content start.
  void scalar(const Value& value, size_t width) {
    switch (value.kind()) {
      case Value::Kind::Null:
        out_ += "null";
        break;
      case Value::Kind::Bool:
        out_ += value.get_bool() ? "true" : "false";
        break;
      case Value::Kind::Int:
        append_int(out_, value.get_int());
        break;
      case Value::Kind::Float:
        yaml_detail::append_go_float(out_, value.get_float());
        break;
      case Value::Kind::String:
        string(value.get_string(), width, false);
        break;
      case Value::Kind::Array:
        out_ += "[]";
        break;
      case Value::Kind::Object:
        out_ += "{}";
        break;
    }
  }

  size_t current_column() const {
    size_t line_start = out_.rfind('\n');
    line_start = line_start == std::string::npos ? 0 : line_start + 1;
    size_t column = 0;
    for (size_t i = line_start; i < out_.size(); ++i) {
      if ((static_cast<unsigned char>(out_[i]) & 0xC0) != 0x80) ++column;
    }
    return column;
  }

  void string(std::string_view s, size_t width, bool simple_key) {
    switch (choose_style(s, simple_key)) {
      case Style::Plain:
        return folded(s, width, !simple_key, '\0');
      case Style::SingleQuoted:
        return folded(s, width, !simple_key, '\'');
      case Style::DoubleQuoted:
        return double_quoted(s, width, !simple_key);
      case Style::Literal:
        return literal(s, width);
    }
  }

  void break_line(size_t width, size_t& column) {
    out_.push_back('\n');
    indent(width);
    column = width;
  }

  // Plain (quote '\0') or single-quoted text; a space past column 80 that
  // is not next to another space becomes a line break, as go-yaml folds.
  void folded(std::string_view s, size_t width, bool allow_breaks, char quote) {
    size_t column = current_column();
    if (quote) {
      out_.push_back(quote);
      ++column;
    }
    bool spaces = false;
    for (size_t i = 0, w = 0; i < s.size(); i += w) {
      w = utf8_width(byte_at(s, i));
      if (s[i] == ' ') {
        bool inside = !quote || (i != 0 && i + 1 != s.size());
        if (allow_breaks && !spaces && column > kBestWidth && inside && byte_at(s, i + 1) != ' ') {
          break_line(width, column);
        } else {
          out_.push_back(' ');
          ++column;
        }
        spaces = true;
        continue;
      }
      if (quote && s[i] == '\'') out_.push_back('\'');
      out_.append(s.substr(i, w));
      ++column;
      spaces = false;
    }
    if (quote) out_.push_back(quote);
  }

  void double_quoted(std::string_view s, size_t width, bool allow_breaks) {
    size_t column = current_column();
    out_.push_back('"');
    ++column;
    bool spaces = false;
    for (size_t i = 0, w = 0; i < s.size(); i += w) {
      w = utf8_width(byte_at(s, i));
      if (!is_printable(s, i) || is_bom(s, i) || is_break(s, i) || s[i] == '"' || s[i] == '\\') {
        size_t before = out_.size();
        escape(s.substr(i, w));
        column += out_.size() - before;
        spaces = false;
      } else if (s[i] == ' ') {
        if (allow_breaks && !spaces && column > kBestWidth && i > 0 && i + 1 < s.size()) {
          break_line(width, column);
          if (byte_at(s, i + 1) == ' ') {
            out_.push_back('\\');
            ++column;
          }
        } else {
          out_.push_back(' ');
          ++column;
        }
        spaces = true;
      } else {
        out_.append(s.substr(i, w));
        ++column;
        spaces = false;
      }
    }
    out_.push_back('"');
  }

  void escape(std::string_view character) {
    uint32_t code = static_cast<unsigned char>(character[0]);
    if (character.size() > 1) {
      static constexpr unsigned char kLeadMask[] = {0, 0, 0x1F, 0x0F, 0x07};
      code &= kLeadMask[character.size()];
      for (size_t k = 1; k < character.size(); ++k) code = (code << 6) | (static_cast<unsigned char>(character[k]) & 0x3F);
    }
    out_.push_back('\\');
    switch (code) {
      case 0x00: out_.push_back('0'); return;
      case 0x07: out_.push_back('a'); return;
      case 0x08: out_.push_back('b'); return;
      case 0x09: out_.push_back('t'); return;
      case 0x0A: out_.push_back('n'); return;
      case 0x0B: out_.push_back('v'); return;
      case 0x0C: out_.push_back('f'); return;
      case 0x0D: out_.push_back('r'); return;
      case 0x1B: out_.push_back('e'); return;
      case 0x22: out_.push_back('"'); return;
      case 0x5C: out_.push_back('\\'); return;
      case 0x85: out_.push_back('N'); return;
      case 0xA0: out_.push_back('_'); return;
      case 0x2028: out_.push_back('L'); return;
      case 0x2029: out_.push_back('P'); return;
      default: break;
    }
    int digits = code <= 0xFF ? 2 : code <= 0xFFFF ? 4 : 8;
    out_.push_back(digits == 2 ? 'x' : digits == 4 ? 'u' : 'U');
    for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) out_.push_back("0123456789ABCDEF"[(code >> shift) & 0xF]);
  }

  // `|` with go-yaml's hints: an indentation indicator when the text starts
  // with a space or break, `-` without a final break, `+` with several.
  void literal(std::string_view s, size_t width) {
    out_.push_back('|');
    if (s[0] == ' ' || s[0] == '\n') out_.push_back('2');
    if (s.back() != '\n') {
      out_.push_back('-');
    } else if (s.size() == 1 || s[s.size() - 2] == '\n') {
      out_.push_back('+');
    }
    out_.push_back('\n');
    bool at_line_start = true;
    for (char c : s) {
      if (c == '\n') {
        out_.push_back('\n');
        at_line_start = true;
        continue;
      }
      if (at_line_start) indent(width);
      at_line_start = false;
      out_.push_back(c);
    }
  }

  std::string& out_;
};

}  // namespace

void append_yaml(std::string& out, const Value& value) { Writer(out).document(value); }

std::string to_yaml(const Value& value) {
  std::string out;
  append_yaml(out, value);
  return out;
}

std::string to_yaml_stream(std::span<const Value> documents) {
  std::string out;
  for (size_t i = 0; i < documents.size(); ++i) {
    if (i > 0) out += "---\n";
    append_yaml(out, documents[i]);
  }
  return out;
}

}  // namespace sindri
