// An IR graph compiled the way infernoc compiles it (codegen, then nvcc through the driver) into a
// model.so in a temporary directory, loaded by the runtime on device 0, and run on host tensors.
// For the GPU tests of generated code (codegen_gpu_test.cpp).
#pragma once

#include <string>
#include <vector>

#include "inferno/runtime.h"
#include "ir/graph.h"

namespace inferno::test {

/// Whether cudaGetDeviceCount reports at least one device.
bool has_cuda_device();

class CompiledModel {
 public:
  /// Compiles `graph` for device 0's arch and loads it; fails the current test on any error.
  explicit CompiledModel(const ir::Graph& graph);
  ~CompiledModel();
  CompiledModel(const CompiledModel&) = delete;
  CompiledModel& operator=(const CompiledModel&) = delete;

  /// One run on `inputs` (one per graph input, of its type): the graph outputs, copied back.
  std::vector<ir::Tensor> run(const std::vector<ir::Tensor>& inputs);
  /// The nodes of one run captured into a CUDA graph on the caller's stream, as "kernel" or
  /// another node type's name, in the graph's order (after a warm-up run).
  std::vector<std::string> captured_nodes(const std::vector<ir::Tensor>& inputs);
  /// Mean microseconds of one run replayed as a CUDA graph, over `replays` after a warm-up.
  double replay_microseconds(const std::vector<ir::Tensor>& inputs, int replays);

  const std::string& cuda_source() const { return cuda_source_; }

 private:
  /// Device copies of the inputs and output buffers (filled with NaNs) of one run.
  struct Buffers;
  void upload(Buffers& buffers, const std::vector<ir::Tensor>& inputs);
  /// Enqueues the model on `stream` (a cudaStream_t) over `buffers`.
  void enqueue(Buffers& buffers, void* stream);
  /// One run captured into a CUDA graph on a stream of its own, after a plain warm-up run.
  struct Capture;
  void capture(Capture& capture, const std::vector<ir::Tensor>& inputs);

  std::vector<ir::TensorType> input_types_, output_types_;
  std::string dir_;
  std::string cuda_source_;
  inferno_loaded_model* model_ = nullptr;
  inferno_session* session_ = nullptr;
};

}  // namespace inferno::test
