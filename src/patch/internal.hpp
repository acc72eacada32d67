#pragma once
// Helpers shared by the patch sources.

#include <string>
#include <string_view>

namespace sindri::patch {

// A JSON pointer token with `~` and `/` escaped as `~0` and `~1`.
std::string escape_pointer_token(std::string_view token);

}  // namespace sindri::patch
