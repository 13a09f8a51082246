// A gate on a stream that the host opens: a profiled run enqueues every step, with the events its
// hook records around each, behind the gate, then opens it. The GPU then runs the steps back to
// back as in a graph replay, and each pair of events times its kernels rather than the host's
// launch gaps (without it, a step of a few microseconds is timed at the host's launch rate).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace inferno::runtime {

class HostGate {
 public:
  /// Allocates the mapped host word the gate's kernel polls. Throws Error when that fails.
  HostGate();
  ~HostGate();
  HostGate(const HostGate&) = delete;
  HostGate& operator=(const HostGate&) = delete;

  /// Enqueues on `stream` a one-thread kernel that waits until open() is called, or at most
  /// kTimeoutNs (so a host that cannot reach open(), e.g. blocked on a full launch queue or by a
  /// hook that waits for the GPU, loses time, never hangs). Throws Error when the launch fails.
  void close(cudaStream_t stream);
  /// Lets the kernel of the last close() finish.
  void open() noexcept;

  static constexpr uint64_t kTimeoutNs = 200'000'000;

 private:
  // Tickets, not a flag: each close() waits for its own number, so a new close() never needs to
  // reset a word that an earlier kernel may still be reading.
  volatile uint64_t* opened_ = nullptr;  // mapped host memory: the last ticket opened
  uint64_t ticket_ = 0;                  // the last ticket closed
};

}  // namespace inferno::runtime
