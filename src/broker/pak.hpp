#pragma once
// Prefixed API keys in Brokkr's format: "brokkr_BR<short token>_<long token>"
// (prefix, an 8-character short token after "BR", a 24-character long token).
// Only the SHA-256 of a PAK is stored; lookups go through an index on it.

#include <optional>
#include <string>
#include <string_view>

namespace sindri::broker {

struct IssuedPak {
  std::string pak;   // shown once, to whoever created the identity
  std::string hash;  // stored
};

IssuedPak issue_pak();

// The PAK from an Authorization header value, with or without "Bearer ";
// nullopt when the value is not shaped like a PAK.
std::optional<std::string_view> pak_from_header(std::string_view header);

std::string hash_pak(std::string_view pak);

}  // namespace sindri::broker
