#pragma once
// Unicode White_Space, as Rust's char::is_whitespace and str::trim see it.

#include <string_view>

namespace sindri::tera {

bool is_rust_whitespace(char32_t c);
std::string_view rust_trim_start(std::string_view s);
std::string_view rust_trim_end(std::string_view s);
inline std::string_view rust_trim(std::string_view s) { return rust_trim_end(rust_trim_start(s)); }

}  // namespace sindri::tera
