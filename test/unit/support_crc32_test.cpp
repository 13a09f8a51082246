#include <string>

#include "support/catch.h"
#include "support/crc32.h"

namespace inferno {
namespace {

TEST_CASE("crc32 is the zip CRC, and continues across pieces") {
  CHECK(crc32("") == 0u);
  CHECK(crc32("123456789") == 0xCBF43926u);  // the standard check value
  const std::string text = "The quick brown fox jumps over the lazy dog";
  CHECK(crc32(text) == 0x414FA339u);
  CHECK(crc32(text.data() + 10, text.size() - 10, crc32(text.data(), 10)) == crc32(text));
}

}  // namespace
}  // namespace inferno
