#include "value/utf8.hpp"

#include <cstdint>
#include <cstring>

namespace sindri {

size_t utf8_sequence_length(std::string_view text, size_t at) {
  const auto byte = [&](size_t i) { return at + i < text.size() ? static_cast<unsigned char>(text[at + i]) : 0u; };
  const unsigned lead = byte(0);
  const auto continuation = [&](size_t i, unsigned low = 0x80, unsigned high = 0xBF) {
    return byte(i) >= low && byte(i) <= high;
  };
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return continuation(1) ? 2 : 0;
  if (lead == 0xE0) return continuation(1, 0xA0) && continuation(2) ? 3 : 0;
  if (lead == 0xED) return continuation(1, 0x80, 0x9F) && continuation(2) ? 3 : 0;
  if (lead >= 0xE1 && lead <= 0xEF) return continuation(1) && continuation(2) ? 3 : 0;
  if (lead == 0xF0) return continuation(1, 0x90) && continuation(2) && continuation(3) ? 4 : 0;
  if (lead >= 0xF1 && lead <= 0xF3) return continuation(1) && continuation(2) && continuation(3) ? 4 : 0;
  if (lead == 0xF4) return continuation(1, 0x80, 0x8F) && continuation(2) && continuation(3) ? 4 : 0;
  return 0;
}

size_t first_invalid_utf8(std::string_view text, size_t from, size_t to) {
  constexpr uint64_t kHighs = 0x8080808080808080;  // ASCII goes eight bytes at a time
  size_t at = from;
  while (at < to) {
    if (to - at >= 8) {
      uint64_t word;
      std::memcpy(&word, text.data() + at, 8);
      if ((word & kHighs) == 0) {
        at += 8;
        continue;
      }
    }
    const size_t length = utf8_sequence_length(text, at);
    if (length == 0 || at + length > to) return at;
    at += length;
  }
  return to;
}

namespace {

std::string two_hex_digits(char byte) {
  static const char kHex[] = "0123456789ABCDEF";
  const auto value = static_cast<unsigned char>(byte);
  return {kHex[value >> 4], kHex[value & 0xF]};
}

}  // namespace

std::string invalid_utf8_message(char byte) { return "invalid UTF-8: byte 0x" + two_hex_digits(byte); }

std::string ascii_code_point(char byte) { return "U+00" + two_hex_digits(byte); }

}  // namespace sindri
