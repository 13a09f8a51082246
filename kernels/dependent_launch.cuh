// kernels/dependent_launch.cuh: programmatic dependent launch (PDL, sm_90 and later) for the
// kernels of a generated model.
//
// Why: in a decode step most kernels are small (a GEMV streams a few MB, a rotary or a cache
// write a few KB), so the gap between one kernel's end and the next one's first load (the launch,
// the blocks' start, one DRAM latency) is a large share of the step. A kernel launched with the
// programmatic-stream-serialization attribute may start before the kernel ahead of it in the
// stream has finished; it must then wait (griddepcontrol.wait) before it touches anything that
// kernel or an earlier one writes or reads. Until then it may only read what no kernel of the
// run writes: the weights. So a GEMV issues its first weight loads, then waits, and the next
// kernel's launch and its first DRAM round trip overlap the tail of the one before.
//
// The contract, kept by every kernel launched with `dependent` true:
//  - before await_producers() it reads nothing but constants (weights) and writes nothing;
//  - every thread that reads or writes run data calls await_producers() first. The wait returns
//    once the grids ahead of it have completed and their writes are visible; each of those called
//    it too, so the whole chain before is done.
// await_producers() also lets the next kernel's blocks launch (griddepcontrol.launch_dependents):
// only after this kernel's own wait, so at most one kernel waits ahead of the one running.
// A kernel launched without the attribute (a library kernel, cuBLASLt) serializes as usual, and a
// dependent kernel after it waits for it like for any other.
//
// The attribute is used only where the waits exist: on a device of compute capability 9.0 or
// later running machine code built from PTX of 9.0 or later (dependent_launch_available, asked
// once per session), and never in a profiled run (the profiler times each kernel alone).
// INFERNO_DEPENDENT_LAUNCH=0 in the environment turns it off, for comparisons.
#pragma once

#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>

namespace inferno::kernels {

/// Waits until the grids this one depends on have completed (their writes visible), then lets
/// the grid after this one launch. A no-op before sm_90 and in a kernel launched normally.
__device__ __forceinline__ void await_producers() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Both below have internal linkage (static, not an unnamed namespace: nvcc's host stubs cannot
// name a kernel in an unnamed namespace nested in a namespace a `using` directive opens).

/// An empty kernel compiled with the translation unit's flags: its PTX version says whether the
/// unit's kernels hold the waits. (One per unit: a unit's own kernels are what it launches.)
static __global__ void dependent_launch_probe() {}

/// Whether kernels of this translation unit may be launched with the dependent-launch attribute
/// on the current device: compute capability 9.0 or later, machine code from PTX 9.0 or later
/// (the waits are compiled in), and not turned off by INFERNO_DEPENDENT_LAUNCH=0. Asks the
/// driver; call it once (session_create), not per launch.
[[maybe_unused]] static bool dependent_launch_available() {
  const char* setting = std::getenv("INFERNO_DEPENDENT_LAUNCH");
  if (setting != nullptr && std::strcmp(setting, "0") == 0) return false;
  int device = 0, major = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) {
    cudaGetLastError();  // a failed query only means: launch normally
    return false;
  }
  cudaFuncAttributes attributes{};
  if (cudaFuncGetAttributes(&attributes, dependent_launch_probe) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return major >= 9 && attributes.ptxVersion >= 90;
}

/// kernel<<<grid, block, shared_bytes, stream>>>(args...), with the dependent-launch attribute
/// when `dependent` (the kernel keeps the contract above). Returns the launch's status.
template <typename... Params, typename... Args>
cudaError_t launch_kernel(bool dependent, void (*kernel)(Params...), dim3 grid, dim3 block,
                          size_t shared_bytes, cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = dependent ? 1 : 0;
  return cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...);
}

}  // namespace inferno::kernels
