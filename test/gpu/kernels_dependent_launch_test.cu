// Programmatic dependent launch (kernels/dependent_launch.cuh): chains of kernels launched with the
// attribute give the bits of the same chain launched normally, eagerly and replayed from a CUDA
// graph. The chains are built to fail if a kernel ran ahead of its wait: each step reads the
// buffer the step before wrote (read after write) and overwrites the buffer the step before read
// (write after read), over many blocks; GEMV steps (which load weights before their wait) take
// the previous step's output as x and, in place, as the residual. Also: the availability check
// (true on sm_90 with sm_90 code; INFERNO_DEPENDENT_LAUNCH=0 turns it off).
#include <cstdlib>

#include "kernels/dependent_launch.cuh"
#include "kernels/gemv.cuh"
#include "kernels_test_support.cuh"

namespace kernels_test {
namespace {

namespace k = inferno::kernels;

constexpr int64_t kElements = 1 << 20;   // 4096 blocks of 256: many waves
constexpr int64_t kN = 2048, kK = 2048;  // the GEMV's weight: 8 MB of f16
constexpr int kSteps = 24;

/// out[i] = in[i] * 0.5 + i-th step's offset, after the wait (a generated grid kernel's shape).
__global__ void scale_add(const float* in, float* out, int64_t n, float offset) {
  k::await_producers();
  for (int64_t i = blockIdx.x * 256 + threadIdx.x; i < n; i += int64_t{gridDim.x} * 256)
    out[i] = in[i] * 0.5f + offset;
}

/// y = W x + y (in place) for one row of x: the GEMV codegen emits, weights loaded before the
/// wait.
__global__ void __launch_bounds__(k::kGemvNkThreads)
    gemv_step(const __half* x, const __half* w, __half* out) {
  const k::GemvEpilogue<__half> epilogue{1.0f / 64, nullptr, 1.0f, out, 0.5f};
  k::gemv_nk<__half, 1, k::gemv_pack<__half>(kK), k::gemv_nk_lanes<__half>(kK)>(
      x, w, kN, kK, out, epilogue, k::GemvNoActivation{});
}

/// x[i] = tanh(y[i]) for the next GEMV step (N = K).
__global__ void squash(const __half* in, __half* out, int64_t n) {
  k::await_producers();
  for (int64_t i = blockIdx.x * 256 + threadIdx.x; i < n; i += int64_t{gridDim.x} * 256)
    out[i] = __float2half(tanhf(__half2float(in[i])));
}

struct Buffers {
  DeviceBuffer<float> a{kElements}, b{kElements};
  DeviceBuffer<__half> x{kK}, y{kN}, w{kN * kK};
};

/// The chain: kSteps elementwise steps ping-ponging a <-> b, then kSteps GEMV + squash pairs.
cudaError_t launch_chain(Buffers& buffers, bool dependent) {
  const unsigned blocks = static_cast<unsigned>(kElements / 256);
  for (int s = 0; s < kSteps; ++s) {
    const float* in = s % 2 == 0 ? buffers.a.get() : buffers.b.get();
    float* out = s % 2 == 0 ? buffers.b.get() : buffers.a.get();
    const cudaError_t e = k::launch_kernel(dependent, scale_add, blocks, 256, 0, g_stream, in, out,
                                           kElements, static_cast<float>(s));
    if (e != cudaSuccess) return e;
  }
  for (int s = 0; s < kSteps; ++s) {
    cudaError_t e =
        k::launch_kernel(dependent, gemv_step, k::gemv_nk_blocks<__half>(kN, kK), k::kGemvNkThreads,
                         0, g_stream, buffers.x.get(), buffers.w.get(), buffers.y.get());
    if (e == cudaSuccess) {
      e = k::launch_kernel(dependent, squash, static_cast<unsigned>(kN / 256), 256, 0, g_stream,
                           buffers.y.get(), buffers.x.get(), kN);
    }
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

struct Results {
  std::vector<float> a;
  std::vector<__half> y;
};

/// Resets the inputs, runs the chain (eagerly or as a graph replayed twice from the same
/// inputs), and returns the final buffers.
Results run_chain(Buffers& buffers, const std::vector<float>& a0, const std::vector<__half>& x0,
                  bool dependent, bool graph, const std::string& what) {
  auto reset = [&] {
    KT_CUDA(cudaStreamSynchronize(g_stream));  // the uploads do not wait for g_stream's work
    buffers.a.upload(a0);
    buffers.b.poison();
    buffers.x.upload(x0);
    KT_CUDA(cudaMemset(buffers.y.get(), 0, buffers.y.bytes()));
    KT_CUDA(cudaDeviceSynchronize());
  };
  reset();
  if (!graph) {
    expect_launch(launch_chain(buffers, dependent), what + ": launched");
  } else {
    cudaGraph_t captured = nullptr;
    KT_CUDA(cudaStreamBeginCapture(g_stream, cudaStreamCaptureModeGlobal));
    const cudaError_t launched = launch_chain(buffers, dependent);
    const cudaError_t ended = cudaStreamEndCapture(g_stream, &captured);
    expect(launched == cudaSuccess && ended == cudaSuccess, what + ": captured",
           std::string(cudaGetErrorString(launched)) + ", " + cudaGetErrorString(ended));
    cudaGraphExec_t exec = nullptr;
    if (captured != nullptr) {
      KT_CUDA(cudaGraphInstantiate(&exec, captured, 0));
      for (int replay = 0; replay < 2; ++replay) {
        reset();
        KT_CUDA(cudaGraphLaunch(exec, g_stream));
      }
      KT_CUDA(cudaGraphExecDestroy(exec));
      KT_CUDA(cudaGraphDestroy(captured));
    }
  }
  KT_CUDA(cudaStreamSynchronize(g_stream));
  return {buffers.a.download(), buffers.y.download()};
}

void availability_tests() {
  int device = 0, major = 0;
  KT_CUDA(cudaGetDevice(&device));
  KT_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  cudaFuncAttributes attributes{};
  KT_CUDA(cudaFuncGetAttributes(&attributes, scale_add));
  const bool expected = major >= 9 && attributes.ptxVersion >= 90;
  const char* before = std::getenv("INFERNO_DEPENDENT_LAUNCH");
  unsetenv("INFERNO_DEPENDENT_LAUNCH");
  expect(k::dependent_launch_available() == expected, "available: compute capability " +
                                                          std::to_string(major) + ", PTX " +
                                                          std::to_string(attributes.ptxVersion));
  setenv("INFERNO_DEPENDENT_LAUNCH", "0", 1);
  expect(!k::dependent_launch_available(), "INFERNO_DEPENDENT_LAUNCH=0 turns it off");
  if (before != nullptr) {
    setenv("INFERNO_DEPENDENT_LAUNCH", before, 1);
  } else {
    unsetenv("INFERNO_DEPENDENT_LAUNCH");
  }
}

}  // namespace

void run_dependent_launch_tests() {
  availability_tests();
  std::mt19937_64 rng(23);
  const std::vector<float> a0 = random_values<float>(kElements, -4, 4, rng);
  const std::vector<__half> x0 = random_values<__half>(kK, -1, 1, rng);
  Buffers buffers;
  buffers.w.upload(random_values<__half>(kN * kK, -1, 1, rng));
  const Results want = run_chain(buffers, a0, x0, false, false, "normal launches");
  for (const bool graph : {false, true}) {
    const std::string what = std::string("dependent launches") + (graph ? ", graph" : ", eager");
    const Results got = run_chain(buffers, a0, x0, true, graph, what);
    expect_bitwise_equal(what + ": the elementwise chain", got.a, want.a);
    expect_bitwise_equal(what + ": the GEMV chain", got.y, want.y);
  }
}

}  // namespace kernels_test
