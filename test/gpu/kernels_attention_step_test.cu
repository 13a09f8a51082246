// attention_step (kernels/attention.cuh): a decode step's attention that rotates q and the new
// key, writes the new key and value rows into the KV cache and attends to the cache, in one
// launch. Checked against the same step done apart: the rotary on the host (float, rounded to T,
// as the rotary kernel does it), the rows written into host copies of the caches, then the plain
// attention kernel over those. The caches afterwards: every row but the new one bit for bit
// unchanged, the new row the host's rotation (within T's rounding: the device may fuse a
// multiply-add the host does not). Cases: TinyLlama's shape (GQA 8, 256 positions: the keys
// split over a cluster) with its rotary, a partial rotary on q and k, a negative position, no
// rotary (GPT-2's), a position outside the cache (nothing written), head dims that are not
// multiples of 8 (the element-wise loads), batch 2, forced key splits (AttentionDecodeLaunch's
// benchmark knob: more splits than groups of keys, and one), and the argument checks.
#include <algorithm>
#include <cmath>

#include "kernels/attention.cuh"
#include "kernels_test_support.cuh"

namespace kernels_test {
namespace {

namespace k = inferno::kernels;

struct StepCase {
  int64_t batch, heads, kv_heads, skv, d;
  int q_rotary, k_rotary;
  int64_t position;   // as the model passes it (negative: from the end)
  int64_t live_keys;  // the bool mask keeps keys [0, live_keys); -1: no mask
  int splits = 0;     // AttentionDecodeLaunch::splits (0: the kernel's choice)
};

// Element e of row x rotated over its first r elements, in float (double for f64), rounded to T.
template <typename T>
T rotated(const T* x, int e, int r, const T* cosine, const T* sine) {
  if (e >= r) return x[e];
  using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const int h = r / 2;
  const A partner =
      e < h ? -static_cast<A>(to_double(x[e + h])) : static_cast<A>(to_double(x[e - h]));
  const A value = static_cast<A>(to_double(x[e])) * static_cast<A>(to_double(cosine[e])) +
                  partner * static_cast<A>(to_double(sine[e]));
  return from_double<T>(static_cast<double>(value));
}

template <typename T, int kHead>
void check_step(const StepCase& c, std::mt19937_64& rng) {
  char text[200];
  std::snprintf(text, sizeof text,
                "attention_step %s B %lld Hq %lld Hkv %lld Skv %lld d %lld rotary %d/%d at %lld",
                dtype_name<T>(), static_cast<long long>(c.batch), static_cast<long long>(c.heads),
                static_cast<long long>(c.kv_heads), static_cast<long long>(c.skv),
                static_cast<long long>(c.d), c.q_rotary, c.k_rotary,
                static_cast<long long>(c.position));
  const std::string name = text;
  const int64_t b = c.batch, hq = c.heads, hk = c.kv_heads, s = c.skv, d = c.d;
  // q [B, Hq, 1, d], the new rows [B, Hkv, 1, d], the caches [B, Hkv, S, d], contiguous;
  // cosine and sine one row per batch.
  const std::vector<T> q = random_values<T>(static_cast<size_t>(b * hq * d), -1, 1, rng);
  const std::vector<T> k_new = random_values<T>(static_cast<size_t>(b * hk * d), -1, 1, rng);
  const std::vector<T> v_new = random_values<T>(static_cast<size_t>(b * hk * d), -1, 1, rng);
  const std::vector<T> k_cache = random_values<T>(static_cast<size_t>(b * hk * s * d), -1, 1, rng);
  const std::vector<T> v_cache = random_values<T>(static_cast<size_t>(b * hk * s * d), -1, 1, rng);
  std::vector<T> cosine(static_cast<size_t>(b * d)), sine(static_cast<size_t>(b * d));
  std::uniform_real_distribution<double> angle(-3.1, 3.1);
  for (size_t i = 0; i < cosine.size(); ++i) {
    const double a = angle(rng);
    cosine[i] = from_double<T>(std::cos(a));
    sine[i] = from_double<T>(std::sin(a));
  }

  // The step done apart, on the host.
  int64_t row = c.position < 0 ? c.position + s : c.position;
  if (row >= s) row = -1;
  std::vector<T> q_rot(q.size()), k_want = k_cache, v_want = v_cache;
  for (int64_t x = 0; x < b; ++x) {
    const T* cs = cosine.data() + x * d;
    const T* sn = sine.data() + x * d;
    for (int64_t h = 0; h < hq; ++h)
      for (int e = 0; e < d; ++e)
        q_rot[static_cast<size_t>((x * hq + h) * d + e)] =
            rotated(q.data() + (x * hq + h) * d, e, c.q_rotary, cs, sn);
    if (row < 0) continue;
    for (int64_t h = 0; h < hk; ++h)
      for (int e = 0; e < d; ++e) {
        const size_t at = static_cast<size_t>(((x * hk + h) * s + row) * d + e);
        k_want[at] = rotated(k_new.data() + (x * hk + h) * d, e, c.k_rotary, cs, sn);
        v_want[at] = v_new[static_cast<size_t>((x * hk + h) * d + e)];
      }
  }

  std::vector<uint8_t> mask_bytes(static_cast<size_t>(s));
  for (int64_t j = 0; j < s; ++j) mask_bytes[static_cast<size_t>(j)] = j < c.live_keys ? 1 : 0;
  DeviceBuffer<uint8_t> mask_d(mask_bytes);
  const k::AttentionMask mask = c.live_keys < 0 ? k::AttentionMask{nullptr, 0, {0, 0, 0, 0}}
                                                : k::AttentionMask{mask_d.get(), 1, {0, 0, 0, 1}};
  const std::vector<int64_t> position = {c.position};
  DeviceBuffer<T> q_d(q), q_rot_d(q_rot), k_new_d(k_new), v_new_d(v_new), k_d(k_cache),
      v_d(v_cache), k_want_d(k_want), v_want_d(v_want), cos_d(cosine), sin_d(sine), got_d(q.size()),
      want_d(q.size());
  DeviceBuffer<int64_t> position_d(position);
  const k::AttentionDims dims{b, hq, hk, 1, s, d, d};
  const k::AttentionLayout ql{hq * d, d, d}, cl{hk * s * d, s * d, d}, nl{hk * d, d, d};
  const double scale = 1 / std::sqrt(static_cast<double>(d));
  const k::AttentionDecodeUpdate<T> update{k_new_d.get(),    nl,          v_new_d.get(), nl,
                                           position_d.get(), cos_d.get(), sin_d.get(),   d,
                                           c.q_rotary,       c.k_rotary};
  got_d.poison();
  want_d.poison();
  if (!expect_launch(k::attention_step<T, kHead>(q_d.get(), k_d.get(), v_d.get(), got_d.get(), dims,
                                                 ql, cl, cl, ql, mask, scale, update, g_stream,
                                                 k::AttentionDecodeLaunch{true, c.splits}),
                     name))
    return;
  if (!expect_launch(
          k::attention<T, kHead>(q_rot_d.get(), k_want_d.get(), v_want_d.get(), want_d.get(), dims,
                                 ql, cl, cl, ql, mask, scale, false, g_stream),
          name + " (apart)"))
    return;
  // The output: the same kernel over the same values but for q's and the new key's rotation
  // (host against device rounding of one multiply-add): T's tolerance on top of |v| <= 1.
  Tolerance t = tolerance<T>();
  t.atol = std::max(t.atol, t.rtol);
  expect_close(name + ": output", to_doubles(got_d.download()), to_doubles(want_d.download()), t);
  // The caches: the new row as the host rotated it (T's rounding), every other row untouched.
  std::vector<T> k_got = k_d.download(), v_got = v_d.download();
  if (row >= 0) {
    std::vector<T> k_row_got, k_row_want;
    for (int64_t x = 0; x < b; ++x)
      for (int64_t h = 0; h < hk; ++h)
        for (int64_t e = 0; e < d; ++e) {
          const size_t at = static_cast<size_t>(((x * hk + h) * s + row) * d + e);
          k_row_got.push_back(k_got[at]);
          k_row_want.push_back(k_want[at]);
          k_got[at] = k_want[at];  // compared here; the rest bit for bit below
        }
    expect_close(name + ": the new key row", to_doubles(k_row_got), to_doubles(k_row_want),
                 tolerance<T>());
  }
  expect_bitwise_equal(name + ": the key cache's other rows", k_got, k_want);
  expect_bitwise_equal(name + ": the value cache", v_got, v_want);
}

void argument_checks() {
  using T = float;
  const k::AttentionLayout l{64, 64, 64};
  const k::AttentionMask none{nullptr, 0, {0, 0, 0, 0}};
  const T* p = reinterpret_cast<const T*>(16);
  T* o = reinterpret_cast<T*>(16);
  const int64_t* at = reinterpret_cast<const int64_t*>(16);
  const k::AttentionDecodeUpdate<T> update{p, l, p, l, at, p, p, 0, 64, 64};
  const k::AttentionDecodeLaunch decode{};
  expect(k::attention_step<T, 64>(p, o, o, o, {1, 2, 2, 2, 8, 64, 64}, l, l, l, l, none, 1.0,
                                  update, g_stream, decode) == cudaErrorInvalidValue,
         "attention_step refuses two query rows");
  k::AttentionDecodeUpdate<T> odd = update;
  odd.k_rotary = 63;
  expect(k::attention_step<T, 64>(p, o, o, o, {1, 2, 2, 1, 8, 64, 64}, l, l, l, l, none, 1.0, odd,
                                  g_stream, decode) == cudaErrorInvalidValue,
         "attention_step refuses an odd rotary dim");
  k::AttentionDecodeUpdate<T> no_sine = update;
  no_sine.sine = nullptr;
  expect(k::attention_step<T, 64>(p, o, o, o, {1, 2, 2, 1, 8, 64, 64}, l, l, l, l, none, 1.0,
                                  no_sine, g_stream, decode) == cudaErrorInvalidValue,
         "attention_step refuses a rotary without its sine");
  k::AttentionDecodeUpdate<T> no_position = update;
  no_position.position = nullptr;
  expect(k::attention_step<T, 64>(p, o, o, o, {1, 2, 2, 1, 8, 64, 64}, l, l, l, l, none, 1.0,
                                  no_position, g_stream, decode) == cudaErrorInvalidValue,
         "attention_step refuses an update without its position");
}

}  // namespace

void run_attention_step_tests() {
  std::mt19937_64 rng(41);
  // TinyLlama's layer: 32 query heads on 4 kv heads, 256 positions, the new row at 150.
  check_step<__half, 64>({1, 32, 4, 256, 64, 64, 64, 150, 151}, rng);
  check_step<__nv_bfloat16, 64>({1, 32, 4, 256, 64, 64, 64, 31, 32}, rng);
  check_step<float, 64>({2, 4, 2, 100, 64, 32, 32, -3, -1}, rng);  // partial rotary, from the end
  check_step<__half, 64>({1, 12, 12, 256, 64, 0, 0, 0, 1}, rng);   // GPT-2: no rotary
  check_step<__half, 64>({1, 8, 2, 256, 64, 64, 64, 256, 200}, rng);  // outside: nothing written
  check_step<float, 32>({2, 4, 1, 70, 20, 20, 10, 69, 70}, rng);      // d = 20: element loads
  check_step<double, 64>({1, 4, 2, 64, 48, 48, 48, 5, 6}, rng);
  // Forced key splits (the benchmark's knob): 8 over 3 groups of keys (some splits get none), 1.
  check_step<__half, 64>({1, 8, 2, 90, 64, 64, 64, 80, 81, 8}, rng);
  check_step<__half, 64>({1, 32, 4, 256, 64, 64, 64, 150, 151, 1}, rng);
  argument_checks();
}

}  // namespace kernels_test
