#pragma once
// Splits a template into text, comments, raw blocks and the tokens inside
// `{{ }}` and `{% %}`.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "value/text_position.hpp"

namespace sindri::tera {

// Character classes by table: the lexer asks these for every byte of a tag,
// the parser for the bytes of paths.
inline constexpr uint8_t kIdentStart = 1;
inline constexpr uint8_t kIdentChar = 2;
inline constexpr uint8_t kSpace = 4;
inline constexpr auto kCharClass = [] {
  std::array<uint8_t, 256> table{};
  for (int c = 'a'; c <= 'z'; ++c) table[c] = kIdentStart | kIdentChar;
  for (int c = 'A'; c <= 'Z'; ++c) table[c] = kIdentStart | kIdentChar;
  table['_'] = kIdentStart | kIdentChar;
  for (int c = '0'; c <= '9'; ++c) table[c] = kIdentChar;
  for (char c : {' ', '\t', '\r', '\n'}) table[static_cast<unsigned char>(c)] = kSpace;
  return table;
}();

inline bool is_ident_start(char c) { return kCharClass[static_cast<unsigned char>(c)] & kIdentStart; }
inline bool is_ident_char(char c) { return kCharClass[static_cast<unsigned char>(c)] & kIdentChar; }

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
