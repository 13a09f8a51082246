// test_gpu_kernels: every launcher in kernels/ against host computations, for f32, f16, bf16 and
// f64. Exits 0 when all checks pass, 1 when any fails, and 77 (ctest's skip) with "SKIPPED: no
// CUDA device" when there is no GPU. Building it instantiates every kernel template, so the build
// alone checks the kernels compile.
//
// This file also checks that the launchers can be captured into a CUDA graph (global capture
// mode, the strictest) and that replaying the graph gives the eager results bit for bit.
#include <algorithm>

#include "kernels/copy.cuh"
#include "kernels/reduction.cuh"
#include "kernels/softmax.cuh"
#include "kernels_test_support.cuh"

namespace kernels_test {

void run_graph_capture_tests() {
  namespace k = inferno::kernels;
  std::mt19937_64 rng(99);
  constexpr int64_t kRows = 64, kCols = 1000;
  const std::vector<float> input = random_values<float>(kRows * kCols, -4, 4, rng);
  DeviceBuffer<float> in(input);
  const int64_t shape[] = {kCols, kRows}, strides[] = {1, kCols};  // the transpose

  // Three outputs for the eager runs, three for the graph's.
  DeviceBuffer<float> eager_copy(kRows * kCols), eager_sum(kRows), eager_softmax(kRows * kCols);
  DeviceBuffer<float> graph_copy(kRows * kCols), graph_sum(kRows), graph_softmax(kRows * kCols);
  auto launch_all = [&](float* copy_out, float* sum_out, float* softmax_out) {
    cudaError_t errors[] = {
        k::strided_copy<float>(in.get(), copy_out, 2, shape, strides, kRows * kCols, g_stream),
        k::reduce_sum<float>(in.get(), sum_out, kRows, kCols, 1, 1.0f / kCols, g_stream),
        k::softmax<float>(in.get(), softmax_out, kRows, kCols, 1, false, g_stream),
    };
    for (cudaError_t e : errors) {
      if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
  };

  for (auto* buffer :
       {&eager_copy, &eager_softmax, &graph_copy, &graph_softmax, &eager_sum, &graph_sum}) {
    buffer->poison();
  }
  if (!expect_launch(launch_all(eager_copy.get(), eager_sum.get(), eager_softmax.get()),
                     "graph: eager run"))
    return;

  cudaGraph_t graph = nullptr;
  KT_CUDA(cudaStreamBeginCapture(g_stream, cudaStreamCaptureModeGlobal));
  const cudaError_t captured = launch_all(graph_copy.get(), graph_sum.get(), graph_softmax.get());
  const cudaError_t ended = cudaStreamEndCapture(g_stream, &graph);
  if (!expect(captured == cudaSuccess && ended == cudaSuccess, "graph: launchers captured",
              std::string(cudaGetErrorString(captured)) + ", " + cudaGetErrorString(ended))) {
    if (graph != nullptr) cudaGraphDestroy(graph);
    return;
  }
  cudaGraphExec_t exec = nullptr;
  KT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 2; ++replay) {
    KT_CUDA(cudaGraphLaunch(exec, g_stream));
    KT_CUDA(cudaStreamSynchronize(g_stream));
  }
  expect_bitwise_equal("graph: copy replay", graph_copy.download(), eager_copy.download());
  expect_bitwise_equal("graph: reduce_sum replay", graph_sum.download(), eager_sum.download());
  expect_bitwise_equal("graph: softmax replay", graph_softmax.download(), eager_softmax.download());
  KT_CUDA(cudaGraphExecDestroy(exec));
  KT_CUDA(cudaGraphDestroy(graph));
}

}  // namespace kernels_test

int main(int argc, char** argv) {
  using namespace kernels_test;
  // Arguments (for runs under compute-sanitizer): --skip-large leaves out the multi-GiB 64-bit
  // index cases; any other argument names a family to run (default: all).
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--skip-large") {
      g_skip_large = true;
    } else {
      only.push_back(arg);
    }
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIPPED: no CUDA device\n");
    return 77;
  }
  KT_CUDA(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
  const struct {
    const char* name;
    void (*run)();
  } families[] = {
      {"copy", run_copy_tests},
      {"reduction", run_reduction_tests},
      {"softmax", run_softmax_tests},
      {"elementwise", run_elementwise_tests},
      {"graph", run_graph_capture_tests},
      {"conv", run_conv_tests},
      {"norm", run_norm_tests},
      {"attention", run_attention_tests},
      {"attention_step", run_attention_step_tests},
      {"gemv", run_gemv_tests},
      {"gemv_norm", run_gemv_norm_tests},
      {"gemv_pairs", run_gemv_pairs_tests},
      {"dependent", run_dependent_launch_tests},
  };
  for (const auto& family : families) {
    if (!only.empty() && std::find(only.begin(), only.end(), family.name) == only.end()) continue;
    const int checks = g_checks, failures = g_failures;
    family.run();
    std::printf("%-12s %4d checks, %d failed\n", family.name, g_checks - checks,
                g_failures - failures);
  }
  KT_CUDA(cudaStreamDestroy(g_stream));
  std::printf("%s: %d checks, %d failed\n", g_failures == 0 ? "PASSED" : "FAILED", g_checks,
              g_failures);
  return g_failures == 0 ? 0 : 1;
}
