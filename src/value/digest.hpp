#pragma once
// Content digests, for caches, checksums and revision hashes. Our own
// SHA-256, so that the processes that only render or patch load no
// cryptography library.

#include <string>
#include <string_view>

namespace sindri {

// Lower-case hex SHA-256 of some bytes: with the CPU's SHA instructions
// where it has them.
std::string sha256_hex(std::string_view bytes);
// The same in plain C++ whatever the CPU (tests compare both paths).
std::string sha256_hex_portable(std::string_view bytes);

}  // namespace sindri
