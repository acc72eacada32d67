#pragma once
// Splits a template into text, comments, raw blocks and the tokens inside
// `{{ }}` and `{% %}`.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "value/text_position.hpp"

namespace sindri::tera {

enum class Tok : uint8_t {
  Text,     // literal text between tags
  VarOpen,  // {{ or {{-
  TagOpen,  // {% or {%-
  Close,    // }} -}} %} -%}
  Comment,  // a whole {# ... #}
  Raw,      // a whole {% raw %} ... {% endraw %}; text is the content
  Path,     // identifier with optional .seg / [..] steps, e.g. a.b[0]["k"][c.d]
  Int,
  Float,
  String,  // text excludes the quotes
  Op,      // == != <= >= < > + - * / % ~ | , ( ) [ ] = ::
  End,     // end of input
};

// Plain data, built in one store per token: the lexer makes hundreds per
// template.
struct Token {
  Tok kind;
  bool trim_left;    // VarOpen/TagOpen/Comment/Raw: `{%-` before
  bool trim_right;   // Close/Comment/Raw: `-%}` after
  bool inner_right;  // Raw: `-%}` closing `{% raw`
  bool inner_left;   // Raw: `{%-` opening `{% endraw`
  char close;        // Close: '}' or '%'
  bool plain_ident;  // Path: a lone identifier, no `.` or `[` steps
  uint32_t offset;   // where the token starts in the source
  uint32_t length;
  std::string_view text;
};

struct LexError {
  std::string message;
  uint32_t offset = 0;
};

struct LexResult {
  std::vector<Token> tokens;
  bool ok = true;
  LexError error;
};

LexResult lex(std::string_view source);


}  // namespace sindri::tera
