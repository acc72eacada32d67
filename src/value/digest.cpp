#include "value/digest.hpp"

#include <openssl/evp.h>

#include <memory>

namespace sindri {
namespace {

// EVP_sha256() makes every EVP_Digest look the implementation up in the
// provider store (property queries, name comparisons); fetched once, the
// lookup is gone, and a context per thread saves its allocation too.
const EVP_MD* sha256_implementation() {
  static const EVP_MD* const fetched = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  return fetched;
}

struct ContextFree {
  void operator()(EVP_MD_CTX* context) const { EVP_MD_CTX_free(context); }
};

EVP_MD_CTX* thread_context() {
  thread_local const std::unique_ptr<EVP_MD_CTX, ContextFree> context(EVP_MD_CTX_new());
  return context.get();
}

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_MD_CTX* context = thread_context();
  const EVP_MD* implementation = sha256_implementation();
  if (context == nullptr || implementation == nullptr || !EVP_DigestInit_ex2(context, implementation, nullptr) ||
      !EVP_DigestUpdate(context, bytes.data(), bytes.size()) || !EVP_DigestFinal_ex(context, digest, &length)) {
    // Out of memory or a broken OpenSSL: the one-shot call reports nothing more either.
    EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(length * 2, '\0');
  for (unsigned int i = 0; i < length; ++i) {
    out[2 * i] = kHex[digest[i] >> 4];
    out[2 * i + 1] = kHex[digest[i] & 0xF];
  }
  return out;
}

}  // namespace sindri
