#include "broker/ids.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include <openssl/rand.h>

namespace sindri::broker {
namespace {

void random_bytes(unsigned char* out, size_t size) {
  // OpenSSL's CSPRNG: PAKs are credentials.
  if (RAND_bytes(out, static_cast<int>(size)) != 1) throw std::runtime_error("the system random generator failed");
}

// Random bits for ids, drawn from the CSPRNG a block at a time: one
// RAND_bytes call (a lock and a DRBG step, about 7k instructions) served
// every id. Ids are not secrets, and the broker never forks.
void id_random_bytes(unsigned char* out, size_t size) {
  constexpr size_t kBlock = 1024;
  thread_local unsigned char block[kBlock];
  thread_local size_t used = kBlock;
  if (used + size > kBlock) {
    random_bytes(block, kBlock);
    used = 0;
  }
  std::memcpy(out, block + used, size);
  used += size;
}

}  // namespace

std::string new_uuid() {
  unsigned char bytes[16];
  id_random_bytes(bytes + 6, sizeof bytes - 6);  // the first six hold the time
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  for (int i = 0; i < 6; ++i) bytes[i] = static_cast<unsigned char>(static_cast<uint64_t>(millis) >> (40 - 8 * i));
  bytes[6] = static_cast<unsigned char>((bytes[6] & 0x0f) | 0x70);
  bytes[8] = static_cast<unsigned char>((bytes[8] & 0x3f) | 0x80);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(kHex[bytes[i] >> 4]);
    out.push_back(kHex[bytes[i] & 0xf]);
  }
  return out;
}

std::string now_timestamp() { return timestamp_at(std::chrono::system_clock::now()); }

std::string timestamp_seconds_ago(double seconds) {
  return timestamp_at(std::chrono::system_clock::now() -
                      std::chrono::duration_cast<std::chrono::system_clock::duration>(
                          std::chrono::duration<double>(seconds)));
}

std::string timestamp_at(std::chrono::system_clock::time_point moment) {
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(moment.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(micros / 1'000'000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", utc.tm_year + 1900, utc.tm_mon + 1,
                utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, static_cast<int>(micros % 1'000'000));
  return text;
}

std::string random_alphanumeric(size_t length) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::string out;
  out.reserve(length);
  unsigned char buffer[64];
  while (out.size() < length) {
    random_bytes(buffer, sizeof buffer);
    for (unsigned char byte : buffer) {
      // 62 * 4 = 248: rejecting bytes above keeps every character equally likely.
      if (byte < 248 && out.size() < length) out.push_back(kAlphabet[byte % 62]);
    }
  }
  return out;
}

}  // namespace sindri::broker
