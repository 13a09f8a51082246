#include <atomic>

#include "runtime/cuda_util.h"
#include "runtime/error.h"
#include "runtime/host_gate.h"

namespace inferno::runtime {
namespace {

__device__ uint64_t global_ns() {
  uint64_t ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

__global__ void wait_for_host(const volatile uint64_t* opened, uint64_t ticket, uint64_t timeout) {
  const uint64_t start = global_ns();
  while (*opened < ticket && global_ns() - start < timeout) __nanosleep(1000);
}

}  // namespace

HostGate::HostGate() {
  void* word = nullptr;
  check_cuda(cudaHostAlloc(&word, sizeof(uint64_t), cudaHostAllocMapped | cudaHostAllocPortable),
             "cudaHostAlloc of a profiled run's gate");
  opened_ = static_cast<volatile uint64_t*>(word);
  *opened_ = 0;
}

HostGate::~HostGate() { cudaFreeHost(const_cast<uint64_t*>(opened_)); }

void HostGate::close(cudaStream_t stream) {
  ++ticket_;
  wait_for_host<<<1, 1, 0, stream>>>(opened_, ticket_, kTimeoutNs);
  check_cuda(cudaGetLastError(), "launching a profiled run's gate");
}

void HostGate::open() noexcept {
  std::atomic_thread_fence(std::memory_order_seq_cst);  // the launches before it are enqueued
  *opened_ = ticket_;
}

}  // namespace inferno::runtime
