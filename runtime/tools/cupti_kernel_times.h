// Kernel durations from CUPTI's activity records, tied to profile steps by external correlation
// ids: what `inferno-run --profile` reports per step when CUPTI is there. CUDA events around each
// step, the fallback, add their own cost (a few microseconds per step on the GPU), which at batch 1
// is a large share of a small kernel; CUPTI's records are the kernels' own start and end times.
//
// libcupti is loaded with dlopen at run time (INFERNO_CUPTI_LIB names it; else the usual
// sonames, then CUDA_HOME's and /usr/local/cuda's extras/CUPTI/lib64), so inferno-run needs
// neither CUPTI to build nor to start. One recorder at a time per process (CUPTI's buffer
// callbacks are process-wide).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace inferno::run {

/// The kernels (and copies and memsets) CUPTI recorded under one external id.
struct KernelSpan {
  uint64_t kernel_ns = 0;  ///< summed durations
  uint64_t first_start_ns = 0, last_end_ns = 0;
  int32_t kernels = 0;
};

class CuptiKernelTimes {
 public:
  /// Loads CUPTI and starts recording kernels and external correlations; nullptr with `why_not`
  /// set when it cannot (no library, an older CUPTI than the headers this was built with, a
  /// refused call, or built without CUPTI's headers).
  static std::unique_ptr<CuptiKernelTimes> start(std::string& why_not);

  ~CuptiKernelTimes();
  CuptiKernelTimes(const CuptiKernelTimes&) = delete;
  CuptiKernelTimes& operator=(const CuptiKernelTimes&) = delete;

  /// Kernels launched from this thread between push(id) and pop() carry `id` (id > 0).
  void push(uint64_t id);
  void pop();

  /// Waits for the recorded kernels (the caller has synchronized the GPU), stops recording and
  /// returns them by external id. False with `error` set when CUPTI failed or dropped records.
  bool finish(std::map<uint64_t, KernelSpan>& spans, std::string& error);

 private:
  CuptiKernelTimes() = default;
  struct Library;
  std::unique_ptr<Library> lib_;
  bool finished_ = false;
};

}  // namespace inferno::run
