// The C API's own call time, for tools/bench/bench_python.py: inferno_session_run timed in C++
// inside the Python process that also times the same call through the binding, on the same
// session, tensors and stream, so that the difference is the binding's cost alone (the GPU, the
// process and its CUDA context are the same for both). Loaded with ctypes; one ctypes call runs
// the whole loop. Built with the runtime (runtime/CMakeLists.txt), shipped nowhere.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "inferno/runtime.h"

/// The median microseconds of inferno_session_run alone (its enqueue; the stream is synced after
/// each call, outside the timed span) over `iters` calls after `iters / 10` untimed ones; a
/// negative value when a call or a sync fails.
extern "C" __attribute__((visibility("default"))) double inferno_bench_run_enqueue_us(
    inferno_session* session, void* stream, const inferno_tensor* inputs, int32_t num_inputs,
    const inferno_tensor* outputs, int32_t num_outputs, int32_t iters) {
  if (iters <= 0) return -1;
  std::vector<double> micros;
  micros.reserve(static_cast<size_t>(iters));
  for (int32_t i = -(iters / 10); i < iters; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const inferno_status status =
        inferno_session_run(session, stream, inputs, num_inputs, outputs, num_outputs);
    const auto end = std::chrono::steady_clock::now();
    if (status != INFERNO_STATUS_OK) return -1;
    if (cudaStreamSynchronize(static_cast<cudaStream_t>(stream)) != cudaSuccess) return -1;
    if (i >= 0) micros.push_back(std::chrono::duration<double, std::micro>(end - start).count());
  }
  std::nth_element(micros.begin(), micros.begin() + iters / 2, micros.end());
  return micros[static_cast<size_t>(iters / 2)];
}

/// One inferno_session_run, for a Python loop to time through ctypes: the same loop around
/// inferno_bench_no_run (the same arguments, nothing called) gives what ctypes and the loop cost,
/// so that the difference is the C call's enqueue with Python's loop around it (its caches as
/// cold as the binding's calls find them).
extern "C" __attribute__((visibility("default"))) int32_t inferno_bench_run_once(
    inferno_session* session, void* stream, const inferno_tensor* inputs, int32_t num_inputs,
    const inferno_tensor* outputs, int32_t num_outputs) {
  return inferno_session_run(session, stream, inputs, num_inputs, outputs, num_outputs);
}

/// inferno_bench_run_once's arguments, and nothing done (the ctypes call's own cost).
extern "C" __attribute__((visibility("default"))) int32_t inferno_bench_no_run(
    inferno_session* /*session*/, void* /*stream*/, const inferno_tensor* /*inputs*/,
    int32_t /*num_inputs*/, const inferno_tensor* /*outputs*/, int32_t /*num_outputs*/) {
  return 0;
}
