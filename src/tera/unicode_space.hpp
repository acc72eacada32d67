#pragma once
// Unicode White_Space, as Rust's str::trim_start / trim_end see it.

#include <cstddef>
#include <string_view>

namespace sindri::tera {

// Bytes of white space at the start of s.
size_t trim_start_length(std::string_view s);
// Length of s without its trailing white space.
size_t trim_end_length(std::string_view s);

}  // namespace sindri::tera
