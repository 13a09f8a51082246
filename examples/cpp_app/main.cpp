// cpp_app: loads a model.so, fills every input with a ramp of values, runs it once and prints the
// first values of every output. Usage: cpp_app model.so [device]
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
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
      if (desc.dtype != INFERNO_DTYPE_F32)
        throw std::runtime_error("this example fills f32 inputs only");
      std::vector<float> values(element_count(desc));
      for (size_t k = 0; k < values.size(); ++k) values[k] = 0.01f * static_cast<float>(k % 100);
      buffers.push_back(std::make_unique<DeviceBuffer>(inferno::byte_size(desc)));
      cudaMemcpy(buffers.back()->data, values.data(), inferno::byte_size(desc),
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
      if (desc.dtype == INFERNO_DTYPE_F32) {
        std::vector<float> values(element_count(desc));
        cudaMemcpy(values.data(), outputs[i].data, inferno::byte_size(desc),
                   cudaMemcpyDeviceToHost);
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
