// choose_conv_kernel: which kernel each conv2d shape gets (codegen/conv_kernel_choice.h), and
// igemm_plan: which variant of the implicit GEMM (kernels/conv_igemm_plan.h).
#include <string>

#include "codegen/conv_kernel_choice.h"
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

}  // namespace
}  // namespace inferno::codegen
