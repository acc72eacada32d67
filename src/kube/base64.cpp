#include "kube/base64.hpp"

namespace sindri::kube {
namespace {

int sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

Result<std::string> decode_base64(std::string_view text) {
  std::string out;
  out.reserve(text.size() / 4 * 3);
  uint32_t bits = 0;
  int held = 0;  // sextets in `bits`
  size_t padding = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n' || c == '\r') continue;
    if (c == '=') {
      ++padding;
      continue;
    }
    const int value = sextet(c);
    if (value < 0 || padding > 0) {
      return make_error("not base64: unexpected character at offset " + std::to_string(i));
    }
    bits = (bits << 6) | static_cast<uint32_t>(value);
    if (++held == 4) {
      out.push_back(static_cast<char>(bits >> 16));
      out.push_back(static_cast<char>(bits >> 8));
      out.push_back(static_cast<char>(bits));
      bits = 0;
      held = 0;
    }
  }
  if (held == 1 || padding > 2 || (padding > 0 && held + padding != 4)) {
    return make_error("not base64: the text ends in the middle of a group");
  }
  if (held == 2) {
    out.push_back(static_cast<char>(bits >> 4));
  } else if (held == 3) {
    out.push_back(static_cast<char>(bits >> 10));
    out.push_back(static_cast<char>(bits >> 2));
  }
  return out;
}

}  // namespace sindri::kube
