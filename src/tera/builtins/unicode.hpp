#pragma once
// The Unicode services the builtins need, implemented with ICU in
// unicode.cpp so that no other file includes ICU headers.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sindri::tera::builtins::unicode {

// Full Unicode case mappings, as Rust's str::to_uppercase / to_lowercase.
void append_upper(std::string& out, std::string_view s);
void append_lower(std::string& out, std::string_view s);
// The steps of a render's budget that finding graphemes costs besides a
// step per byte: ICU's iterator is set to the text on every call.
constexpr uint64_t kGraphemeSetupSteps = 32;
// Byte offsets where each extended grapheme cluster of s starts.
std::vector<size_t> grapheme_starts(std::string_view s);
// The byte offset of the start of the n-th grapheme cluster of s, or npos
// when s has no more than n clusters.
size_t grapheme_offset(std::string_view s, size_t n);
// Rust regex `\w` (Unicode): Alphabetic, Mark, Decimal_Number,
// Connector_Punctuation, Join_Control.
bool is_word_char(char32_t c);

}  // namespace sindri::tera::builtins::unicode
