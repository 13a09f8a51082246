// The weights checksum of the model ABI (inferno_weights_checksum, include/inferno/model_abi.h):
// codegen writes it into the manifest and the runtime recomputes it at every load, so its value
// is pinned here, and it must notice the damage a byte-wise or word-wise FNV-1a would miss.
#include <cstdint>
#include <utility>
#include <vector>

#include "inferno/model_abi.h"
#include "support/catch.h"

namespace inferno {
namespace {

std::vector<unsigned char> pattern(size_t size) {
  std::vector<unsigned char> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<unsigned char>(i * 37 + 11);
  return bytes;
}

uint64_t checksum(const std::vector<unsigned char>& bytes) {
  return inferno_weights_checksum(bytes.data(), bytes.size());
}

TEST_CASE("the weights checksum keeps its values", "[codegen]") {
  // Zero bytes, a tail only, whole 32-byte groups, groups and a tail.
  CHECK(checksum({}) == 0x58c94533b9407ce2ull);
  CHECK(checksum(pattern(5)) == 0x7a395bb573aac481ull);
  CHECK(checksum(pattern(64)) == 0xbb09f4750b9d1350ull);
  CHECK(checksum(pattern(100)) == 0x6d586cc15c086227ull);
}

TEST_CASE("the weights checksum sees every flipped bit, length and order", "[codegen]") {
  const std::vector<unsigned char> original = pattern(100);
  const uint64_t base = checksum(original);
  for (size_t bit = 0; bit < original.size() * 8; ++bit) {
    std::vector<unsigned char> damaged = original;
    damaged[bit / 8] ^= static_cast<unsigned char>(1u << (bit % 8));
    INFO("bit " << bit);
    CHECK(checksum(damaged) != base);
  }
  // The top bit of two words of one lane (bytes 7 and 39): a plain multiply never carries it
  // down, so without the fold the two flips would cancel.
  std::vector<unsigned char> twice = original;
  twice[7] ^= 0x80;
  twice[39] ^= 0x80;
  CHECK(checksum(twice) != base);
  // A zero appended, and two words of different lanes swapped.
  std::vector<unsigned char> longer = original;
  longer.push_back(0);
  CHECK(checksum(longer) != base);
  std::vector<unsigned char> swapped = original;
  for (int b = 0; b < 8; ++b) std::swap(swapped[b], swapped[8 + b]);
  CHECK(checksum(swapped) != base);
}

}  // namespace
}  // namespace inferno
