#pragma once
// Well-formed UTF-8, as the JSON and YAML readers require of their text.

#include <cstddef>
#include <string>
#include <string_view>

namespace sindri {

// The length of the UTF-8 sequence starting at text[at], or 0 if it is not
// well-formed (overlong forms, surrogates and code points past U+10FFFF
// included).
size_t utf8_sequence_length(std::string_view text, size_t at);

// A code point and the length of the sequence that encodes it; length 0
// when the bytes are not well-formed UTF-8.
struct Utf8CodePoint {
  char32_t value;
  size_t length;
};

// The code point whose well-formed sequence starts at text[at]; inline for
// the ASCII that most text is, which the template filters read in loops.
inline Utf8CodePoint decode_utf8(std::string_view text, size_t at) {
  const auto lead = static_cast<unsigned char>(text[at]);
  if (lead < 0x80) return {lead, 1};
  const size_t length = utf8_sequence_length(text, at);
  if (length == 0) return {0, 0};
  static constexpr unsigned char kLeadBits[] = {0, 0, 0x1F, 0x0F, 0x07};
  char32_t value = lead & kLeadBits[length];
  for (size_t i = 1; i < length; ++i) value = (value << 6) | (static_cast<unsigned char>(text[at + i]) & 0x3F);
  return {value, length};
}

// Whether `byte` continues a sequence rather than starting one.
inline bool is_utf8_continuation(char byte) { return (static_cast<unsigned char>(byte) & 0xC0) == 0x80; }

// Where the first byte of text[from, to) that is not part of well-formed
// UTF-8 is, or `to`.
size_t first_invalid_utf8(std::string_view text, size_t from, size_t to);

// "invalid UTF-8: byte 0xA6", for the byte where a sequence goes wrong.
std::string invalid_utf8_message(char byte);

// "U+000A": an ASCII byte by its code point, for messages about control
// characters, which would break the message shown as themselves.
std::string ascii_code_point(char byte);

}  // namespace sindri
