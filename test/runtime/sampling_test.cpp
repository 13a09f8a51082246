// The next-token choice's arithmetic on the host (runtime/sample_math.h) and the mirror of the
// GPU kernel (sampling_reference.h): Philox's published vectors, the fixed-point weights, the
// threshold searches against the textbook top-k / top-p, and the sampled frequencies.
#include <cmath>
#include <random>
#include <vector>

#include "runtime/sample_math.h"
#include "sampling_reference.h"
#include "support/catch.h"

namespace s = inferno::sampling;
using inferno::test::mirror_kept;
using inferno::test::mirror_token;
using inferno::test::SamplingOptions;
using inferno::test::textbook_kept;
using inferno::test::textbook_probabilities;

namespace {

std::vector<float> random_logits(int n, unsigned seed, float spread) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, spread);
  std::vector<float> x(static_cast<size_t>(n));
  for (float& v : x) v = normal(rng);
  return x;
}

}  // namespace

TEST_CASE("sampling: Philox4x32-10 gives Random123's known answers", "[runtime]") {
  const uint32_t counters[3][4] = {{0, 0, 0, 0},
                                   {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
                                   {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}};
  const uint32_t keys[3][2] = {{0, 0}, {0xffffffffu, 0xffffffffu}, {0xa4093822u, 0x299f31d0u}};
  const uint32_t expected[3][4] = {{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u},
                                   {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu},
                                   {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}};
  for (int i = 0; i < 3; ++i) {
    uint32_t out[4];
    s::philox4x32_10(counters[i], keys[i], out);
    for (int k = 0; k < 4; ++k) CHECK(out[k] == expected[i][k]);
  }
  CHECK(s::step_random(7, 0) != s::step_random(7, 1));
  CHECK(s::step_random(7, 0) != s::step_random(8, 0));
  CHECK(s::mul_high(~uint64_t{0}, 1000) == 999);
  CHECK(s::mul_high(uint64_t{1} << 63, 1000) == 500);
  CHECK(s::mul_high(0, 1000) == 0);
}

TEST_CASE("sampling: keys keep the order of logits, weights are exp in 2^-40 units", "[runtime]") {
  const float ordered[] = {-INFINITY, -1e30f, -2.5f, -1e-30f, 0.0f, 1e-30f, 1.0f, 3e38f, INFINITY};
  for (size_t i = 1; i < sizeof ordered / sizeof ordered[0]; ++i) {
    CHECK(s::order_key(ordered[i - 1]) < s::order_key(ordered[i]));
  }
  CHECK(s::order_key(NAN) == 0);
  CHECK(s::order_key(-INFINITY) >= 1);
  CHECK(s::token_weight(2.0f, 2.0f, 1.0f) == s::kFixedOne);
  CHECK(s::token_weight(NAN, 2.0f, 1.0f) == 0);
  CHECK(s::token_weight(-INFINITY, 2.0f, 1.0f) == 0);
  CHECK(s::token_weight(1.0f, INFINITY, 1.0f) == 0);
  CHECK(s::fixed_exp2(-41.0f) == 0);
  for (float z = -39.9f; z < 0; z += 0.37f) {
    const double exact = std::exp2(static_cast<double>(z)) * static_cast<double>(s::kFixedOne);
    INFO("z = " << z);
    CHECK(std::abs(static_cast<double>(s::fixed_exp2(z)) - exact) <= exact * 4e-6 + 1);
  }
  CHECK(s::top_p_target(0.5f, 10) == 5);
  CHECK(s::top_p_target(0.51f, 10) == 6);
  CHECK(s::top_p_target(1e-30f, 10) == 1);
  CHECK(s::top_p_target(1.0f, 10) == 10);
}

TEST_CASE("sampling: the kept set is the textbook top-k then top-p", "[runtime]") {
  const struct {
    int32_t top_k;
    float top_p;
    float temperature;
  } cases[] = {{1, 1.0f, 1.0f},  {5, 1.0f, 1.0f},  {50, 1.0f, 0.7f}, {0, 0.9f, 1.0f},
               {0, 0.5f, 0.3f},  {0, 0.01f, 1.0f}, {40, 0.8f, 1.3f}, {1000, 0.95f, 2.0f},
               {3, 0.99f, 1.0f}, {0, 0.999f, 5.0f}};
  for (unsigned seed = 0; seed < 10; ++seed) {
    const std::vector<float> x = random_logits(3000 + 77 * static_cast<int>(seed), seed, 3.0f);
    for (const auto& c : cases) {
      const SamplingOptions o{c.temperature, c.top_k, c.top_p, 0};
      INFO("seed " << seed << " top_k " << c.top_k << " top_p " << c.top_p);
      CHECK(mirror_kept(x, o) == textbook_kept(x, o));
    }
  }
  // Ties at the k-th value are kept together, as Hugging Face's top-k does.
  const std::vector<float> ties{1, 5, 3, 5, 5, 0};
  CHECK(mirror_kept(ties, {1.0f, 2, 1.0f, 0}) == std::vector<int32_t>{1, 3, 4});
  CHECK(textbook_kept(ties, {1.0f, 2, 1.0f, 0}) == std::vector<int32_t>{1, 3, 4});
}

TEST_CASE("sampling: greedy is the first largest logit, NaN is never chosen", "[runtime]") {
  const SamplingOptions greedy{};
  CHECK(mirror_token({1, 7, 3, 7}, greedy, 0) == 1);
  CHECK(mirror_token({NAN, 2, NAN}, greedy, 0) == 1);
  CHECK(mirror_token({NAN, NAN}, greedy, 0) == 0);
  CHECK(mirror_token({-INFINITY, -INFINITY}, {1.0f, 0, 1.0f, 3}, 5) == 0);
  const SamplingOptions top1{2.0f, 1, 1.0f, 3};  // top-k 1 is greedy whatever the temperature
  CHECK(mirror_token({1, 7, 3, 9, 9}, top1, 11) == 3);
  for (uint64_t step = 0; step < 50; ++step) {
    const int64_t t = mirror_token({NAN, 0, 0.5f, NAN, -1}, {1.0f, 0, 1.0f, 9}, step);
    CHECK((t == 1 || t == 2 || t == 4));
  }
}

TEST_CASE("sampling: frequencies follow the kept tokens' probabilities, seeds reproduce",
          "[runtime]") {
  const std::vector<float> x = random_logits(2048, 42, 1.5f);
  const SamplingOptions o{0.8f, 20, 0.9f, 1234};
  const std::vector<int32_t> kept = textbook_kept(x, o);
  const std::vector<double> p = textbook_probabilities(x, o, kept);
  std::vector<int> counts(x.size());
  constexpr int kDraws = 20000;
  for (int step = 0; step < kDraws; ++step) ++counts[mirror_token(x, o, step)];
  double chi2 = 0;
  int outside = 0;
  for (size_t i = 0; i < x.size(); ++i) outside += counts[i];
  for (size_t j = 0; j < kept.size(); ++j) {
    outside -= counts[kept[j]];
    const double expected = p[j] * kDraws;
    chi2 += (counts[kept[j]] - expected) * (counts[kept[j]] - expected) / expected;
  }
  CHECK(outside == 0);
  // Fewer than 20 degrees of freedom: chi-square beyond 60 happens with probability < 1e-5.
  INFO("chi2 " << chi2 << " over " << kept.size() << " tokens");
  CHECK(chi2 < 60);
  CHECK(mirror_token(x, o, 17) == mirror_token(x, o, 17));
  int differ = 0;
  for (uint64_t step = 0; step < 20; ++step) {
    differ += mirror_token(x, o, step) != mirror_token(x, {0.8f, 20, 0.9f, 99}, step) ? 1 : 0;
  }
  CHECK(differ > 5);
}
