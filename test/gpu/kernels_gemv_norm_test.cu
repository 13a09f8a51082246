// gemv_nk_norm (kernels/gemv.cuh): a layer_norm or rms_norm of x's rows fused into the [N, K]
// GEMV, against (1) a host computation in double that rounds the normalized rows to T, as the
// unfused graph stores them, and (2) the unfused path on the GPU: kernels/norm.cuh's layer_norm
// or rms_norm into a buffer, then gemv_nk. M = 1, 2 and 8 (where the rows fit the staging),
// f32, f16 and bf16, GPT-2's q/k/v (768 x 2304), TinyLlama's MLP (2048 x 5632) and an odd K
// (100: packs of 4 f16 or bf16, a partial warp per column); rows around 3 (the norm's shift by
// the row's first element matters) with and without the whole epilogue (alpha, bias, residual,
// silu). The wrappers are the kernels codegen generates (emit_gemv.cpp).
//
// Tolerance: torch.testing's for the dtype plus, per output, the f32 accumulation's walk over the
// product's |terms| (as kernels_gemv_test.cu) and what a normalized element may differ by: its
// rounding to T landing on the neighbouring value (2 u_T |x_hat|) and the f32 statistics' error
// (4 sqrt(K) u_f32 (|x_hat| + 2 max|bias| + max|weight|), the norm kernels' model), each carried
// through |w|. A second run gives the same bits.
#include <cmath>

#include "kernels/gemv.cuh"
#include "kernels/norm.cuh"
#include "kernels_test_support.cuh"

namespace kernels_test {
namespace {

using inferno::kernels::gemv_nk_blocks;
using inferno::kernels::gemv_nk_lanes;
using inferno::kernels::gemv_pack;
using inferno::kernels::GemvEpilogue;
using inferno::kernels::kGemvNkThreads;
using inferno::kernels::kGemvNormStagedBytes;

// gemv_nk_norm_unroll's choices on the shapes it was measured on (gemv.cuh says why).
static_assert(inferno::kernels::gemv_nk_norm_unroll<__half>(2560, 2048) == 8, "q/k/v: one wave");
static_assert(inferno::kernels::gemv_nk_norm_unroll<__half>(11264, 2048) == 2, "gate/up");
static_assert(inferno::kernels::gemv_nk_norm_unroll<__half>(32000, 2048) == 2, "LM head");
static_assert(inferno::kernels::gemv_nk_norm_unroll<__half>(2304, 768) == 4, "GPT-2 q/k/v");
static_assert(inferno::kernels::gemv_nk_norm_unroll<__half>(72, 4096) == 16, "few blocks");

constexpr double kEps = 1e-5;
constexpr double kAlpha = 0.5, kResidualCoefficient = -2.0;

struct Silu {
  bool on;
  __device__ float operator()(float a) const { return on ? a / (1.0f + expf(-a)) : a; }
};

template <typename T, int kM, int64_t kN, int64_t kK, bool kRms>
__global__ void __launch_bounds__(kGemvNkThreads)
    fused_kernel(const T* x, const T* w, const T* gamma, const T* beta, T* out,
                 GemvEpilogue<T> epilogue, Silu act) {
  inferno::kernels::gemv_nk_norm<T, kM, gemv_pack<T>(kK), gemv_nk_lanes<T>(kK), kK, kRms,
                                 inferno::kernels::gemv_nk_norm_unroll<T>(kN, kK)>(
      x, w, kN, gamma, beta, static_cast<float>(kEps), out, epilogue, act);
}

template <typename T, int kM, int64_t kN, int64_t kK>
__global__ void __launch_bounds__(kGemvNkThreads)
    plain_kernel(const T* x, const T* w, T* out, GemvEpilogue<T> epilogue, Silu act) {
  inferno::kernels::gemv_nk<T, kM, gemv_pack<T>(kK), gemv_nk_lanes<T>(kK)>(x, w, kN, kK, out,
                                                                           epilogue, act);
}

template <typename T, int kM, int64_t kN, int64_t kK, bool kRms>
void norm_case(bool with_epilogue, std::mt19937_64& rng) {
  const std::vector<T> x = random_values<T>(kM * kK, 2, 4, rng);
  const std::vector<T> w = random_values<T>(kN * kK, -1, 1, rng);
  const std::vector<T> gamma = random_values<T>(kK, 0.5, 1.5, rng);
  const std::vector<T> beta = random_values<T>(kK, -0.5, 0.5, rng);
  const std::vector<T> bias = random_values<T>(kN, -1, 1, rng);
  const std::vector<T> residual = random_values<T>(kM * kN, -1, 1, rng);
  double w_max = 0, b_max = 0;
  for (const T& g : gamma) w_max = std::max(w_max, std::fabs(to_double(g)));
  for (const T& b : beta) b_max = kRms ? 0 : std::max(b_max, std::fabs(to_double(b)));

  // The normalized rows, rounded to T, and each element's allowance.
  const double walk_k = 4 * std::sqrt(static_cast<double>(kK)) * accumulator_epsilon<float>();
  const double u_t = std::is_same_v<T, float>    ? 0x1p-24
                     : std::is_same_v<T, __half> ? 0x1p-11
                                                 : 0x1p-8;
  std::vector<double> xn(kM * kK), xn_error(kM * kK);
  for (int64_t m = 0; m < kM; ++m) {
    const T* row = x.data() + m * kK;
    double mean = 0, var = 0;
    for (int64_t k = 0; k < kK; ++k) mean += kRms ? 0 : to_double(row[k]);
    mean /= static_cast<double>(kK);
    for (int64_t k = 0; k < kK; ++k) var += std::pow(to_double(row[k]) - mean, 2);
    const double inv_std = 1.0 / std::sqrt(var / static_cast<double>(kK) + kEps);
    for (int64_t k = 0; k < kK; ++k) {
      double v = (to_double(row[k]) - mean) * inv_std * to_double(gamma[static_cast<size_t>(k)]);
      if (!kRms) v += to_double(beta[static_cast<size_t>(k)]);
      const auto at = static_cast<size_t>(m * kK + k);
      xn[at] = to_double(from_double<T>(v));
      xn_error[at] = 2 * u_t * std::fabs(xn[at]) + walk_k * (std::fabs(xn[at]) + 2 * b_max + w_max);
    }
  }
  std::vector<double> want(kM * kN), slack(kM * kN);
  const double walk = 4 * std::sqrt(static_cast<double>(kK + 2)) * accumulator_epsilon<float>();
  for (int64_t m = 0; m < kM; ++m) {
    for (int64_t n = 0; n < kN; ++n) {
      double sum = 0, magnitude = 0, moved = 0;
      for (int64_t k = 0; k < kK; ++k) {
        const auto xi = static_cast<size_t>(m * kK + k);
        const double wk = to_double(w[static_cast<size_t>(n * kK + k)]);
        sum += xn[xi] * wk;
        magnitude += std::fabs(xn[xi] * wk);
        moved += xn_error[xi] * std::fabs(wk);
      }
      const auto at = static_cast<size_t>(m * kN + n);
      if (with_epilogue) {
        const double b = to_double(bias[static_cast<size_t>(n)]);
        const double r = kResidualCoefficient * to_double(residual[at]);
        const double v = kAlpha * sum + b + r;
        sum = v / (1.0 + std::exp(-v));
        magnitude = kAlpha * magnitude + std::fabs(b) + std::fabs(r);
        moved *= kAlpha;
      }
      want[at] = sum;
      slack[at] = 1.2 * (walk * magnitude + moved);
    }
  }

  const DeviceBuffer<T> dx(x), dw(w), dgamma(gamma), dbeta(beta), dbias(bias), dres(residual);
  DeviceBuffer<T> fused(kM * kN), unfused(kM * kN), normalized(kM * kK);
  GemvEpilogue<T> e;
  if (with_epilogue) {
    e.alpha = static_cast<float>(kAlpha);
    e.row = dbias.get();
    e.full = dres.get();
    e.full_coefficient = static_cast<float>(kResidualCoefficient);
  }
  const Silu act{with_epilogue};
  fused.poison();
  auto launch_fused = [&] {
    fused_kernel<T, kM, kN, kK, kRms><<<gemv_nk_blocks<T>(kN, kK), kGemvNkThreads, 0, g_stream>>>(
        dx.get(), dw.get(), dgamma.get(), kRms ? nullptr : dbeta.get(), fused.get(), e, act);
  };
  launch_fused();
  char what[160];
  std::snprintf(what, sizeof what, "gemv_nk_norm %s %s M %d K %lld N %lld%s",
                kRms ? "rms_norm" : "layer_norm", dtype_name<T>(), kM, static_cast<long long>(kK),
                static_cast<long long>(kN), with_epilogue ? " with epilogue" : "");
  if (!expect_launch(cudaGetLastError(), what)) return;
  const std::vector<T> got = fused.download();
  expect_close(what, got, want, tolerance<T>(), slack);

  // The unfused path: the norm's own kernel, then the GEMV.
  const cudaError_t normed =
      kRms ? inferno::kernels::rms_norm<T>(dx.get(), dgamma.get(), normalized.get(), kM, kK, kEps,
                                           g_stream)
           : inferno::kernels::layer_norm<T>(dx.get(), dgamma.get(), dbeta.get(), normalized.get(),
                                             kM, kK, kEps, g_stream);
  plain_kernel<T, kM, kN, kK><<<gemv_nk_blocks<T>(kN, kK), kGemvNkThreads, 0, g_stream>>>(
      normalized.get(), dw.get(), unfused.get(), e, act);
  if (expect_launch(normed == cudaSuccess ? cudaGetLastError() : normed,
                    std::string(what) + ", unfused")) {
    const std::vector<double> reference = to_doubles(unfused.download());
    expect_close(std::string(what) + ": fused vs unfused", got, reference, tolerance<T>(), slack);
  }

  launch_fused();  // a second run gives the same bits
  if (expect_launch(cudaGetLastError(), std::string(what) + ", again"))
    expect_bitwise_equal(std::string(what) + ": reproducible", fused.download(), got);
}

template <typename T, int kM, int64_t kN, int64_t kK>
void norm_shape(std::mt19937_64& rng) {
  if constexpr (kM * kK * static_cast<int64_t>(sizeof(T)) <= kGemvNormStagedBytes) {
    norm_case<T, kM, kN, kK, false>(false, rng);
    norm_case<T, kM, kN, kK, false>(true, rng);
    norm_case<T, kM, kN, kK, true>(false, rng);
    norm_case<T, kM, kN, kK, true>(true, rng);
  }
}

template <typename T, int kM>
void norm_rows(std::mt19937_64& rng) {
  norm_shape<T, kM, 2304, 768>(rng);
  norm_shape<T, kM, 5632, 2048>(rng);
  norm_shape<T, kM, 768, 100>(rng);
  norm_shape<T, kM, 72, 4096>(rng);  // few blocks of long rows: 16 loads in flight a lane
}

template <typename T>
void norm_cases() {
  std::mt19937_64 rng(20261127);
  norm_rows<T, 1>(rng);
  norm_rows<T, 2>(rng);
  norm_rows<T, 8>(rng);
}

}  // namespace

void run_gemv_norm_tests() {
  norm_cases<float>();
  norm_cases<__half>();
  norm_cases<__nv_bfloat16>();
}

}  // namespace kernels_test
