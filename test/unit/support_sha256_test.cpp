#include <random>
#include <string>

#include "support/catch.h"
#include "support/sha256.h"

namespace inferno {
namespace {

TEST_CASE("sha256 matches the FIPS 180-4 examples") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // Two blocks: the padding does not fit after 56 bytes.
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256_hex(std::string(1000000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("sha256 gives the same digest whatever pieces the input comes in") {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += static_cast<char>((i * 37 + 11) % 256);
  const std::string whole = sha256_hex(text);
  for (size_t piece : {1u, 3u, 55u, 56u, 63u, 64u, 65u, 200u}) {
    Sha256 hash;
    for (size_t at = 0; at < text.size(); at += piece)
      hash.update(std::string_view(text).substr(at, piece));
    INFO(piece);
    CHECK(to_hex(hash.finish()) == whole);
  }
  // Lengths around the padding boundary differ from each other.
  CHECK(sha256_hex(std::string(55, 'x')) != sha256_hex(std::string(56, 'x')));
}

TEST_CASE("sha256's SHA-instruction path gives the portable loop's digests") {
  // On a CPU without the instructions both hashers take the loop and this only checks that.
  INFO("hardware accelerated: " << Sha256::hardware_accelerated());
  std::mt19937 rng(7);
  std::string text(70000, '\0');
  for (char& c : text) c = static_cast<char>(rng());
  for (size_t size : {0u, 1u, 55u, 56u, 64u, 65u, 127u, 128u, 1000u, 4096u, 65537u, 70000u}) {
    INFO(size);
    const std::string_view part = std::string_view(text).substr(0, size);
    Sha256 fast;
    fast.update(part);
    Sha256 portable = Sha256::portable();
    portable.update(part);
    CHECK(fast.finish() == portable.finish());
  }
}

}  // namespace
}  // namespace inferno
