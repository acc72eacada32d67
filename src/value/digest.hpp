#pragma once
// Content digests, for caches and revision hashes.

#include <string>
#include <string_view>

namespace sindri {

// Lower-case hex SHA-256 of some bytes.
std::string sha256_hex(std::string_view bytes);

}  // namespace sindri
