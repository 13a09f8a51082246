// The standalone benchmarks' graph timing: a chain of launches captured into a graph, replayed
// several times on a stream, each replay between two events, and the median replay's time per
// launch it holds.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "bench_cuda_check.h"

/// The median over `replays` replays of `exec` (after one warm-up replay) of the replay's time in
/// microseconds over `launches`, the number of launches the graph holds.
inline float median_replay_us(cudaGraphExec_t exec, cudaStream_t stream, int replays,
                              int launches) {
  CHECK(cudaGraphLaunch(exec, stream));  // warm-up
  CHECK(cudaStreamSynchronize(stream));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<float> times;
  for (int r = 0; r < replays; ++r) {
    CHECK(cudaEventRecord(start, stream));
    CHECK(cudaGraphLaunch(exec, stream));
    CHECK(cudaEventRecord(stop, stream));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms * 1e3f / static_cast<float>(launches));
  }
  std::sort(times.begin(), times.end());
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return times[times.size() / 2];
}

/// The time per launch of `launches` calls launch(i, stream) (each returning a cudaError_t),
/// captured into one graph and replayed `replays` times (median_replay_us).
template <typename Launch>
float captured_chain_us(cudaStream_t stream, int launches, int replays, Launch launch) {
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < launches; ++i) CHECK(launch(i, stream));
  CHECK(cudaStreamEndCapture(stream, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  const float us = median_replay_us(exec, stream, replays, launches);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  return us;
}
