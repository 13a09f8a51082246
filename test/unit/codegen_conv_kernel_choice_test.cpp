// choose_conv_kernel: which kernel each conv2d shape gets (codegen/conv_kernel_choice.h), and
// igemm_plan: which variant of the implicit GEMM (kernels/conv_igemm_plan.h).
#include <string>

#include "codegen/conv_kernel_choice.h"
#include "kernels/conv_depthwise_plan.h"
#include "kernels/conv_igemm_plan.h"
#include "support/catch.h"

namespace inferno::codegen {
namespace {

// A 3x3, stride 1, padding 1 conv of [n, c, hw, hw] to o channels in `groups` groups.
ConvSizes conv3x3(int64_t n, int64_t c, int64_t hw, int64_t o, int64_t groups) {
  return {n, c, hw, hw, o, 3, 3, hw, hw, 1, 1, 1, 1, 1, 1, groups};
}

std::string launcher(const ConvSizes& s) { return choose_conv_kernel(s).launcher; }

TEST_CASE("conv2d kernel choice: depthwise, implicit GEMM, or the direct kernel") {
  CHECK(launcher(conv3x3(1, 64, 56, 64, 1)) == "conv2d_igemm");
  CHECK(choose_conv_kernel(conv3x3(1, 64, 56, 64, 1)).header ==
        std::string("kernels/conv_igemm.cuh"));
  CHECK(launcher(conv3x3(8, 3, 224, 64, 1)) == "conv2d_igemm");
  CHECK(launcher(conv3x3(1, 32, 112, 32, 32)) == "conv2d_depthwise");
  CHECK(launcher(conv3x3(1, 32, 112, 64, 32)) == "conv2d_depthwise");  // channel multiplier 2
  CHECK(launcher(conv3x3(1, 1, 28, 16, 1)) == "conv2d_depthwise");     // C = groups = 1
  CHECK(launcher(conv3x3(1, 64, 28, 128, 4)) == "conv2d");             // grouped
  CHECK(launcher(conv3x3(1, 64, 28, 64, 2)) == "conv2d");
}

TEST_CASE("conv2d kernel choice: shapes beyond 32-bit indexing stay on the direct kernel") {
  ConvSizes wide = conv3x3(1, 4, 8, 8, 1);
  wide.w = wide.ow = int64_t{1} << 31;  // an input row longer than int32 indexes
  CHECK(launcher(wide) == "conv2d");
  ConvSizes deep = conv3x3(1, (int64_t{1} << 28) + 1, 1, 8, 1);  // K = 9 C > 2^31
  CHECK(launcher(deep) == "conv2d");
  ConvSizes many_out = conv3x3(1, 8, 8, 65535 * 64 + 1, 1);  // more channel tiles than grid.y
  CHECK(launcher(many_out) == "conv2d");
  ConvSizes dw_wide = conv3x3(1, 8, 8, 8, 8);
  dw_wide.h = dw_wide.oh = int64_t{1} << 31;
  CHECK(launcher(dw_wide) == "conv2d");
}

TEST_CASE("igemm_plan: vector loads where C and K are multiples of 16 bytes' elements") {
  using kernels::igemm_plan;
  using kernels::IgemmPlan;
  // f32 (4 per vector): the RGB stem's C = 3, K = 147 loads element by element in either layout.
  CHECK(igemm_plan(false, 3, 3 * 7 * 7, 4) == IgemmPlan::kNchw);
  CHECK(igemm_plan(true, 3, 3 * 7 * 7, 4) == IgemmPlan::kNhwc);
  // NCHW gathers A across pixels: only W's rows are vectors.
  CHECK(igemm_plan(false, 64, 64 * 9, 4) == IgemmPlan::kNchwVecW);
  CHECK(igemm_plan(true, 64, 64 * 9, 4) == IgemmPlan::kNhwcVecAW);
  // C = 6: K = 24 is a multiple of 4, C is not.
  CHECK(igemm_plan(true, 6, 6 * 2 * 2, 4) == IgemmPlan::kNhwcVecW);
  // f16 (8 per vector) and f64 (2).
  CHECK(igemm_plan(true, 8, 8 * 9, 2) == IgemmPlan::kNhwcVecAW);
  CHECK(igemm_plan(true, 4, 4 * 9, 2) == IgemmPlan::kNhwc);
  CHECK(igemm_plan(true, 2, 2 * 9, 8) == IgemmPlan::kNhwcVecAW);
  CHECK(igemm_plan(false, 3, 3 * 9, 8) == IgemmPlan::kNchw);
  // The plan's layout and loads, as the launcher instantiates them.
  CHECK(kernels::igemm_plan_nhwc(IgemmPlan::kNhwcVecW));
  CHECK_FALSE(kernels::igemm_plan_nhwc(IgemmPlan::kNchwVecW));
  CHECK(kernels::igemm_plan_vec_a(IgemmPlan::kNhwcVecAW));
  CHECK_FALSE(kernels::igemm_plan_vec_a(IgemmPlan::kNhwcVecW));
  CHECK(kernels::igemm_plan_vec_w(IgemmPlan::kNchwVecW));
  CHECK_FALSE(kernels::igemm_plan_vec_w(IgemmPlan::kNhwc));
  CHECK(std::string(kernels::igemm_plan_name(IgemmPlan::kNhwcVecAW)) == "kNhwcVecAW");
}

TEST_CASE("igemm_tiles: the largest pipelined tile that still gives every SM a block") {
  using kernels::igemm_tiles;
  using kernels::IgemmPlan;
  using kernels::IgemmTiles;
  constexpr int64_t kSms = 132;
  // Only 16-bit NHWC convolutions with 16-byte channel chunks are pipelined (a gate or not).
  CHECK(igemm_tiles(IgemmPlan::kNhwcVecAW, 4, 100352, 64, kSms) == IgemmTiles::kStaged);
  CHECK(igemm_tiles(IgemmPlan::kNhwc, 2, 100352, 64, kSms) == IgemmTiles::kStaged);
  CHECK(igemm_tiles(IgemmPlan::kNchwVecW, 2, 100352, 64, kSms) == IgemmTiles::kStaged);
  // ResNet-50 at batch 32: 3x3 64->64 at 56x56 (784 tiles of 128 x 64; O = 64 fills one),
  // 128->128 at 28x28 (196 tiles of 128 x 128), 512->512 at 7x7 (52 of 128 x 128, 104 of
  // 128 x 64: too few either way, so 64 x 64, which splits K where even those are few).
  CHECK(igemm_tiles(IgemmPlan::kNhwcVecAW, 2, 32 * 56 * 56, 64, kSms) == IgemmTiles::kPipe128x64);
  CHECK(igemm_tiles(IgemmPlan::kNhwcVecAW, 2, 32 * 28 * 28, 128, kSms) == IgemmTiles::kPipe128x128);
  CHECK(igemm_tiles(IgemmPlan::kNhwcVecAW, 2, 32 * 7 * 7, 512, kSms) == IgemmTiles::kPipe64x64);
  // Batch 1: 56x56 64->64 gives 25 tiles of 128 x 64: 64 x 64.
  CHECK(igemm_tiles(IgemmPlan::kNhwcVecAW, 2, 56 * 56, 64, kSms) == IgemmTiles::kPipe64x64);
  // An sm_90a build: the 128-row tiles are wgmma's; the 64 x 64 tile stays on mma.sync.
  CHECK(igemm_tiles(IgemmPlan::kNhwcVecAW, 2, 32 * 28 * 28, 128, kSms, true) ==
        IgemmTiles::kWgmma128x128);
  CHECK(igemm_tiles(IgemmPlan::kNhwcVecAW, 2, 32 * 56 * 56, 64, kSms, true) ==
        IgemmTiles::kWgmma128x64);
  CHECK(igemm_tiles(IgemmPlan::kNhwcVecAW, 2, 56 * 56, 64, kSms, true) == IgemmTiles::kPipe64x64);
  // 512 channels at 7x7, batch 32: 104 tiles of 128 x 64, more than half a wave.
  CHECK(igemm_tiles(IgemmPlan::kNhwcVecAW, 2, 32 * 7 * 7, 512, kSms, true) ==
        IgemmTiles::kWgmma128x64);
  CHECK(kernels::igemm_tiles_mma_sync(IgemmTiles::kWgmma128x64) == IgemmTiles::kPipe128x64);
  CHECK(kernels::igemm_tiles_pipelined(IgemmTiles::kWgmma128x128));
  CHECK(kernels::igemm_tiles_pipelined(IgemmTiles::kPipe64x64));
  CHECK_FALSE(kernels::igemm_tiles_pipelined(IgemmTiles::kStaged));
  CHECK_FALSE(kernels::igemm_tiles_pipelined(IgemmTiles::kAuto));
  CHECK(std::string(kernels::igemm_tiles_name(IgemmTiles::kPipe128x64)) == "kPipe128x64");
}

TEST_CASE("depthwise_plan: the strip kernel for square 3, 5 and 7 windows of stride 1 or 2") {
  using kernels::depthwise_plan;
  using kernels::DepthwisePlan;
  // MobileNet's and EfficientNet's 3x3 and 5x5, ConvNeXt's 7x7 (NHWC, one output per channel).
  CHECK(depthwise_plan(true, 96, 96, 7, 7, 1, 1, 1, 1) == DepthwisePlan::kStrip7x7s1);
  CHECK(depthwise_plan(true, 144, 144, 3, 3, 2, 2, 1, 1) == DepthwisePlan::kStrip3x3s2);
  CHECK(depthwise_plan(true, 240, 240, 5, 5, 1, 1, 1, 1) == DepthwisePlan::kStrip5x5s1);
  // Everything else stays on the generic kernels: NCHW, a channel multiplier, a non-square
  // window or stride, dilation, stride 3, a 9x9 window.
  CHECK(depthwise_plan(false, 96, 96, 7, 7, 1, 1, 1, 1) == DepthwisePlan::kGeneric);
  CHECK(depthwise_plan(true, 16, 32, 3, 3, 1, 1, 1, 1) == DepthwisePlan::kGeneric);
  CHECK(depthwise_plan(true, 16, 16, 3, 5, 1, 1, 1, 1) == DepthwisePlan::kGeneric);
  CHECK(depthwise_plan(true, 16, 16, 3, 3, 1, 2, 1, 1) == DepthwisePlan::kGeneric);
  CHECK(depthwise_plan(true, 16, 16, 3, 3, 1, 1, 2, 2) == DepthwisePlan::kGeneric);
  CHECK(depthwise_plan(true, 16, 16, 3, 3, 3, 3, 1, 1) == DepthwisePlan::kGeneric);
  CHECK(depthwise_plan(true, 16, 16, 9, 9, 1, 1, 1, 1) == DepthwisePlan::kGeneric);
  CHECK(kernels::depthwise_plan_taps(DepthwisePlan::kStrip5x5s2) == 5);
  CHECK(kernels::depthwise_plan_stride(DepthwisePlan::kStrip5x5s2) == 2);
  CHECK(kernels::depthwise_plan_taps(DepthwisePlan::kGeneric) == 0);
  CHECK(std::string(kernels::depthwise_plan_name(DepthwisePlan::kStrip3x3s1)) == "kStrip3x3s1");
}

TEST_CASE("depthwise_strips_pay: strips where they leave the GPU enough threads") {
  using kernels::depthwise_strips_pay;
  // ConvNeXt-Tiny's first 7x7 in f16: 56 * 14 strips times 12 pieces a image: 9,408 threads at
  // batch 1 (too few), 301,056 at batch 32.
  CHECK_FALSE(depthwise_strips_pay(1, 56, 56, 96, 2));
  CHECK(depthwise_strips_pay(32, 56, 56, 96, 2));
  // A partial last strip counts as a strip (61 pixels: 16 strips a row); a piece holds 8 f16
  // channels or 4 f32 ones. At the bound exactly (32,768 threads) strips pay.
  CHECK_FALSE(depthwise_strips_pay(1, 64, 61, 248, 2));  // 64 * 16 * 31 = 31,744
  CHECK(depthwise_strips_pay(1, 64, 61, 256, 2));        // 64 * 16 * 32 = 32,768
  CHECK(depthwise_strips_pay(1, 64, 61, 128, 4));        // 64 * 16 * 32 = 32,768
  CHECK_FALSE(depthwise_strips_pay(1, 64, 61, 64, 4));   // 64 * 16 * 16 = 16,384
}

}  // namespace
}  // namespace inferno::codegen
