#pragma once
// A unified diff of two texts, line by line, as `diff -u` prints it.

#include <string>
#include <string_view>

namespace sindri::roles {

// "" when the texts are equal; otherwise the "--- OLD_LABEL" and
// "+++ NEW_LABEL" lines and hunks with `context` lines around each change.
std::string unified_diff(std::string_view old_text, std::string_view new_text, std::string_view old_label,
                         std::string_view new_label, size_t context = 3);

}  // namespace sindri::roles
