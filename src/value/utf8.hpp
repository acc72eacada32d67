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

// Where the first byte of text[from, to) that is not part of well-formed
// UTF-8 is, or `to`.
size_t first_invalid_utf8(std::string_view text, size_t from, size_t to);

// "invalid UTF-8: byte 0xA6", for the byte where a sequence goes wrong.
std::string invalid_utf8_message(char byte);

// "U+000A": an ASCII byte by its code point, for messages about control
// characters, which would break the message shown as themselves.
std::string ascii_code_point(char byte);

}  // namespace sindri
