// choose_conv_kernel: which kernel each conv2d shape gets (codegen/conv_kernel_choice.h).
#include <string>

#include "codegen/conv_kernel_choice.h"
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

}  // namespace
}  // namespace inferno::codegen
