// cpp_app: loads a model.so, fills every input with a ramp of values, runs it once and prints the
// first values of every output. Floating-point inputs and outputs may be f32, or f16/bf16 (a model
// compiled with --precision fp16|bf16 --io-precision compute): the host converts from and to float.
// Usage: cpp_app model.so [device]
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include "inferno/runtime.hpp"

namespace {

// Device memory owned by the app (the runtime never allocates the caller's tensors).
struct DeviceBuffer {
  void* data = nullptr;
  explicit DeviceBuffer(size_t bytes) {
    if (cudaMalloc(&data, bytes) != cudaSuccess) throw std::runtime_error("cudaMalloc failed");
  }
  ~DeviceBuffer() { cudaFree(data); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

size_t element_count(const inferno_tensor_desc& desc) {
  size_t n = 1;
  for (int32_t k = 0; k < desc.rank; ++k) n *= static_cast<size_t>(desc.shape[k]);
  return n;
}

// float -> f16 / bf16 bits, rounding to nearest even (NaN and overflow handling kept short: the
// example's values are small and finite).
uint16_t to_f16(float value) {
  uint32_t bits = 0;
  std::memcpy(&bits, &value, 4);
  const uint32_t sign = (bits >> 16) & 0x8000u, magnitude = bits & 0x7fffffffu;
  if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);
  if (magnitude < 0x38800000u) {  // subnormal f16: let the FPU round value * 2^24
    const float units = std::ldexp(std::fabs(value), 24);
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(units)));
  }
  uint32_t half = ((magnitude >> 23) - 112u) << 10 | (magnitude & 0x7fffffu) >> 13;
  const uint32_t rest = magnitude & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u) != 0)) ++half;
  return static_cast<uint16_t>(sign | half);
}
uint16_t to_bf16(float value) {
  uint32_t bits = 0;
  std::memcpy(&bits, &value, 4);
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}
float from_f16(uint16_t h) {
  const float magnitude = (h & 0x7c00u) == 0 ? std::ldexp(static_cast<float>(h & 0x3ffu), -24)
                                             : std::ldexp(static_cast<float>((h & 0x3ffu) | 0x400u),
                                                          static_cast<int>((h >> 10) & 0x1fu) - 25);
  return (h & 0x8000u) != 0 ? -magnitude : magnitude;  // (no inf/NaN decoding: an example)
}
float from_bf16(uint16_t h) {
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f = 0;
  std::memcpy(&f, &bits, 4);
  return f;
}

bool is_float(int32_t dtype) {
  return dtype == INFERNO_DTYPE_F32 || dtype == INFERNO_DTYPE_F16 || dtype == INFERNO_DTYPE_BF16;
}

// The bytes of `values` in a float dtype of the model.
std::vector<unsigned char> encode(const std::vector<float>& values, int32_t dtype) {
  if (dtype == INFERNO_DTYPE_F32) {
    std::vector<unsigned char> bytes(values.size() * 4);
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
  }
  std::vector<unsigned char> bytes(values.size() * 2);
  for (size_t k = 0; k < values.size(); ++k) {
    const uint16_t h = dtype == INFERNO_DTYPE_F16 ? to_f16(values[k]) : to_bf16(values[k]);
    std::memcpy(bytes.data() + 2 * k, &h, 2);
  }
  return bytes;
}

std::vector<float> decode(const std::vector<unsigned char>& bytes, int32_t dtype) {
  if (dtype == INFERNO_DTYPE_F32) {
    std::vector<float> values(bytes.size() / 4);
    std::memcpy(values.data(), bytes.data(), bytes.size());
    return values;
  }
  std::vector<float> values(bytes.size() / 2);
  for (size_t k = 0; k < values.size(); ++k) {
    uint16_t h = 0;
    std::memcpy(&h, bytes.data() + 2 * k, 2);
    values[k] = dtype == INFERNO_DTYPE_F16 ? from_f16(h) : from_bf16(h);
  }
  return values;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s model.so [device]\n", argv[0]);
    return 2;
  }
  try {
    const inferno::Model model(argv[1], argc > 2 ? std::atoi(argv[2]) : 0);
    inferno::Session session(model);

    std::vector<std::unique_ptr<DeviceBuffer>> buffers;
    std::vector<inferno_tensor> inputs, outputs;
    for (int32_t i = 0; i < model.num_inputs(); ++i) {
      const inferno_tensor_desc desc = model.input(i);
      if (!is_float(desc.dtype))
        throw std::runtime_error("this example fills f32, f16 and bf16 inputs only");
      std::vector<float> values(element_count(desc));
      for (size_t k = 0; k < values.size(); ++k) values[k] = 0.01f * static_cast<float>(k % 100);
      const std::vector<unsigned char> bytes = encode(values, desc.dtype);
      buffers.push_back(std::make_unique<DeviceBuffer>(inferno::byte_size(desc)));
      cudaMemcpy(buffers.back()->data, bytes.data(), inferno::byte_size(desc),
                 cudaMemcpyHostToDevice);
      inputs.push_back(inferno::tensor(buffers.back()->data, desc));
    }
    for (int32_t i = 0; i < model.num_outputs(); ++i) {
      buffers.push_back(std::make_unique<DeviceBuffer>(inferno::byte_size(model.output(i))));
      outputs.push_back(inferno::tensor(buffers.back()->data, model.output(i)));
    }

    cudaStream_t stream = nullptr;
    cudaStreamCreate(&stream);
    session.run(stream, inputs, outputs);
    if (cudaStreamSynchronize(stream) != cudaSuccess)
      throw std::runtime_error("the run failed on the GPU");
    cudaStreamDestroy(stream);

    for (int32_t i = 0; i < model.num_outputs(); ++i) {
      const inferno_tensor_desc desc = model.output(i);
      std::printf("output %d '%s' (%zu elements)", i, desc.name, element_count(desc));
      if (is_float(desc.dtype)) {
        std::vector<unsigned char> bytes(inferno::byte_size(desc));
        cudaMemcpy(bytes.data(), outputs[i].data, bytes.size(), cudaMemcpyDeviceToHost);
        const std::vector<float> values = decode(bytes, desc.dtype);
        for (size_t k = 0; k < values.size() && k < 8; ++k) std::printf(" %g", values[k]);
      }
      std::printf("\n");
    }
  } catch (const inferno::Error& e) {
    std::fprintf(stderr, "cpp_app: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cpp_app: %s\n", e.what());
    return 1;
  }
  return 0;
}
