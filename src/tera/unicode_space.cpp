#include "tera/unicode_space.hpp"

#include "value/utf8.hpp"

namespace sindri::tera {

bool is_rust_whitespace(char32_t c) {
  if (c <= 0x20) return c == 0x20 || (c >= 0x09 && c <= 0x0D);
  switch (c) {
    case 0x85: case 0xA0: case 0x1680: case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000:
      return true;
    default:
      return c >= 0x2000 && c <= 0x200A;
  }
}

std::string_view rust_trim_start(std::string_view s) {
  size_t start = 0;
  while (start < s.size()) {
    const Utf8CodePoint c = decode_utf8(s, start);
    if (c.length == 0 || !is_rust_whitespace(c.value)) break;
    start += c.length;
  }
  return s.substr(start);
}

std::string_view rust_trim_end(std::string_view s) {
  size_t end = s.size();
  while (end > 0) {
    size_t start = end - 1;
    // No sequence is longer than four bytes: a longer run of continuation
    // bytes is a cut sequence, never white space.
    while (start > 0 && end - start < 4 && is_utf8_continuation(s[start])) --start;
    const Utf8CodePoint c = decode_utf8(s, start);
    if (start + c.length != end || !is_rust_whitespace(c.value)) break;
    end = start;
  }
  return s.substr(0, end);
}

}  // namespace sindri::tera
