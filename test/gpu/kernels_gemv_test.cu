// gemv_nk and gemv_kn (kernels/gemv.cuh) against a host product in double, for M = 1, 2 and 8,
// f32, f16 and bf16, on GPT-2's QKV (768 x 2304), TinyLlama's MLP (2048 x 5632), an odd N (1001:
// one element a load on the [K, N] layout) and a short odd-sized K (100: 8-byte packs of f16, a
// partial warp per column). Each shape runs without an epilogue, with the whole one (alpha, a
// bias, a scaled residual, silu or gelu), and once with the residual read from the output itself
// (in place). The wrappers are the kernels codegen generates (emit_gemv.cpp): one __global__
// around the device function, its tile parameters from the header's constexpr choices. The cases
// with an epilogue also hand the kernel a buffer to prefetch into L2 (as a model's GEMV gets the
// next GEMV's weight): a hint that must change no result.
//
// Tolerance: torch.testing's for the dtype (the inputs are the rounded values, so a 16-bit result
// is off by its one rounding, at most half an ulp: 4.9e-4 for f16, 3.9e-3 for bf16, both inside
// rtol), plus the f32 accumulation's error, bounded as 4 sqrt(K) u_f32 times the sum of |terms|
// (the random walk of K roundings, 4 sigma) and times 1.2 for the activation's slope (silu's and
// gelu's are below 1.13). f32 results need that slack: a 2048-term f32 sum is off by more than
// rtol 1.3e-6 of a result that cancels.
#include <cmath>

#include "kernels/gemv.cuh"
#include "kernels_test_support.cuh"

namespace kernels_test {
namespace {

using inferno::kernels::gemv_kn_blocks;
using inferno::kernels::gemv_kn_threads;
using inferno::kernels::gemv_kn_tx;
using inferno::kernels::gemv_nk_blocks;
using inferno::kernels::gemv_nk_lanes;
using inferno::kernels::gemv_pack;
using inferno::kernels::GemvEpilogue;
using inferno::kernels::kGemvNkThreads;

enum class Activation { kNone, kSilu, kGelu };

struct TestActivation {
  Activation kind;
  __device__ float operator()(float a) const {
    if (kind == Activation::kSilu) return a / (1.0f + expf(-a));
    if (kind == Activation::kGelu) return 0.5f * a * (1.0f + erff(a * 0.70710678118654752f));
    return a;
  }
};

double host_activation(Activation kind, double v) {
  if (kind == Activation::kSilu) return v / (1.0 + std::exp(-v));
  if (kind == Activation::kGelu) return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
  return v;
}

template <typename T, int kM, int64_t kN, int64_t kK, int kLanes>
__global__ void __launch_bounds__(kGemvNkThreads)
    nk_kernel(const T* x, const T* w, T* out, GemvEpilogue<T> epilogue, TestActivation act,
              inferno::kernels::L2Prefetch next) {
  // The loads a lane generated code gives these lanes (8 for a column of several warps).
  inferno::kernels::gemv_nk<T, kM, gemv_pack<T>(kK), kLanes,
                            inferno::kernels::gemv_nk_lanes_unroll<T>(kN, kK, kLanes)>(
      x, w, kN, kK, out, epilogue, act, next);
}

template <typename T, int kM, int64_t kN, int64_t kK>
__global__ void __launch_bounds__(gemv_kn_threads<T>(kN, kM))
    kn_kernel(const T* x, const T* w, T* out, GemvEpilogue<T> epilogue, TestActivation act,
              inferno::kernels::L2Prefetch next) {
  inferno::kernels::gemv_kn<T, kM, gemv_pack<T>(kN), gemv_kn_tx<T>(kN), gemv_kn_threads<T>(kN, kM)>(
      x, w, kN, kK, out, epilogue, act, next);
}

struct Epilogue {
  bool on = false;        // alpha, bias, residual and activation, or none of them
  bool in_place = false;  // the residual is the output's own buffer
  Activation activation = Activation::kNone;
};

constexpr double kAlpha = 0.5, kBiasCoefficient = 1.0, kResidualCoefficient = -2.0;

// gemv_nk_split_lanes's choices on the shapes it was measured on (gemv.cuh says why).
static_assert(inferno::kernels::gemv_nk_split_lanes<__half>(2048, 5632) == 128, "down");
static_assert(inferno::kernels::gemv_nk_split_blocks<__half>(2048, 5632) == 2048, "down");
static_assert(inferno::kernels::gemv_nk_split_unroll<__half>(2048, 5632) == 8, "down");
static_assert(inferno::kernels::gemv_nk_split_lanes<__half>(2048, 2048) == 64, "o");
static_assert(inferno::kernels::gemv_nk_split_lanes<__half>(768, 3072) == 64, "GPT-2 proj");
static_assert(inferno::kernels::gemv_nk_split_lanes<__half>(768, 768) == 32, "GPT-2 out");
static_assert(inferno::kernels::gemv_nk_split_lanes<__half>(32000, 2048) == 32, "many blocks");
static_assert(inferno::kernels::gemv_nk_split_unroll<__half>(32000, 2048) ==
                  inferno::kernels::gemv_nk_unroll<__half>(32000, 2048),
              "unsplit: the loads as before");

/// kLanes: gemv_nk's lanes a column, gemv_nk_lanes's choice unless a test asks for a column of
/// several warps (64 or 128).
template <typename T, int kM, int64_t kN, int64_t kK, int kLanes = gemv_nk_lanes<T>(kK)>
void gemv_case(bool nk, const Epilogue& epilogue, std::mt19937_64& rng) {
  const std::vector<T> x = random_values<T>(kM * kK, -1, 1, rng);
  const std::vector<T> w = random_values<T>(kN * kK, -1, 1, rng);
  const std::vector<T> bias = random_values<T>(kN, -1, 1, rng);
  const std::vector<T> residual = random_values<T>(kM * kN, -1, 1, rng);
  // W(k, n) in either layout.
  auto weight = [&](int64_t k, int64_t n) {
    return to_double(w[static_cast<size_t>(nk ? n * kK + k : k * kN + n)]);
  };
  std::vector<double> want(kM * kN), slack(kM * kN);
  const double walk = 4 * std::sqrt(static_cast<double>(kK + 2)) * accumulator_epsilon<float>();
  for (int64_t m = 0; m < kM; ++m) {
    for (int64_t n = 0; n < kN; ++n) {
      double sum = 0, magnitude = 0;
      for (int64_t k = 0; k < kK; ++k) {
        const double term = to_double(x[static_cast<size_t>(m * kK + k)]) * weight(k, n);
        sum += term;
        magnitude += std::fabs(term);
      }
      const auto at = static_cast<size_t>(m * kN + n);
      if (epilogue.on) {
        const double b = kBiasCoefficient * to_double(bias[static_cast<size_t>(n)]);
        const double r = kResidualCoefficient * to_double(residual[at]);
        sum = host_activation(epilogue.activation, kAlpha * sum + b + r);
        magnitude = kAlpha * magnitude + std::fabs(b) + std::fabs(r);
      }
      want[at] = sum;
      slack[at] = 1.2 * walk * magnitude;
    }
  }
  const DeviceBuffer<T> dx(x), dw(w), dbias(bias), dresidual(residual);
  DeviceBuffer<T> dout(kM * kN);
  GemvEpilogue<T> e;
  if (epilogue.on) {
    e.alpha = static_cast<float>(kAlpha);
    e.row = dbias.get();
    e.row_coefficient = static_cast<float>(kBiasCoefficient);
    e.full = epilogue.in_place ? dout.get() : dresidual.get();
    e.full_coefficient = static_cast<float>(kResidualCoefficient);
  }
  if (epilogue.in_place) {
    dout.upload(residual);
  } else {
    dout.poison();
  }
  const TestActivation act{epilogue.activation};
  // A prefetch of 3 MB and 40 bytes (not a multiple of 16: the last 8 are left out).
  const DeviceBuffer<unsigned char> prefetched((3 << 20) + 40);
  const inferno::kernels::L2Prefetch next =
      epilogue.on ? inferno::kernels::L2Prefetch{prefetched.get(), (3 << 20) + 40}
                  : inferno::kernels::L2Prefetch{};
  if (nk) {
    nk_kernel<T, kM, kN, kK, kLanes>
        <<<inferno::kernels::gemv_nk_grid(kN, kLanes), kGemvNkThreads, 0, g_stream>>>(
            dx.get(), dw.get(), dout.get(), e, act, next);
  } else {
    kn_kernel<T, kM, kN, kK><<<gemv_kn_blocks<T>(kN), gemv_kn_threads<T>(kN, kM), 0, g_stream>>>(
        dx.get(), dw.get(), dout.get(), e, act, next);
  }
  char what[160];
  std::snprintf(
      what, sizeof what, "gemv_%s %s M %d K %lld N %lld%s%s%s", nk ? "nk" : "kn", dtype_name<T>(),
      kM, static_cast<long long>(kK), static_cast<long long>(kN),
      nk && kLanes > 32 ? (kLanes == 64 ? ", 2 warps a column" : ", 4 warps a column") : "",
      epilogue.on ? " with epilogue" : "", epilogue.in_place ? " in place" : "");
  if (!expect_launch(cudaGetLastError(), what)) return;
  const std::vector<T> got = dout.download();
  expect_close(what, got, want, tolerance<T>(), slack);
  if (!epilogue.in_place) {  // a second run gives the same bits
    if (nk) {
      nk_kernel<T, kM, kN, kK, kLanes>
          <<<inferno::kernels::gemv_nk_grid(kN, kLanes), kGemvNkThreads, 0, g_stream>>>(
              dx.get(), dw.get(), dout.get(), e, act, next);
    } else {
      kn_kernel<T, kM, kN, kK><<<gemv_kn_blocks<T>(kN), gemv_kn_threads<T>(kN, kM), 0, g_stream>>>(
          dx.get(), dw.get(), dout.get(), e, act, next);
    }
    if (expect_launch(cudaGetLastError(), std::string(what) + ", again"))
      expect_bitwise_equal(std::string(what) + ": reproducible", dout.download(), got);
  }
}

template <typename T, int kM, int64_t kN, int64_t kK>
void gemv_shape(std::mt19937_64& rng) {
  for (const bool nk : {true, false}) {
    gemv_case<T, kM, kN, kK>(nk, {}, rng);
    gemv_case<T, kM, kN, kK>(nk, {true, false, kM % 2 ? Activation::kSilu : Activation::kGelu},
                             rng);
  }
  gemv_case<T, kM, kN, kK>(kM != 2, {true, true, Activation::kNone}, rng);
}

template <typename T, int kM>
void gemv_rows(std::mt19937_64& rng) {
  gemv_shape<T, kM, 2304, 768>(rng);
  gemv_shape<T, kM, 5632, 2048>(rng);
  gemv_shape<T, kM, 1001, 768>(rng);
  gemv_shape<T, kM, 768, 100>(rng);
  gemv_shape<T, kM, 72, 5632>(rng);  // a long row: 8 loads in flight a lane, a partial last turn
  // Columns of several warps: their sums meet in shared memory.
  gemv_case<T, kM, 72, 5632, 64>(true, {true, false, Activation::kSilu}, rng);
  gemv_case<T, kM, 1001, 768, 128>(true, {}, rng);
  gemv_case<T, kM, 130, 2048, 64>(true, {true, true, Activation::kNone}, rng);
}

template <typename T>
void gemv_cases() {
  std::mt19937_64 rng(20261127);
  gemv_rows<T, 1>(rng);
  gemv_rows<T, 2>(rng);
  gemv_rows<T, 8>(rng);
}

}  // namespace

void run_gemv_tests() {
  gemv_cases<float>();
  gemv_cases<__half>();
  gemv_cases<__nv_bfloat16>();
}

}  // namespace kernels_test
