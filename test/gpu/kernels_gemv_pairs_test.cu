// gemv_nk and gemv_nk_norm with pairs (kernels/gemv.cuh; codegen/gemv_pairs.h): a gated MLP's
// out[m, j] = pair(y[m, j], y[m, j + N/2]) in the GEMV's epilogue, against the unfused path on the
// GPU: the same GEMV without pairs into y, then a kernel applying the same functor to y's halves.
// The products are gemv_kernels_test's (checked against a host product there), so the fused
// result must be the unfused one bit for bit: the same sums, the same rounding of each half,
// the same functor. Cases: f32, f16 and bf16; M = 1, 2 and 8; TinyLlama's gate/up (2 x 5632 x
// 2048: a warp a column), a short K (2 x 36 x 40: a few lanes a column, several columns a warp,
// so a pair meets within a warp) and N/2 not a multiple of the block's columns (2 x 1001 x 768);
// with and without an alpha and a bias (the bias read at each half's own row); gemv_nk_norm with
// rms_norm on the first shape, where the rows fit its staging.
#include "kernels/gemv.cuh"
#include "kernels_test_support.cuh"

namespace kernels_test {
namespace {

using inferno::kernels::from_float;
using inferno::kernels::gemv_nk_blocks;
using inferno::kernels::gemv_nk_lanes;
using inferno::kernels::gemv_nk_unroll;
using inferno::kernels::gemv_pack;
using inferno::kernels::GemvEpilogue;
using inferno::kernels::GemvNoActivation;
using inferno::kernels::kGemvNkThreads;
using inferno::kernels::to_float;

// silu(first) * second with a rounding after each step, as codegen writes a fused node's body.
template <typename T>
struct SiluTimes {
  __device__ T operator()(T first, T second) const {
    const float a = to_float(first);
    const float s = to_float(from_float<T>(a / (1.0f + expf(-a))));
    return from_float<T>(s * to_float(second));
  }
};

template <typename T, int kM, int64_t kN, int64_t kK, bool kPairs, bool kNorm>
__global__ void __launch_bounds__(kGemvNkThreads)
    gemv_kernel(const T* x, const T* w, const T* gamma, T* out, GemvEpilogue<T> epilogue) {
  constexpr int kPack = gemv_pack<T>(kK), kLanes = gemv_nk_lanes<T>(kK);
  constexpr int kUnroll = gemv_nk_unroll<T>(kN, kK);
  if constexpr (kNorm && kPairs) {
    inferno::kernels::gemv_nk_norm<T, kM, kPack, kLanes, kK, true, kUnroll>(
        x, w, kN, gamma, nullptr, 1e-5f, out, epilogue, GemvNoActivation{}, {}, SiluTimes<T>{});
  } else if constexpr (kNorm) {
    inferno::kernels::gemv_nk_norm<T, kM, kPack, kLanes, kK, true, kUnroll>(
        x, w, kN, gamma, nullptr, 1e-5f, out, epilogue, GemvNoActivation{});
  } else if constexpr (kPairs) {
    inferno::kernels::gemv_nk<T, kM, kPack, kLanes, kUnroll>(
        x, w, kN, kK, out, epilogue, GemvNoActivation{}, {}, SiluTimes<T>{});
  } else {
    inferno::kernels::gemv_nk<T, kM, kPack, kLanes, kUnroll>(x, w, kN, kK, out, epilogue,
                                                             GemvNoActivation{});
  }
}

// out[m, j] = pair(y[m, j], y[m, j + n/2]): the unfused elementwise kernel.
template <typename T>
__global__ void pair_kernel(const T* y, int64_t rows, int64_t n, T* out) {
  const int64_t half = n / 2;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < rows * half;
       i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t m = i / half, j = i % half;
    out[i] = SiluTimes<T>{}(y[m * n + j], y[m * n + j + half]);
  }
}

template <typename T, int kM, int64_t kN, int64_t kK, bool kNorm>
void pairs_case(bool with_bias, std::mt19937_64& rng) {
  const std::vector<T> x = random_values<T>(kM * kK, -1, 1, rng);
  const std::vector<T> w = random_values<T>(kN * kK, -1, 1, rng);
  const std::vector<T> gamma = random_values<T>(kK, 0.5, 1.5, rng);
  const std::vector<T> bias = random_values<T>(kN, -1, 1, rng);
  const DeviceBuffer<T> dx(x), dw(w), dgamma(gamma), dbias(bias);
  DeviceBuffer<T> y(kM * kN), fused(kM * kN / 2), unfused(kM * kN / 2);
  y.poison();
  fused.poison();
  unfused.poison();
  GemvEpilogue<T> e;
  if (with_bias) {
    e.alpha = 0.5f;
    e.row = dbias.get();
  }
  const unsigned blocks = gemv_nk_blocks<T>(kN, kK);
  gemv_kernel<T, kM, kN, kK, false, kNorm>
      <<<blocks, kGemvNkThreads, 0, g_stream>>>(dx.get(), dw.get(), dgamma.get(), y.get(), e);
  pair_kernel<T><<<64, 256, 0, g_stream>>>(y.get(), kM, kN, unfused.get());
  gemv_kernel<T, kM, kN, kK, true, kNorm>
      <<<blocks, kGemvNkThreads, 0, g_stream>>>(dx.get(), dw.get(), dgamma.get(), fused.get(), e);
  char what[160];
  std::snprintf(what, sizeof what, "gemv_nk%s pairs %s M %d K %lld N %lld%s", kNorm ? "_norm" : "",
                dtype_name<T>(), kM, static_cast<long long>(kK), static_cast<long long>(kN),
                with_bias ? " with alpha and bias" : "");
  if (!expect_launch(cudaGetLastError(), what)) return;
  expect_bitwise_equal(what, fused.download(), unfused.download());
}

template <typename T, int kM>
void pairs_rows(std::mt19937_64& rng) {
  for (const bool bias : {false, true}) {
    pairs_case<T, kM, 2 * 5632, 2048, false>(bias, rng);
    pairs_case<T, kM, 2 * 36, 40, false>(bias, rng);
    pairs_case<T, kM, 2 * 1001, 768, false>(bias, rng);
  }
  if constexpr (kM * 2048 * static_cast<int64_t>(sizeof(T)) <=
                inferno::kernels::kGemvNormStagedBytes) {  // the rows fit the norm's staging
    pairs_case<T, kM, 2 * 5632, 2048, true>(false, rng);
  }
}

template <typename T>
void pairs_cases() {
  std::mt19937_64 rng(20261207);
  pairs_rows<T, 1>(rng);
  pairs_rows<T, 2>(rng);
  pairs_rows<T, 8>(rng);
}

}  // namespace

void run_gemv_pairs_tests() {
  pairs_cases<float>();
  pairs_cases<__half>();
  pairs_cases<__nv_bfloat16>();
}

}  // namespace kernels_test
