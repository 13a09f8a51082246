// The fast conv2d kernels (kernels/conv_igemm.cuh, kernels/conv_depthwise.cuh) against a host
// convolution in double: odd shapes that leave partial tiles in M, N and K, 1x1, 3x3, 7x7 stride
// 2, asymmetric padding, dilation, a long K, the scalar and the 16-byte load paths (C = 3 and
// misaligned-K stems, C a multiple of 8), the depthwise strip kernel's windows and strides, both
// layouts, every floating dtype, and the epilogue:
// bias, residual, gate and each activation; each tile shape of the 16-bit pipelined kernel.
// Refused shapes return cudaErrorInvalidValue.
//
// Tolerance: torch.testing's per dtype (f32 1.3e-6 rel) plus a slack per output of
// 2 sqrt(K) u S, with S the sum of |x w| over its K products and u the accumulator's unit
// roundoff: the kernels add K products in float where the host adds in double, and a long sum
// with cancellation can lose more than 1.3e-6 of a small result. With a gate, 16-bit kernels
// round x * gate to the dtype before the tensor cores (u of the dtype times S more).
#include <cmath>

#include "kernels/conv_depthwise.cuh"
#include "kernels/conv_igemm.cuh"
#include "kernels/scalar_ops.h"
#include "kernels_test_support.cuh"

namespace kernels_test {
namespace {

using inferno::kernels::Conv2dEpilogue;
using inferno::kernels::Conv2dShape;

// Activations as model.cu passes them (functors over the accumulator type), each with its host
// definition in double.
struct NoAct {
  static constexpr const char* kName = "none";
  template <typename A>
  __device__ A operator()(A v) const {
    return v;
  }
  static double host(double v) { return v; }
};
struct Relu {
  static constexpr const char* kName = "relu";
  template <typename A>
  __device__ A operator()(A v) const {
    return v < A(0) ? A(0) : v;
  }
  static double host(double v) { return v < 0 ? 0 : v; }
};
struct Silu {
  static constexpr const char* kName = "silu";
  template <typename A>
  __device__ A operator()(A v) const {
    return v / (A(1) + inferno::ew::exp(-v));
  }
  static double host(double v) { return v / (1 + std::exp(-v)); }
};
struct GeluTanh {
  static constexpr const char* kName = "gelu_tanh";
  template <typename A>
  __device__ A operator()(A v) const {
    return A(0.5) * v *
           (A(1) + inferno::ew::tanh(A(0.7978845608028654) * (v + A(0.044715) * v * v * v)));
  }
  static double host(double v) {
    return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
  }
};

struct ConvCase {
  const char* name;
  int64_t n, c, h, w, o, kh, kw;
  int64_t sh, sw, pt, pl, pb, pr, dh, dw, groups;
  bool bias, residual, gate;
};

Conv2dShape shape_of(const ConvCase& k) {
  const int64_t oh = (k.h + k.pt + k.pb - k.dh * (k.kh - 1) - 1) / k.sh + 1;
  const int64_t ow = (k.w + k.pl + k.pr - k.dw * (k.kw - 1) - 1) / k.sw + 1;
  return {k.n, k.c,  k.h,  k.w,  k.o,  k.kh, k.kw, oh,
          ow,  k.sh, k.sw, k.pt, k.pl, k.dh, k.dw, k.groups};
}

/// Host tensors in the layout's memory order, indexed logically.
struct Index {
  bool nhwc;
  int64_t c, h, w;  ///< channels and spatial sizes of this tensor
  int64_t operator()(int64_t n, int64_t ch, int64_t y, int64_t x) const {
    return nhwc ? ((n * h + y) * w + x) * c + ch : ((n * c + ch) * h + y) * w + x;
  }
};

using inferno::kernels::IgemmPlan;
using inferno::kernels::IgemmTiles;

/// Which kernel a case runs on: the implicit GEMM, the depthwise launcher with the generic
/// kernels only (kGeneric), or with the strip plan of the window (the strip kernel where C and the
/// pointers allow it, however small the conv).
enum class Path { kIgemm, kDepthwise, kDepthwiseStrip };

template <typename T, typename Act, IgemmTiles kTiles>
cudaError_t launch(Path path, const T* x, const T* w, T* out, const Conv2dEpilogue<T>& e,
                   const Conv2dShape& s) {
  using inferno::kernels::DepthwisePlan;
  if (path == Path::kIgemm)
    return inferno::kernels::conv2d_igemm<T, IgemmPlan::kAny, kTiles>(x, w, e, out, s, g_stream,
                                                                      Act{});
  if (path == Path::kDepthwise)
    return inferno::kernels::conv2d_depthwise<T, DepthwisePlan::kGeneric>(x, w, e, out, s, g_stream,
                                                                          Act{});
  // The plan codegen would name were the conv large enough for strips to pay.
  const DepthwisePlan plan = inferno::kernels::depthwise_plan(
      s.nhwc, s.c, s.o, s.kh, s.kw, s.stride_h, s.stride_w, s.dilation_h, s.dilation_w);
  if (inferno::kernels::depthwise_plan_taps(plan) == 0)
    return inferno::kernels::conv2d_depthwise<T>(x, w, e, out, s, g_stream, Act{});
  return inferno::kernels::visit_strip_plan(plan, cudaErrorInvalidValue, [&](auto strip) {
    return inferno::kernels::conv2d_depthwise<T, decltype(strip)::value>(x, w, e, out, s, g_stream,
                                                                         Act{});
  });
}

/// One case on one kernel (igemm: of tiles kTiles), layout, dtype and activation, against the
/// host. `x_offset` shifts x by that many elements from an aligned allocation (the scalar-load
/// path for aligned shapes).
template <typename T, bool kNhwc, typename Act, IgemmTiles kTiles = IgemmTiles::kAuto>
void check_case(const ConvCase& k, Path path, int64_t x_offset = 0) {
  const bool depthwise = path != Path::kIgemm;
  Conv2dShape s = shape_of(k);
  s.nhwc = kNhwc;
  const int64_t cg = k.c / k.groups, og = k.o / k.groups, taps = k.kh * k.kw;
  const Index xi{kNhwc, k.c, k.h, k.w}, oi{kNhwc, k.o, s.oh, s.ow};
  std::mt19937_64 rng(static_cast<uint64_t>(k.n * 131 + k.c * 17 + k.o * 7 + k.kh));
  const auto x =
      random_values<T>(static_cast<size_t>(k.n * k.c * k.h * k.w + x_offset), -2, 2, rng);
  const auto w = random_values<T>(static_cast<size_t>(k.o * cg * taps), -1, 1, rng);
  const auto bias = random_values<T>(static_cast<size_t>(k.o), -1, 1, rng);
  const size_t out_count = static_cast<size_t>(k.n * k.o * s.oh * s.ow);
  const auto residual = random_values<T>(out_count, -2, 2, rng);
  const auto gate = random_values<T>(static_cast<size_t>(k.n * k.c), 0, 1.5, rng);

  // Weights: OIHW for NCHW, OHWI for NHWC.
  auto w_at = [&](int64_t o, int64_t ci, int64_t ky, int64_t kx) {
    return kNhwc ? ((o * k.kh + ky) * k.kw + kx) * cg + ci
                 : ((o * cg + ci) * k.kh + ky) * k.kw + kx;
  };
  const bool rounds_gate = k.gate && sizeof(T) == 2 && !depthwise;
  const double unit = std::is_same_v<T, __half> ? 0x1p-11 : 0x1p-8;
  std::vector<double> want(out_count), slack(out_count);
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t o = 0; o < k.o; ++o)
      for (int64_t y = 0; y < s.oh; ++y)
        for (int64_t xo = 0; xo < s.ow; ++xo) {
          double sum = 0, magnitude = 0;
          for (int64_t ci = 0; ci < cg; ++ci) {
            const int64_t c = o / og * cg + ci;
            const double gv = k.gate ? to_double(gate[static_cast<size_t>(n * k.c + c)]) : 1.0;
            for (int64_t ky = 0; ky < k.kh; ++ky)
              for (int64_t kx = 0; kx < k.kw; ++kx) {
                const int64_t iy = y * k.sh - k.pt + ky * k.dh, ix = xo * k.sw - k.pl + kx * k.dw;
                if (iy < 0 || iy >= k.h || ix < 0 || ix >= k.w) continue;
                const double term = to_double(x[static_cast<size_t>(x_offset + xi(n, c, iy, ix))]) *
                                    gv * to_double(w[static_cast<size_t>(w_at(o, ci, ky, kx))]);
                sum += term;
                magnitude += std::fabs(term);
              }
          }
          const size_t at = static_cast<size_t>(oi(n, o, y, xo));
          if (k.bias) sum += to_double(bias[static_cast<size_t>(o)]);
          if (k.residual) sum += to_double(residual[at]);
          want[at] = Act::host(sum);
          slack[at] = (2 * std::sqrt(static_cast<double>(cg * taps)) * accumulator_epsilon<T>() +
                       (rounds_gate ? unit : 0.0)) *
                      magnitude * 1.5;  // an activation's slope is at most about 1.1
        }

  DeviceBuffer<T> dx(x), dw(w), db(bias), dr(residual), dg(gate), dout(out_count);
  dout.poison();
  Conv2dEpilogue<T> e;
  e.bias = k.bias ? db.get() : nullptr;
  e.residual = k.residual ? dr.get() : nullptr;
  e.gate = k.gate ? dg.get() : nullptr;
  const std::string tiles =
      kTiles == IgemmTiles::kAuto ? "" : std::string(igemm_tiles_name(kTiles)) + " ";
  const std::string what = std::string(path == Path::kIgemm       ? "igemm "
                                       : path == Path::kDepthwise ? "depthwise "
                                                                  : "depthwise strip ") +
                           tiles + k.name + " " + (kNhwc ? "nhwc " : "nchw ") + dtype_name<T>() +
                           " " + Act::kName + (x_offset ? " misaligned" : "");
  if (!expect_launch(launch<T, Act, kTiles>(path, dx.get() + x_offset, dw.get(), dout.get(), e, s),
                     what))
    return;
  expect_close(what, dout.download(), want, tolerance<T>(), slack);
}

// Groups 1 (the implicit GEMM). Fields: name, n c h w o kh kw, sh sw pt pl pb pr dh dw groups,
// bias residual gate.
const ConvCase kGemmCases[] = {
    {"3x3 odd", 2, 3, 17, 13, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true, false, false},
    {"3x3 C16 stride 2 asym", 1, 16, 9, 11, 70, 3, 3, 2, 2, 1, 0, 1, 2, 1, 1, 1, true, true, false},
    {"7x7 stride 2 stem", 1, 3, 35, 33, 64, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1, 1, true, false, false},
    {"3x3 dilated", 2, 8, 12, 10, 33, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1, false, true, false},
    {"1x1", 3, 64, 7, 5, 96, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, true, true, true},
    {"1x1 stride 2", 2, 40, 9, 9, 24, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1, false, false, false},
    {"3x3 long K", 1, 256, 6, 7, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true, true, false},
    {"5x3 gated", 2, 24, 8, 9, 130, 5, 3, 1, 2, 2, 1, 2, 1, 1, 1, 1, true, false, true},
};

// Depthwise: groups == C (one with a channel multiplier of 2).
const ConvCase kDepthwiseCases[] = {
    {"dw 3x3", 2, 37, 11, 9, 37, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 37, true, true, false},
    {"dw 5x5 stride 2", 1, 70, 15, 16, 70, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, 70, true, false, true},
    {"dw 3x3 dilated x2", 2, 6, 10, 10, 12, 3, 3, 1, 2, 2, 1, 2, 1, 2, 2, 6, false, false, false},
    // 72 channels: whole 16-byte pieces in every dtype, two channel blocks of the NHWC vec kernel.
    {"dw 7x7 C72", 2, 72, 9, 10, 72, 7, 7, 1, 1, 3, 3, 3, 3, 1, 1, 72, true, true, false},
    // The strip kernel's plans (NHWC, C whole 16-byte pieces in every dtype): rows that end in a
    // partial strip, asymmetric padding, a gate; 520 channels split over three blocks of pieces
    // (f16: 65 pieces), the last one partial.
    {"dw 3x3 s2 C40", 2, 40, 13, 11, 40, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 40, true, true, true},
    {"dw 5x5 C48 gated", 1, 48, 9, 13, 48, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, 48, true, false, true},
    {"dw 5x5 s2 C16", 2, 16, 14, 15, 16, 5, 5, 2, 2, 2, 2, 1, 2, 1, 1, 16, false, true, false},
    {"dw 7x7 s2 C24", 1, 24, 17, 19, 24, 7, 7, 2, 2, 3, 3, 3, 3, 1, 1, 24, true, false, false},
    {"dw 3x3 C520", 1, 520, 5, 6, 520, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 520, true, true, false},
};

// 16-bit NHWC shapes for each tile shape of the pipelined kernel named explicitly (kAuto picks
// 64 x 64 for the small cases above): several tiles in M with a partial last one, partial tiles
// in N, C below the 32-wide K step (several taps a step), K not a multiple of 32, stride,
// padding, dilation, and a long K that splits over a cluster on sm_90.
const ConvCase kPipelinedCases[] = {
    {"3x3 C64", 2, 64, 21, 19, 96, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true, true, false},
    {"3x3 C24 stride 2", 3, 24, 23, 17, 136, 3, 3, 2, 2, 1, 1, 0, 1, 1, 1, 1, true, false, false},
    {"1x1 C200", 2, 200, 13, 11, 72, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, false, true, false},
    {"3x3 C16 dilated", 1, 16, 30, 26, 64, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1, true, true, false},
    {"3x3 C512 long K", 1, 512, 7, 7, 128, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true, false, false},
    // Gated (squeeze-and-excitation's 1x1, and a 3x3 whose padding must stay zero): the gate
    // applied to A in shared memory.
    {"1x1 C64 gated", 2, 64, 9, 11, 72, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, true, true, true},
    {"3x3 C16 gated", 2, 16, 12, 10, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true, false, true},
};

template <typename T, IgemmTiles kTiles>
void check_pipelined_tiles() {
  for (const ConvCase& k : kPipelinedCases) check_case<T, true, Relu, kTiles>(k, Path::kIgemm);
  // Misaligned x: the named tiles fall back to the staged kernel's scalar loads.
  check_case<T, true, NoAct, kTiles>(kPipelinedCases[0], Path::kIgemm, 1);
}

template <typename T>
void check_pipelined() {
  check_pipelined_tiles<T, IgemmTiles::kPipe64x64>();
  check_pipelined_tiles<T, IgemmTiles::kPipe128x64>();
  check_pipelined_tiles<T, IgemmTiles::kPipe128x128>();
#if INFERNO_TEST_WGMMA  // only an sm_90a-only binary may name them (conv_sm90a_main.cu)
  check_pipelined_tiles<T, IgemmTiles::kWgmma128x64>();
  check_pipelined_tiles<T, IgemmTiles::kWgmma128x128>();
#endif
}

template <typename T, bool kNhwc>
void check_layout() {
  for (const ConvCase& k : kGemmCases) check_case<T, kNhwc, Relu>(k, Path::kIgemm);
  for (const ConvCase& k : kDepthwiseCases) {
    check_case<T, kNhwc, Relu>(k, Path::kDepthwise);
    check_case<T, kNhwc, Relu>(k, Path::kDepthwiseStrip);
  }
  // The scalar-load path on a shape that would take the vector one; for depthwise, the element
  // kernel where the strip kernel's plan fits the shape but not the pointer.
  check_case<T, kNhwc, NoAct>(kGemmCases[4], Path::kIgemm, 1);
  check_case<T, kNhwc, NoAct>(kDepthwiseCases[3], Path::kDepthwiseStrip, 1);
}

/// Other activations (the kernels apply whatever functor they are given, after bias and residual)
/// on one case with every epilogue operand, on each kernel.
template <typename T, bool kNhwc>
void check_activations() {
  check_case<T, kNhwc, Silu>(kGemmCases[4], Path::kIgemm);
  check_case<T, kNhwc, GeluTanh>(kGemmCases[4], Path::kIgemm);
  check_case<T, kNhwc, Silu>(kDepthwiseCases[0], Path::kDepthwise);
  check_case<T, kNhwc, GeluTanh>(kDepthwiseCases[1], Path::kDepthwise);
  check_case<T, kNhwc, Silu>(kDepthwiseCases[5], Path::kDepthwiseStrip);
}

void check_refusals() {
  Conv2dEpilogue<float> e;
  Conv2dShape grouped = shape_of(kGemmCases[0]);
  grouped.c = 4, grouped.o = 6, grouped.groups = 2;
  expect(inferno::kernels::conv2d_igemm<float>(nullptr, nullptr, e, nullptr, grouped, g_stream) ==
             cudaErrorInvalidValue,
         "igemm refuses groups > 1");
  // A plan that is not the shape's (a codegen bug) is refused, never run with the wrong loads.
  Conv2dShape nchw = shape_of(kGemmCases[0]);
  nchw.nhwc = false;
  expect(inferno::kernels::conv2d_igemm<float, inferno::kernels::IgemmPlan::kNhwcVecAW>(
             nullptr, nullptr, e, nullptr, nchw, g_stream) == cudaErrorInvalidValue,
         "igemm refuses a plan of the other layout");
  // Pipelined tiles named for a call that cannot take them: another dtype.
  Conv2dShape nhwc = shape_of(kPipelinedCases[0]);
  nhwc.nhwc = true;
  expect(inferno::kernels::conv2d_igemm<float, IgemmPlan::kNhwcVecAW, IgemmTiles::kPipe64x64>(
             nullptr, nullptr, e, nullptr, nhwc, g_stream) == cudaErrorInvalidValue,
         "igemm refuses pipelined tiles for f32");
  expect(inferno::kernels::conv2d_depthwise<float>(nullptr, nullptr, e, nullptr, grouped,
                                                   g_stream) == cudaErrorInvalidValue,
         "depthwise refuses groups != C");
  Conv2dShape dw7 = shape_of(kDepthwiseCases[3]);
  dw7.nhwc = true;
  expect(inferno::kernels::conv2d_depthwise<float, inferno::kernels::DepthwisePlan::kStrip3x3s1>(
             nullptr, nullptr, e, nullptr, dw7, g_stream) == cudaErrorInvalidValue,
         "depthwise refuses a strip plan of another window");
}

}  // namespace

void run_conv_tests() {
  check_layout<float, true>();
  check_layout<float, false>();
  check_layout<__half, true>();
  check_layout<__half, false>();
  check_layout<__nv_bfloat16, true>();
  check_layout<__nv_bfloat16, false>();
  check_layout<double, false>();
  check_pipelined<__half>();
  check_pipelined<__nv_bfloat16>();
  check_activations<float, true>();
  check_activations<__half, false>();
  check_activations<__nv_bfloat16, true>();
  check_refusals();
}

}  // namespace kernels_test
