// kernels/host_device.h: INFERNO_HD, the qualifiers of a small function that both the host
// compiler and nvcc (for host and device) compile.
#pragma once

#if defined(__CUDACC__)
#define INFERNO_HD __host__ __device__ __forceinline__
#else
#define INFERNO_HD inline
#endif
