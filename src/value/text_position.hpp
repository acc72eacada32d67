#pragma once
// Where a byte offset falls in a text, for error messages.

#include <cstddef>
#include <string_view>

namespace sindri {

struct LineColumn {
  size_t line;    // 1-based
  size_t column;  // 1-based, in bytes
};

inline LineColumn line_column(std::string_view text, size_t offset) {
  LineColumn at{1, 1};
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++at.line;
      at.column = 1;
    } else {
      ++at.column;
    }
  }
  return at;
}

}  // namespace sindri
