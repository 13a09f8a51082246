// What one replay of a captured CUDA graph costs, launch plus sync as a caller sees it, on the
// stream kinds a caller may hand the runtime: a stream of its own, the legacy default stream
// (PyTorch's default), the per-thread default stream, and the legacy stream forked to a side
// stream and joined back with two events (what the runtime may do for a legacy caller). Graphs
// of 10 to 300 dependent one-block kernels, launched plainly and with programmatic dependent
// launch (the edges generated code has on sm_90), so the table shows whether a stream's cost
// grows with the graph. Each cell: the call with its sync, and in brackets the launch calls
// alone (the host's enqueue, which the GPU's execution can hide in the first figure).
//
// Build and run on a GPU machine:
//   nvcc -O2 -std=c++17 -arch=sm_90 -I. tools/bench/stream_replay_bench.cu -o /tmp/stream_replay &&
//   /tmp/stream_replay
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "bench_cuda_check.h"
#include "kernels/dependent_launch.cuh"

namespace {

constexpr int kCalls = 2000;

__global__ void step(const float* in, float* out, bool dependent) {
#if __CUDA_ARCH__ >= 900
  if (dependent) asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  if (threadIdx.x == 0) out[0] = in[0] + 1.0f;
}

cudaGraphExec_t capture(int kernels, bool dependent, float* a, float* b) {
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < kernels; ++i) {
    CHECK(inferno::kernels::launch_kernel(dependent, step, dim3(1), dim3(32), 0, stream,
                                          (i % 2) ? b : a, (i % 2) ? a : b, dependent));
  }
  cudaGraph_t graph;
  CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaStreamDestroy(stream));
  return exec;
}

enum class Way { kOwnStream, kLegacy, kLegacyDeviceSync, kPerThread, kLegacyForkJoin };

struct Streams {
  cudaStream_t own, side;
  cudaEvent_t fork, join;
};

// Enqueues one replay the way `way` says; returns the stream to sync.
cudaStream_t launch(Way way, cudaGraphExec_t exec, const Streams& s) {
  switch (way) {
    case Way::kOwnStream:
      CHECK(cudaGraphLaunch(exec, s.own));
      return s.own;
    case Way::kLegacy:
    case Way::kLegacyDeviceSync:
      CHECK(cudaGraphLaunch(exec, cudaStreamLegacy));
      return cudaStreamLegacy;
    case Way::kPerThread:
      CHECK(cudaGraphLaunch(exec, cudaStreamPerThread));
      return cudaStreamPerThread;
    case Way::kLegacyForkJoin:
      CHECK(cudaEventRecord(s.fork, cudaStreamLegacy));
      CHECK(cudaStreamWaitEvent(s.side, s.fork, 0));
      CHECK(cudaGraphLaunch(exec, s.side));
      CHECK(cudaEventRecord(s.join, s.side));
      CHECK(cudaStreamWaitEvent(cudaStreamLegacy, s.join, 0));
      return cudaStreamLegacy;
  }
  return s.own;
}

void sync(Way way, cudaStream_t stream) {
  if (way == Way::kLegacyDeviceSync) {
    CHECK(cudaDeviceSynchronize());
  } else {
    CHECK(cudaStreamSynchronize(stream));
  }
}

struct Timing {
  double call_us, enqueue_us;  // medians: launch + sync; the launch calls alone
};

Timing median_call(Way way, cudaGraphExec_t exec, const Streams& s) {
  for (int i = 0; i < 50; ++i) sync(way, launch(way, exec, s));
  std::vector<double> total, enqueue;
  const auto since = [](std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
        .count();
  };
  for (int i = 0; i < kCalls; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const cudaStream_t stream = launch(way, exec, s);
    enqueue.push_back(since(start));
    sync(way, stream);
    total.push_back(since(start));
  }
  std::nth_element(total.begin(), total.begin() + kCalls / 2, total.end());
  std::nth_element(enqueue.begin(), enqueue.begin() + kCalls / 2, enqueue.end());
  return {total[kCalls / 2], enqueue[kCalls / 2]};
}

}  // namespace

int main() {
  float *a, *b;
  CHECK(cudaMalloc(&a, sizeof(float)));
  CHECK(cudaMalloc(&b, sizeof(float)));
  CHECK(cudaMemset(a, 0, sizeof(float)));
  CHECK(cudaMemset(b, 0, sizeof(float)));
  Streams s;
  CHECK(cudaStreamCreateWithFlags(&s.own, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s.side, cudaStreamNonBlocking));
  CHECK(cudaEventCreateWithFlags(&s.fork, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&s.join, cudaEventDisableTiming));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf(
      "%s: median us per graph replay + sync (%d calls), by the caller's stream; in brackets "
      "the launch calls alone (the host's enqueue)\n\n",
      prop.name, kCalls);
  std::printf(
      "| kernels | dependent launch | own stream | legacy | legacy, device sync | per-thread | "
      "legacy forked to a side stream |\n|---|---|---|---|---|---|---|\n");
  for (const int kernels : {10, 50, 100, 300}) {
    for (const bool dependent : {false, true}) {
      const cudaGraphExec_t exec = capture(kernels, dependent, a, b);
      std::printf("| %d | %s |", kernels, dependent ? "yes" : "no");
      for (const Way way : {Way::kOwnStream, Way::kLegacy, Way::kLegacyDeviceSync, Way::kPerThread,
                            Way::kLegacyForkJoin}) {
        const Timing t = median_call(way, exec, s);
        std::printf(" %.1f (%.1f) |", t.call_us, t.enqueue_us);
      }
      std::printf("\n");
      CHECK(cudaGraphExecDestroy(exec));
    }
  }
  return 0;
}
