#include "broker/pak.hpp"

#include <algorithm>
#include <cctype>

#include "broker/ids.hpp"
#include "value/digest.hpp"

namespace sindri::broker {
namespace {

constexpr std::string_view kPrefix = "brokkr_BR";
constexpr size_t kShortLength = 8;
constexpr size_t kLongLength = 24;

bool is_alphanumeric(std::string_view text) {
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return false;
  }
  return true;
}

}  // namespace

IssuedPak issue_pak() {
  std::string pak(kPrefix);
  pak += random_alphanumeric(kShortLength);
  pak += '_';
  pak += random_alphanumeric(kLongLength);
  std::string hash = hash_pak(pak);
  return IssuedPak{std::move(pak), std::move(hash)};
}

std::optional<std::string_view> pak_from_header(std::string_view header) {
  // The scheme's name is case-insensitive (RFC 9110, 11.1).
  constexpr std::string_view kBearer = "bearer ";
  if (header.size() >= kBearer.size() &&
      std::equal(kBearer.begin(), kBearer.end(), header.begin(),
                 [](char expected, char given) { return expected == std::tolower(static_cast<unsigned char>(given)); })) {
    header.remove_prefix(kBearer.size());
  }
  while (!header.empty() && header.front() == ' ') header.remove_prefix(1);
  while (!header.empty() && header.back() == ' ') header.remove_suffix(1);
  if (header.size() != kPrefix.size() + kShortLength + 1 + kLongLength) return std::nullopt;
  if (header.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  const std::string_view short_token = header.substr(kPrefix.size(), kShortLength);
  const std::string_view long_token = header.substr(kPrefix.size() + kShortLength + 1);
  if (header[kPrefix.size() + kShortLength] != '_' || !is_alphanumeric(short_token) || !is_alphanumeric(long_token)) {
    return std::nullopt;
  }
  return header;
}

std::string hash_pak(std::string_view pak) { return sha256_hex(pak); }

}  // namespace sindri::broker
