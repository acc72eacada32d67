#include "value/pointer.hpp"

#include <charconv>

namespace sindri {

void append_pointer_token(std::string& out, std::string_view token) {
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
}

std::string escape_pointer_token(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  append_pointer_token(out, token);
  return out;
}

std::string pointer_child(std::string_view base, std::string_view token) {
  std::string out;
  out.reserve(base.size() + 1 + token.size());
  out += base;
  out += '/';
  append_pointer_token(out, token);
  return out;
}

std::string unescape_pointer_token(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
      out += token[i + 1] == '0' ? '~' : '/';
      ++i;
    } else {
      out += token[i];
    }
  }
  return out;
}

const Value* follow_pointer(const Value& root, std::string_view pointer) {
  const Value* at = &root;
  size_t pos = 0;
  while (at && pos < pointer.size()) {
    if (pointer[pos] != '/') return nullptr;
    size_t end = pointer.find('/', pos + 1);
    if (end == std::string_view::npos) end = pointer.size();
    std::string token = unescape_pointer_token(pointer.substr(pos + 1, end - pos - 1));
    if (at->is_object()) {
      at = at->find(token);
    } else if (at->is_array()) {
      size_t index = 0;
      auto [last, ec] = std::from_chars(token.data(), token.data() + token.size(), index);
      bool canonical = !token.empty() && (token.size() == 1 || token[0] != '0');
      if (ec != std::errc() || last != token.data() + token.size() || !canonical) return nullptr;
      at = at->at(index);
    } else {
      return nullptr;
    }
    pos = end;
  }
  return at;
}

}  // namespace sindri
