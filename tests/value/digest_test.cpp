// SHA-256 against its published test vectors and against OpenSSL on every
// length around the block and padding boundaries, on both code paths.

#include <gtest/gtest.h>
#include <openssl/sha.h>

#include <random>
#include <string>

#include "value/digest.hpp"

namespace sindri {
namespace {

std::string openssl_sha256_hex(const std::string& bytes) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char byte : digest) {
    out += kHex[byte >> 4];
    out += kHex[byte & 0xF];
  }
  return out;
}

TEST(Sha256, PublishedVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  EXPECT_EQ(sha256_hex_portable("abc"), sha256_hex("abc"));
}

TEST(Sha256, AgreesWithOpenSslAtEveryLengthAcrossBlocks) {
  std::mt19937 random(20261126);
  std::string bytes;
  for (size_t length = 0; length <= 300; ++length) {
    const std::string expected = openssl_sha256_hex(bytes);
    ASSERT_EQ(sha256_hex(bytes), expected) << "length " << length;
    ASSERT_EQ(sha256_hex_portable(bytes), expected) << "length " << length;
    bytes += static_cast<char>(random() & 0xFF);
  }
}

}  // namespace
}  // namespace sindri
