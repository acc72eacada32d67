#pragma once
// The secrets of webhook subscriptions (URL, auth header, signing secret) are
// stored encrypted with AES-256-GCM: a version byte, a 12-byte random nonce,
// the ciphertext and the 16-byte tag, as hex text. The key is 64 hex digits,
// from the setting webhooks.encryption_key or a file the first broker writes;
// the database keeps an HMAC of a constant under the key (never the key), so
// that a broker with another key refuses to start instead of failing every
// delivery.

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "broker/api_error.hpp"
#include "broker/config.hpp"
#include "broker/log.hpp"
#include "store/database.hpp"

namespace sindri::broker {

struct WebhookKey {
  std::array<unsigned char, 32> bytes{};
};

// 64 hex digits (either case, surrounding whitespace ignored).
Result<WebhookKey> parse_webhook_key(std::string_view hex);
std::string webhook_key_hex(const WebhookKey& key);
WebhookKey random_webhook_key();

std::string encrypt_secret(const WebhookKey& key, std::string_view plaintext);
// Fails on text another key encrypted, or that was altered.
Result<std::string> decrypt_secret(const WebhookKey& key, std::string_view stored);

// HMAC-SHA256 of a constant under the key, in hex: what the database keeps.
std::string webhook_key_check(const WebhookKey& key);
// HMAC-SHA256 of `message` under `secret`, in lower-case hex (the
// X-Sindri-Signature of a delivery, after "sha256=").
std::string hmac_sha256_hex(std::string_view secret, std::string_view message);

// The key this broker encrypts with: `configured_hex` when set, else the one
// in `key_file`, else a new one written there (mode 0600, logged). The first
// broker stores the key's check value; a key that does not match it is an
// error that says so, as is a database with a check value and no key here.
ApiResult<WebhookKey> establish_webhook_key(store::Database& db, const std::optional<std::string>& configured_hex,
                                            const std::string& key_file, Logger& log);

// The same from the settings: webhooks.encryption_key, else the file
// webhooks.encryption_key_file names, by default webhook.key beside the
// admin PAK.
ApiResult<WebhookKey> establish_webhook_key(store::Database& db, const BrokerConfig& config,
                                            const std::string& admin_pak_file, Logger& log);

}  // namespace sindri::broker
