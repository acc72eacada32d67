#include "tera/unicode_space.hpp"

#include <cstdint>

namespace sindri::tera {

namespace {

bool is_white_space(uint32_t cp) {
  if (cp <= 0x20) return cp == 0x20 || (cp >= 0x09 && cp <= 0x0D);
  switch (cp) {
    case 0x85: case 0xA0: case 0x1680: case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000:
      return true;
    default:
      return cp >= 0x2000 && cp <= 0x200A;
  }
}

// Decodes the code point starting at s[i]; returns its byte length (1 for
// invalid bytes, which are never white space).
size_t decode(std::string_view s, size_t i, uint32_t& cp) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
  if (i + len > s.size()) len = 1;
  cp = len == 1 ? c : (c & (0xFF >> (len + 1)));
  for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  return len;
}

}  // namespace

size_t trim_start_length(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    uint32_t cp;
    size_t len = decode(s, i, cp);
    if (!is_white_space(cp)) break;
    i += len;
  }
  return i;
}

size_t trim_end_length(std::string_view s) {
  size_t end = s.size();
  while (end > 0) {
    size_t start = end - 1;
    while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80 && end - start < 4) --start;
    uint32_t cp;
    size_t len = decode(s, start, cp);
    if (start + len != end || !is_white_space(cp)) break;
    end = start;
  }
  return end;
}

}  // namespace sindri::tera
