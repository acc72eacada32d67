#include "broker/webhook_crypto.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "broker/context.hpp"
#include "broker/db/webhooks.hpp"

namespace sindri::broker {
namespace {

constexpr unsigned char kFormatVersion = 1;
constexpr size_t kNonceSize = 12;
constexpr size_t kTagSize = 16;
constexpr std::string_view kCheckConstant = "sindri webhook encryption key check v1";

std::string to_hex(const unsigned char* data, size_t size) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (size_t i = 0; i < size; ++i) {
    out.push_back(kHex[data[i] >> 4]);
    out.push_back(kHex[data[i] & 0xf]);
  }
  return out;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::vector<unsigned char>> from_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::vector<unsigned char> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    const int high = hex_digit(hex[2 * i]);
    const int low = hex_digit(hex[2 * i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    out[i] = static_cast<unsigned char>(high * 16 + low);
  }
  return out;
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

struct CipherContextFree {
  void operator()(EVP_CIPHER_CTX* context) const { EVP_CIPHER_CTX_free(context); }
};
using CipherContext = std::unique_ptr<EVP_CIPHER_CTX, CipherContextFree>;


ApiError key_error(std::string message) { return ApiError{500, "webhook_key", std::move(message), Value(), {}}; }

std::optional<std::string> read_key_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

ApiResult<Ok> create_key_file(const std::string& path, const WebhookKey& key) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return key_error("cannot create the webhook encryption key file " + path + ": " + std::strerror(errno));
  const std::string line = webhook_key_hex(key) + "\n";
  const bool written = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) && ::fsync(fd) == 0;
  const int saved_errno = errno;
  ::close(fd);
  if (!written) {
    return key_error("cannot write the webhook encryption key file " + path + ": " + std::strerror(saved_errno));
  }
  return Ok{};
}

}  // namespace

Result<WebhookKey> parse_webhook_key(std::string_view hex) {
  hex = trimmed(hex);
  auto bytes = hex.size() == 64 ? from_hex(hex) : std::nullopt;
  if (!bytes) return make_error("a webhook encryption key is 64 hex digits (32 bytes)");
  WebhookKey key;
  std::memcpy(key.bytes.data(), bytes->data(), key.bytes.size());
  return key;
}

std::string webhook_key_hex(const WebhookKey& key) { return to_hex(key.bytes.data(), key.bytes.size()); }

WebhookKey random_webhook_key() {
  WebhookKey key;
  if (RAND_bytes(key.bytes.data(), static_cast<int>(key.bytes.size())) != 1) {
    throw std::runtime_error("the system random generator failed");
  }
  return key;
}

std::string encrypt_secret(const WebhookKey& key, std::string_view plaintext) {
  std::vector<unsigned char> out(1 + kNonceSize + plaintext.size() + kTagSize);
  out[0] = kFormatVersion;
  unsigned char* nonce = out.data() + 1;
  unsigned char* ciphertext = nonce + kNonceSize;
  if (RAND_bytes(nonce, kNonceSize) != 1) throw std::runtime_error("the system random generator failed");
  CipherContext context(EVP_CIPHER_CTX_new());
  int length = 0;
  // Failures here are out of memory or a broken OpenSSL, not inputs.
  if (!context || EVP_EncryptInit_ex(context.get(), EVP_aes_256_gcm(), nullptr, key.bytes.data(), nonce) != 1 ||
      EVP_EncryptUpdate(context.get(), ciphertext, &length, reinterpret_cast<const unsigned char*>(plaintext.data()),
                        static_cast<int>(plaintext.size())) != 1 ||
      EVP_EncryptFinal_ex(context.get(), ciphertext + length, &length) != 1 ||
      EVP_CIPHER_CTX_ctrl(context.get(), EVP_CTRL_GCM_GET_TAG, kTagSize, ciphertext + plaintext.size()) != 1) {
    throw std::runtime_error("AES-256-GCM encryption failed");
  }
  return to_hex(out.data(), out.size());
}

Result<std::string> decrypt_secret(const WebhookKey& key, std::string_view stored) {
  auto bytes = from_hex(stored);
  if (!bytes || bytes->size() < 1 + kNonceSize + kTagSize || (*bytes)[0] != kFormatVersion) {
    return make_error("not an encrypted webhook secret of a known format");
  }
  const unsigned char* nonce = bytes->data() + 1;
  const unsigned char* ciphertext = nonce + kNonceSize;
  const size_t ciphertext_size = bytes->size() - 1 - kNonceSize - kTagSize;
  std::vector<unsigned char> tag(ciphertext + ciphertext_size, ciphertext + ciphertext_size + kTagSize);
  std::string plaintext(ciphertext_size, '\0');
  CipherContext context(EVP_CIPHER_CTX_new());
  int length = 0;
  if (!context || EVP_DecryptInit_ex(context.get(), EVP_aes_256_gcm(), nullptr, key.bytes.data(), nonce) != 1 ||
      EVP_DecryptUpdate(context.get(), reinterpret_cast<unsigned char*>(plaintext.data()), &length, ciphertext,
                        static_cast<int>(ciphertext_size)) != 1 ||
      EVP_CIPHER_CTX_ctrl(context.get(), EVP_CTRL_GCM_SET_TAG, kTagSize, tag.data()) != 1 ||
      EVP_DecryptFinal_ex(context.get(), reinterpret_cast<unsigned char*>(plaintext.data()) + length, &length) != 1) {
    return make_error("the webhook secret does not decrypt under this key (another key, or altered)");
  }
  return plaintext;
}

std::string hmac_sha256_hex(std::string_view secret, std::string_view message) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), digest, &size);
  return to_hex(digest, size);
}

std::string webhook_key_check(const WebhookKey& key) {
  return hmac_sha256_hex(std::string_view(reinterpret_cast<const char*>(key.bytes.data()), key.bytes.size()),
                         kCheckConstant);
}

ApiResult<WebhookKey> establish_webhook_key(store::Database& db, const std::optional<std::string>& configured_hex,
                                            const std::string& key_file, Logger& log) {
  SINDRI_TRY(existing_check, in_read<std::optional<std::string>>(db, [](store::Connection& connection) {
               return db::load_key_check(connection);
             }));
  WebhookKey key;
  if (configured_hex) {
    auto parsed = parse_webhook_key(*configured_hex);
    if (!parsed.ok()) return key_error("webhooks.encryption_key: " + parsed.error().message);
    key = *parsed;
  } else if (auto content = read_key_file(key_file)) {
    auto parsed = parse_webhook_key(*content);
    if (!parsed.ok()) return key_error(key_file + ": " + parsed.error().message);
    key = *parsed;
  } else if (existing_check) {
    return key_error("the database holds webhooks encrypted with a key this broker does not have: set "
                     "webhooks.encryption_key, or put the key in " + key_file + ", as the other brokers have it");
  } else {
    key = random_webhook_key();
    SINDRI_CHECK(create_key_file(key_file, key));
    log.info("webhook encryption key created", {{"file", Value(key_file)}});
  }
  const std::string check = webhook_key_check(key);
  SINDRI_TRY(stored_check, in_write<std::string>(db, [&](store::Connection& connection) {
               return db::store_key_check(connection, check);
             }));
  if (stored_check != check) {
    return key_error(std::string("the webhook encryption key (") +
                     (configured_hex ? "webhooks.encryption_key" : key_file) +
                     ") does not match the key this database's webhooks were encrypted with: use the key the "
                     "other brokers use");
  }
  return key;
}

ApiResult<WebhookKey> establish_webhook_key(store::Database& db, const BrokerConfig& config,
                                            const std::string& admin_pak_file, Logger& log) {
  const std::string key_file =
      config.webhooks_encryption_key_file.empty()
          ? (std::filesystem::path(admin_pak_file).parent_path() / "webhook.key").string()
          : config.webhooks_encryption_key_file;
  std::optional<std::string> configured;
  if (!config.webhooks_encryption_key.empty()) configured = config.webhooks_encryption_key;
  return establish_webhook_key(db, configured, key_file, log);
}

}  // namespace sindri::broker
