// The conv kernel tests (kernels_conv_test.cu) built for sm_90a alone, with INFERNO_TEST_WGMMA:
// the same checks as `test_gpu_kernels conv`, plus every wgmma tile shape, which only code built
// for sm_90a and no plain sm_90 may name (kernels/conv_igemm_plan.h). Skips (77) without a GPU of
// compute capability 9.0, the only one an sm_90a binary runs on.
#include <cstdio>

#include "kernels_test_support.cuh"

namespace kernels_test {
void run_conv_tests();
}  // namespace kernels_test

int main() {
  using namespace kernels_test;
  int devices = 0, major = 0, minor = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIPPED: no CUDA device\n");
    return 77;
  }
  KT_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  KT_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
  if (major != 9 || minor != 0) {
    std::printf("SKIPPED: compute capability %d.%d, not 9.0\n", major, minor);
    return 77;
  }
  KT_CUDA(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
  run_conv_tests();
  KT_CUDA(cudaStreamDestroy(g_stream));
  std::printf("%s: %d checks, %d failed\n", g_failures == 0 ? "PASSED" : "FAILED", g_checks,
              g_failures);
  return g_failures == 0 ? 0 : 1;
}
