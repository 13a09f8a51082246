// kernels/l2_prefetch_plan.h: the ranges a kernel asks L2 for within a cap, and each warp's share
// of them (the host half of kernels/l2_prefetch.cuh; the device half only issues the prefetches).
#include "kernels/l2_prefetch_plan.h"

#include "support/catch.h"

namespace k = inferno::kernels;

namespace {

const char* at(long long offset) { return reinterpret_cast<const char*>(0x100000) + offset; }

}  // namespace

TEST_CASE("l2_prefetch_within takes the weights in order as far as the cap", "[codegen]") {
  SECTION("the first weight alone fills a small cap") {
    const k::L2Prefetch p = k::l2_prefetch_within(4096, {{at(0), 8192}, {at(8192), 8192}});
    CHECK(p.ranges[0].base == at(0));
    CHECK(p.ranges[0].bytes == 4096);
    CHECK(p.ranges[1].bytes == 0);
  }
  SECTION("a cap past the first weight goes on into the next ones") {
    const k::L2Prefetch p =
        k::l2_prefetch_within(10000, {{at(0), 4096}, {at(8192), 4096}, {at(16384), 4096}});
    CHECK(p.ranges[0].bytes == 4096);
    CHECK(p.ranges[1].base == at(8192));
    CHECK(p.ranges[1].bytes == 4096);
    CHECK(p.ranges[2].base == at(16384));
    CHECK(p.ranges[2].bytes == (10000 - 8192) / 16 * 16);  // a whole number of 16-byte units
    CHECK(p.ranges[3].bytes == 0);
  }
  SECTION("at most kL2PrefetchRanges weights; empty and sub-16-byte ones are skipped") {
    const k::L2Prefetch p = k::l2_prefetch_within(
        1 << 20, {{at(0), 8}, {at(64), 64}, {at(256), 32}, {at(512), 48}, {at(1024), 16},
                  {at(2048), 1024}});
    CHECK(p.ranges[0].base == at(64));
    CHECK(p.ranges[1].base == at(256));
    CHECK(p.ranges[2].base == at(512));
    CHECK(p.ranges[3].base == at(1024));
    CHECK(p.ranges[3].bytes == 16);
  }
  SECTION("a cap of 0 asks for nothing") {
    const k::L2Prefetch p = k::l2_prefetch_within(0, {{at(0), 4096}});
    CHECK(p.ranges[0].bytes == 0);
  }
  SECTION("one range is at most 2^31 bytes (a bulk prefetch's size is 32 bits)") {
    const k::L2Prefetch p = k::l2_prefetch_within(8ll << 30, {{at(0), 3ll << 30}});
    CHECK(p.ranges[0].bytes == 1ll << 31);
  }
}

TEST_CASE("l2_prefetch_share splits the units over the warps, each once", "[codegen]") {
  for (const long long total : {1ll, 7ll, 64ll, 1000ll, 262144ll}) {
    for (const long long warps : {1ll, 3ll, 64ll, 2048ll}) {
      long long covered = 0, expected_first = 0;
      for (long long w = 0; w < warps; ++w) {
        long long first = -1, count = -1;
        k::l2_prefetch_share(total, w, warps, first, count);
        REQUIRE(count >= 0);
        if (count == 0) continue;
        CHECK(first == expected_first);  // the shares follow one another
        expected_first = first + count;
        covered += count;
      }
      CHECK(covered == total);
    }
  }
}
