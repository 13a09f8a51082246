#include "gpu_test_support.h"

#include <cstring>

namespace inferno::test {

const int64_t kShape[2] = {4, 8};

bool has_cuda_device() {
  static const bool present = [] {
    int count = 0;
    const bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
    cudaGetLastError();
    return ok;
  }();
  return present;
}

DeviceFloats::DeviceFloats(size_t count) : count_(count) {
  CUDA_REQUIRE(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(float)));
}

DeviceFloats::~DeviceFloats() { cudaFree(data_); }

void DeviceFloats::upload(const std::vector<float>& values) {
  REQUIRE(values.size() == count_);
  CUDA_REQUIRE(cudaMemcpy(data_, values.data(), count_ * sizeof(float), cudaMemcpyHostToDevice));
  // A copy from pageable memory may return before its DMA lands, and the legacy stream does not
  // order work on the non-blocking streams the tests run on: wait, so a run sees these values.
  CUDA_REQUIRE(cudaDeviceSynchronize());
}

std::vector<float> DeviceFloats::download() const {
  std::vector<float> values(count_);
  CUDA_REQUIRE(cudaMemcpy(values.data(), data_, count_ * sizeof(float), cudaMemcpyDeviceToHost));
  return values;
}

void DeviceFloats::poison() {
  CUDA_REQUIRE(cudaMemset(data_, 0xff, count_ * sizeof(float)));
  // Asynchronous on the legacy stream, which non-blocking streams do not wait for: a run on one
  // could otherwise write its output before the poison lands on it (seen under a loaded GPU).
  CUDA_REQUIRE(cudaDeviceSynchronize());
}

inferno_tensor f32_tensor(void* data) { return inferno_tensor{data, INFERNO_DTYPE_F32, 2, kShape}; }

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

Stream::Stream() { CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }

Stream::~Stream() {
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

void Stream::sync() const { CUDA_REQUIRE(cudaStreamSynchronize(stream_)); }

}  // namespace inferno::test
