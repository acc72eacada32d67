#include "value/digest.hpp"

#include <cpuid.h>
#include <immintrin.h>

#include <array>
#include <cstdint>
#include <cstring>

namespace sindri {
namespace {

constexpr std::array<uint32_t, 64> kRoundConstants = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr std::array<uint32_t, 8> kInitialState = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

using State = std::array<uint32_t, 8>;
using CompressBlocks = void (*)(State&, const unsigned char*, size_t);

constexpr uint32_t rotate_right(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

uint32_t load_big_endian(const unsigned char* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

void compress_portable(State& state, const unsigned char* blocks, size_t count) {
  for (size_t block = 0; block < count; ++block, blocks += 64) {
    uint32_t w[64];
    for (int i = 0; i < 16; ++i) w[i] = load_big_endian(blocks + 4 * i);
    for (int i = 16; i < 64; ++i) {
      const uint32_t s0 = rotate_right(w[i - 15], 7) ^ rotate_right(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const uint32_t s1 = rotate_right(w[i - 2], 17) ^ rotate_right(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (int i = 0; i < 64; ++i) {
      const uint32_t s1 = rotate_right(e, 6) ^ rotate_right(e, 11) ^ rotate_right(e, 25);
      const uint32_t choice = (e & f) ^ (~e & g);
      const uint32_t t1 = h + s1 + choice + kRoundConstants[i] + w[i];
      const uint32_t s0 = rotate_right(a, 2) ^ rotate_right(a, 13) ^ rotate_right(a, 22);
      const uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
      const uint32_t t2 = s0 + majority;
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    state[0] += a, state[1] += b, state[2] += c, state[3] += d;
    state[4] += e, state[5] += f, state[6] += g, state[7] += h;
  }
}

// The SHA extensions keep the state as two vectors, ABEF and CDGH, and take
// the message four words at a time, with four rounds' constants added.
__attribute__((target("sha,sse4.1,ssse3"))) void compress_sha_extensions(State& state, const unsigned char* blocks,
                                                                           size_t count) {
  const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  __m128i dcba = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&state[0]));
  __m128i hgfe = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&state[4]));
  const __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
  const __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
  __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
  __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
  for (size_t block = 0; block < count; ++block, blocks += 64) {
    const __m128i abef_before = abef, cdgh_before = cdgh;
    __m128i words[4];
    for (int group = 0; group < 16; ++group) {
      __m128i next;
      if (group < 4) {
        next = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blocks + 16 * group)), byte_swap);
      } else {
        // W[i] = s1(W[i-2]) + W[i-7] + s0(W[i-15]) + W[i-16], four at a time.
        __m128i partial = _mm_sha256msg1_epu32(words[group & 3], words[(group + 1) & 3]);
        partial = _mm_add_epi32(partial, _mm_alignr_epi8(words[(group + 3) & 3], words[(group + 2) & 3], 4));
        next = _mm_sha256msg2_epu32(partial, words[(group + 3) & 3]);
      }
      words[group & 3] = next;
      __m128i scheduled =
          _mm_add_epi32(next, _mm_loadu_si128(reinterpret_cast<const __m128i*>(&kRoundConstants[4 * group])));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, scheduled);
      scheduled = _mm_shuffle_epi32(scheduled, 0x0E);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, scheduled);
    }
    abef = _mm_add_epi32(abef, abef_before);
    cdgh = _mm_add_epi32(cdgh, cdgh_before);
  }
  const __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  const __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  dcba = _mm_blend_epi16(feba, dchg, 0xF0);
  hgfe = _mm_alignr_epi8(dchg, feba, 8);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(&state[0]), dcba);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(&state[4]), hgfe);
}

bool cpu_has_sha_extensions() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
  const bool ssse3 = (ecx & bit_SSSE3) != 0, sse41 = (ecx & bit_SSE4_1) != 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  return ssse3 && sse41 && (ebx & bit_SHA) != 0;
}

std::string sha256_hex_with(std::string_view bytes, CompressBlocks compress) {
  State state = kInitialState;
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t whole_blocks = bytes.size() / 64;
  compress(state, data, whole_blocks);
  // The rest, a 1 bit, zeros, and the length in bits: one or two blocks.
  unsigned char tail[128] = {};
  const size_t rest = bytes.size() % 64;
  if (rest != 0) std::memcpy(tail, data + whole_blocks * 64, rest);
  tail[rest] = 0x80;
  const size_t tail_length = rest < 56 ? 64 : 128;
  const uint64_t bits = uint64_t(bytes.size()) * 8;
  for (int i = 0; i < 8; ++i) tail[tail_length - 1 - i] = static_cast<unsigned char>(bits >> (8 * i));
  compress(state, tail, tail_length / 64);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(64, '\0');
  for (int word = 0; word < 8; ++word) {
    for (int nibble = 0; nibble < 8; ++nibble) out[8 * word + nibble] = kHex[(state[word] >> (28 - 4 * nibble)) & 0xF];
  }
  return out;
}

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  static const CompressBlocks compress = cpu_has_sha_extensions() ? compress_sha_extensions : compress_portable;
  return sha256_hex_with(bytes, compress);
}

std::string sha256_hex_portable(std::string_view bytes) { return sha256_hex_with(bytes, compress_portable); }

}  // namespace sindri
