#include "support/sha256.h"

#include <cstring>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define INFERNO_SHA256_X86 1
#endif

namespace inferno {
namespace {

// FIPS 180-4 section 4.2.2: the first 32 bits of the fractional parts of the cube roots of the
// first 64 primes.
constexpr std::array<uint32_t, 64> kRoundConstants = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

// Section 5.3.3: the first 32 bits of the fractional parts of the square roots of the first 8
// primes.
constexpr std::array<uint32_t, 8> kInitialState = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

constexpr uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

#if INFERNO_SHA256_X86
// The SHA extensions (CPUID leaf 7, EBX bit 29), with the SSSE3/SSE4.1 shuffles they need:
// 5-8x the portable loop, which matters when a build cache key covers 100+ MB of weights.
bool cpu_has_sha() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0 || (ebx & (1u << 29)) == 0) return false;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (ecx & (1u << 9)) != 0 && (ecx & (1u << 19)) != 0;  // SSSE3, SSE4.1
}

// Blocks of 64 bytes through sha256rnds2 (two rounds each) and sha256msg1/msg2 (the message
// schedule, four words at a time). The instructions keep the state as ABEF and CDGH.
__attribute__((target("sha,sse4.1"))) void compress_sha_ni(uint32_t* state, const uint8_t* blocks,
                                                           size_t count) {
  const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bll, 0x0405060700010203ll);
  __m128i dcba = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state));
  __m128i hgfe = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state + 4));
  dcba = _mm_shuffle_epi32(dcba, 0xB1);              // CDAB
  hgfe = _mm_shuffle_epi32(hgfe, 0x1B);              // EFGH
  __m128i abef = _mm_alignr_epi8(dcba, hgfe, 8);     // ABEF
  __m128i cdgh = _mm_blend_epi16(hgfe, dcba, 0xF0);  // CDGH
  for (; count > 0; --count, blocks += 64) {
    const __m128i abef_in = abef, cdgh_in = cdgh;
    __m128i w[4];
    for (int i = 0; i < 16; ++i) {
      __m128i& group = w[i % 4];  // words 4i .. 4i+3
      if (i < 4) {
        group = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blocks + 16 * i)),
                                 byte_swap);
      } else {
        // W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) + W[t-16]: msg1 adds s0 to W[t-16], the
        // alignr brings W[t-7], msg2 adds s1 one word after another.
        const __m128i prev = w[(i + 3) % 4], prev2 = w[(i + 2) % 4];
        group = _mm_sha256msg1_epu32(group, w[(i + 1) % 4]);
        group = _mm_add_epi32(group, _mm_alignr_epi8(prev, prev2, 4));
        group = _mm_sha256msg2_epu32(group, prev);
      }
      __m128i wk = _mm_add_epi32(
          group, _mm_loadu_si128(reinterpret_cast<const __m128i*>(&kRoundConstants[4 * i])));
      // Two rounds make the old ABEF the new CDGH, so the registers swap roles and back.
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
      wk = _mm_shuffle_epi32(wk, 0x0E);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, wk);
    }
    abef = _mm_add_epi32(abef, abef_in);
    cdgh = _mm_add_epi32(cdgh, cdgh_in);
  }
  const __m128i feba = _mm_shuffle_epi32(abef, 0x1B);  // FEBA
  const __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);  // DCHG
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state), _mm_blend_epi16(feba, dchg, 0xF0));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state + 4), _mm_alignr_epi8(dchg, feba, 8));
}
#endif

}  // namespace

bool Sha256::hardware_accelerated() {
#if INFERNO_SHA256_X86
  static const bool has = cpu_has_sha();
  return has;
#else
  return false;
#endif
}

Sha256::Sha256() : state_(kInitialState), hardware_(hardware_accelerated()) {}

Sha256 Sha256::portable() {
  Sha256 hash;
  hash.hardware_ = false;
  return hash;
}

void Sha256::compress_blocks(const uint8_t* blocks, size_t count) {
#if INFERNO_SHA256_X86
  if (hardware_) {
    compress_sha_ni(state_.data(), blocks, count);
    return;
  }
#endif
  for (; count > 0; --count, blocks += 64) compress(blocks);
}

void Sha256::compress(const uint8_t* block) {
  // Section 6.2.2: the message schedule, then 64 rounds.
  std::array<uint32_t, 64> w;
  for (int t = 0; t < 16; ++t) {
    w[t] = (uint32_t{block[4 * t]} << 24) | (uint32_t{block[4 * t + 1]} << 16) |
           (uint32_t{block[4 * t + 2]} << 8) | uint32_t{block[4 * t + 3]};
  }
  for (int t = 16; t < 64; ++t) {
    const uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
    const uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3];
  uint32_t e = state_[4], f = state_[5], g = state_[6], h = state_[7];
  for (int t = 0; t < 64; ++t) {
    const uint32_t sigma1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
    const uint32_t choose = (e & f) ^ (~e & g);
    const uint32_t t1 = h + sigma1 + choose + kRoundConstants[t] + w[t];
    const uint32_t sigma0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
    const uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
    const uint32_t t2 = sigma0 + majority;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state_[0] += a;
  state_[1] += b;
  state_[2] += c;
  state_[3] += d;
  state_[4] += e;
  state_[5] += f;
  state_[6] += g;
  state_[7] += h;
}

void Sha256::update(const void* data, size_t size) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  total_bytes_ += size;
  if (buffered_ > 0) {
    const size_t take = std::min(size, buffer_.size() - buffered_);
    std::memcpy(buffer_.data() + buffered_, bytes, take);
    buffered_ += take;
    bytes += take;
    size -= take;
    if (buffered_ < buffer_.size()) return;
    compress_blocks(buffer_.data(), 1);
    buffered_ = 0;
  }
  const size_t blocks = size / 64;
  compress_blocks(bytes, blocks);
  bytes += 64 * blocks;
  size -= 64 * blocks;
  std::memcpy(buffer_.data(), bytes, size);
  buffered_ = size;
}

Sha256::Digest Sha256::finish() {
  // Section 5.1.1: a 1 bit, zeros up to 56 mod 64 bytes, then the length in bits, big-endian.
  const uint64_t bit_length = total_bytes_ * 8;
  const uint8_t one = 0x80;
  update(&one, 1);
  const uint8_t zero = 0;
  while (buffered_ != 56) update(&zero, 1);
  uint8_t length[8];
  for (int i = 0; i < 8; ++i) length[i] = static_cast<uint8_t>(bit_length >> (56 - 8 * i));
  update(length, 8);
  Digest digest;
  for (int i = 0; i < 8; ++i) {
    for (int k = 0; k < 4; ++k) digest[4 * i + k] = static_cast<uint8_t>(state_[i] >> (24 - 8 * k));
  }
  return digest;
}

std::string to_hex(const Sha256::Digest& digest) {
  static const char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(64);
  for (uint8_t byte : digest) {
    hex += kDigits[byte >> 4];
    hex += kDigits[byte & 15];
  }
  return hex;
}

std::string sha256_hex(std::string_view data) {
  Sha256 hash;
  hash.update(data);
  return to_hex(hash.finish());
}

}  // namespace inferno
