// GPU test helpers: skipping cleanly without a device, device buffers, and the test model's
// tensors (x: f32[4,8] -> y: f32[4,8]).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdio>
#include <vector>

#include "inferno/runtime.h"
#include "support/catch.h"

namespace inferno::test {

/// Whether cudaGetDeviceCount reports at least one device.
bool has_cuda_device();

/// A device buffer of floats, freed on destruction.
class DeviceFloats {
 public:
  explicit DeviceFloats(size_t count);
  ~DeviceFloats();
  DeviceFloats(const DeviceFloats&) = delete;
  DeviceFloats& operator=(const DeviceFloats&) = delete;

  float* get() const { return data_; }
  void upload(const std::vector<float>& values);
  std::vector<float> download() const;
  /// Fills every byte with 0xff (a NaN pattern), to see whether anything wrote the buffer.
  void poison();

 private:
  float* data_ = nullptr;
  size_t count_;
};

/// The test model's f32[4,8] shape, and a tensor over `data` with it.
extern const int64_t kShape[2];
inferno_tensor f32_tensor(void* data);

/// Bitwise equality of float vectors (NaN patterns included).
bool same_bits(const std::vector<float>& a, const std::vector<float>& b);

/// A CUDA stream for one test, destroyed at the end.
class Stream {
 public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }
  void sync() const;

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace inferno::test

/// Skips the current test when there is no CUDA device: prints "SKIPPED: no CUDA device" (ctest
/// turns that into a skip) and then uses SKIP() on Catch2 3.x or returns early on 2.x.
#if defined(SKIP)
#define INFERNO_REQUIRE_GPU()                   \
  do {                                          \
    if (!inferno::test::has_cuda_device()) {    \
      std::printf("SKIPPED: no CUDA device\n"); \
      SKIP("no CUDA device");                   \
    }                                           \
  } while (0)
#else
#define INFERNO_REQUIRE_GPU()                   \
  do {                                          \
    if (!inferno::test::has_cuda_device()) {    \
      std::printf("SKIPPED: no CUDA device\n"); \
      WARN("SKIPPED: no CUDA device");          \
      return;                                   \
    }                                           \
  } while (0)
#endif

/// REQUIREs a CUDA call to succeed, naming it.
#define CUDA_REQUIRE(call)                                          \
  do {                                                              \
    const cudaError_t cuda_require_error_ = (call);                 \
    INFO(#call << ": " << cudaGetErrorString(cuda_require_error_)); \
    REQUIRE(cuda_require_error_ == cudaSuccess);                    \
  } while (0)
