#include "tera/lexer.hpp"

#include <algorithm>
#include <array>

namespace sindri::tera {

namespace {

constexpr size_t kFirstTokens = 4096;

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_space(char c) { return kCharClass[static_cast<unsigned char>(c)] & kSpace; }

class Lexer {
 public:
  explicit Lexer(std::string_view src) : src_(src) {}

  LexResult run() {
    // Sized for a typical template, at most kFirstTokens: the vector is
    // zero-filled, and a huge mostly-text template must not touch eight
    // bytes of tokens per byte of source.
    result_.tokens.resize(std::min<size_t>(src_.size() / 4 + 16, kFirstTokens));
    while (pos_ < src_.size()) {
      if (!lex_text()) break;
      if (pos_ >= src_.size()) break;
      if (!lex_block()) break;
    }
    if (result_.ok) push(Tok::End, pos_, 0);
    result_.tokens.resize(count_);
    return std::move(result_);
  }

 private:
  bool starts(std::string_view s, size_t at) const { return src_.substr(at, s.size()) == s; }

  // The token vector is sized ahead and trimmed at the end, so that a push
  // is a store rather than a call.
  Token& push(Tok kind, size_t offset, size_t length) {
    if (count_ == result_.tokens.size()) [[unlikely]] result_.tokens.resize(count_ * 2);
    Token& t = result_.tokens[count_++];
    t = Token{kind, false, false, false, false, 0, false, static_cast<uint32_t>(offset), static_cast<uint32_t>(length),
              std::string_view(src_.data() + offset, length)};
    return t;
  }

  bool fail(std::string message, size_t offset) {
    result_.ok = false;
    result_.error = LexError{std::move(message), static_cast<uint32_t>(offset)};
    return false;
  }

  // Text up to the next `{{`, `{%` or `{#`.
  bool lex_text() {
    size_t start = pos_;
    while (pos_ < src_.size()) {
      size_t brace = src_.find('{', pos_);
      if (brace == std::string_view::npos || brace + 1 >= src_.size()) {
        pos_ = src_.size();
        break;
      }
      char next = src_[brace + 1];
      if (next == '{' || next == '%' || next == '#') {
        pos_ = brace;
        break;
      }
      pos_ = brace + 1;
    }
    if (pos_ > start) push(Tok::Text, start, pos_ - start);
    return true;
  }

  bool lex_block() {
    size_t start = pos_;
    char kind = src_[pos_ + 1];
    if (kind == '#') return lex_comment();
    bool trim = pos_ + 2 < src_.size() && src_[pos_ + 2] == '-';
    Token& open = push(kind == '{' ? Tok::VarOpen : Tok::TagOpen, start, trim ? 3 : 2);
    open.trim_left = trim;
    pos_ += trim ? 3 : 2;
    size_t first_token = count_;
    while (true) {
      while (pos_ < src_.size() && is_space(src_[pos_])) ++pos_;
      if (pos_ >= src_.size()) {
        return fail(kind == '{' ? "unclosed `{{`: expected `}}`" : "unclosed `{%`: expected `%}`", start);
      }
      const char c = src_[pos_];
      if ((c == '-' || c == '}' || c == '%') && lex_close()) break;
      if (!lex_token()) return false;
    }
    // `{% raw %}`: take everything up to `{% endraw %}` verbatim.
    if (kind == '%' && count_ == first_token + 2 &&
        result_.tokens[first_token].kind == Tok::Path && result_.tokens[first_token].text == "raw") {
      return lex_raw(first_token - 1);
    }
    return true;
  }

  bool lex_close() {
    bool trim = src_[pos_] == '-';
    size_t at = pos_ + (trim ? 1 : 0);
    // Checked by hand: this runs before every token of every tag.
    if (at + 1 < src_.size() && (src_[at] == '}' || src_[at] == '%') && src_[at + 1] == '}') {
      Token& t = push(Tok::Close, pos_, (trim ? 1 : 0) + 2);
      t.trim_right = trim;
      t.close = src_[at];
      pos_ = at + 2;
      return true;
    }
    return false;
  }

  bool lex_comment() {
    size_t start = pos_;
    bool trim_left = pos_ + 2 < src_.size() && src_[pos_ + 2] == '-';
    const size_t body = pos_ + (trim_left ? 3 : 2);
    const size_t close = src_.find("#}", body);
    if (close == std::string_view::npos) return fail("unclosed comment: expected `#}`", start);
    Token& t = push(Tok::Comment, start, close + 2 - start);
    t.trim_left = trim_left;
    t.trim_right = close > body && src_[close - 1] == '-';
    pos_ = close + 2;
    return true;
  }

  // Finds `{%[-] endraw [-]%}` after the raw tag and replaces the tag's
  // tokens with one Raw token.
  bool lex_raw(size_t open_index) {
    Token open = result_.tokens[open_index];
    Token close = result_.tokens[open_index + 2];
    size_t content_start = pos_;
    size_t i = pos_;
    while (true) {
      size_t tag = src_.find("{%", i);
      if (tag == std::string_view::npos) return fail("unclosed `{% raw %}`: expected `{% endraw %}`", open.offset);
      size_t j = tag + 2;
      bool end_left = j < src_.size() && src_[j] == '-';
      if (end_left) ++j;
      while (j < src_.size() && is_space(src_[j])) ++j;
      if (starts("endraw", j)) {
        size_t k = j + 6;
        while (k < src_.size() && is_space(src_[k])) ++k;
        bool end_right = k < src_.size() && src_[k] == '-';
        size_t close_at = k + (end_right ? 1 : 0);
        if (starts("%}", close_at)) {
          count_ = open_index;
          Token& raw = push(Tok::Raw, open.offset, close_at + 2 - open.offset);
          raw.text = src_.substr(content_start, tag - content_start);
          raw.trim_left = open.trim_left;
          raw.inner_right = close.trim_right;
          raw.inner_left = end_left;
          raw.trim_right = end_right;
          pos_ = close_at + 2;
          return true;
        }
      }
      i = tag + 2;
    }
  }

  bool lex_token() {
    char c = src_[pos_];
    if (is_ident_start(c)) return lex_path();
    if (is_digit(c)) return lex_number();
    if (c == '"' || c == '\'' || c == '`') return lex_string();
    const char after = pos_ + 1 < src_.size() ? src_[pos_ + 1] : '\0';
    const bool two_char_op = (after == '=' && (c == '=' || c == '!' || c == '<' || c == '>')) || (c == ':' && after == ':');
    if (two_char_op) {
      push(Tok::Op, pos_, 2);
      pos_ += 2;
      return true;
    }
    static constexpr std::string_view one = "<>+-*/%~|,()[]=";
    if (one.find(c) != std::string_view::npos) {
      push(Tok::Op, pos_, 1);
      ++pos_;
      return true;
    }
    return fail(std::string("unexpected character `") + c + "`", pos_);
  }

  bool lex_number() {
    size_t start = pos_;
    while (pos_ < src_.size() && is_digit(src_[pos_])) ++pos_;
    Tok kind = Tok::Int;
    if (pos_ + 1 < src_.size() && src_[pos_] == '.' && is_digit(src_[pos_ + 1])) {
      kind = Tok::Float;
      ++pos_;
      while (pos_ < src_.size() && is_digit(src_[pos_])) ++pos_;
    }
    push(kind, start, pos_ - start);
    return true;
  }

  bool lex_string() {
    size_t start = pos_;
    size_t close = src_.find(src_[pos_], pos_ + 1);
    if (close == std::string_view::npos) return fail("unterminated string", start);
    Token& t = push(Tok::String, start, close + 1 - start);
    t.text = src_.substr(start + 1, close - start - 1);
    pos_ = close + 1;
    return true;
  }

  // An identifier followed by `.seg` and `[...]` steps, all without spaces.
  bool scan_path(size_t& i) {
    if (i >= src_.size() || !is_ident_start(src_[i])) return false;
    while (i < src_.size() && is_ident_char(src_[i])) ++i;
    while (i < src_.size()) {
      if (src_[i] == '.' && i + 1 < src_.size() && is_ident_char(src_[i + 1])) {
        ++i;
        while (i < src_.size() && is_ident_char(src_[i])) ++i;
      } else if (src_[i] == '[') {
        size_t open = i;
        ++i;
        if (i < src_.size() && (src_[i] == '"' || src_[i] == '\'' || src_[i] == '`')) {
          size_t close = src_.find(src_[i], i + 1);
          if (close == std::string_view::npos) return fail("unterminated string", i);
          i = close + 1;
        } else if (i < src_.size() && (is_digit(src_[i]) || src_[i] == '-')) {
          if (src_[i] == '-') ++i;
          while (i < src_.size() && is_digit(src_[i])) ++i;
        } else if (!scan_path(i)) {
          if (result_.ok) fail("expected an identifier, string or integer inside `[]`", i);
          return false;
        }
        if (i >= src_.size() || src_[i] != ']') {
          return fail("expected `]` to close the `[` opened here", open);
        }
        ++i;
      } else {
        break;
      }
    }
    return true;
  }

  bool lex_path() {
    size_t start = pos_;
    size_t ident_end = pos_;
    while (ident_end < src_.size() && is_ident_char(src_[ident_end])) ++ident_end;
    size_t i = ident_end;
    const bool plain = i == src_.size() || (src_[i] != '.' && src_[i] != '[');
    if (!plain) {
      i = pos_;
      if (!scan_path(i)) return false;
    }
    Token& t = push(Tok::Path, start, i - start);
    t.plain_ident = i == ident_end;
    pos_ = i;
    return true;
  }

  std::string_view src_;
  size_t pos_ = 0;
  size_t count_ = 0;  // tokens pushed so far
  LexResult result_;
};

}  // namespace

LexResult lex(std::string_view source) { return Lexer(source).run(); }

}  // namespace sindri::tera
