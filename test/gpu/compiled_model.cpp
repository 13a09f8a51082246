#include "compiled_model.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>

#include "codegen/codegen.h"
#include "driver/build.h"
#include "passes/legalize.h"
#include "support/catch.h"

namespace inferno::test {
namespace {

#define CUDA_REQUIRE(call)                                          \
  do {                                                              \
    const cudaError_t cuda_require_error_ = (call);                 \
    INFO(#call << ": " << cudaGetErrorString(cuda_require_error_)); \
    REQUIRE(cuda_require_error_ == cudaSuccess);                    \
  } while (0)

#define RUNTIME_REQUIRE(call)                      \
  do {                                             \
    const inferno_status runtime_status_ = (call); \
    INFO(#call << ": " << inferno_last_error());   \
    REQUIRE(runtime_status_ == INFERNO_STATUS_OK); \
  } while (0)

int32_t dtype_enum(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::kF32:
      return INFERNO_DTYPE_F32;
    case ir::DType::kF16:
      return INFERNO_DTYPE_F16;
    case ir::DType::kBF16:
      return INFERNO_DTYPE_BF16;
    case ir::DType::kF64:
      return INFERNO_DTYPE_F64;
    case ir::DType::kI64:
      return INFERNO_DTYPE_I64;
    case ir::DType::kI32:
      return INFERNO_DTYPE_I32;
    case ir::DType::kBool:
      return INFERNO_DTYPE_BOOL;
  }
  return -1;
}

inferno_tensor tensor_desc(void* data, const ir::TensorType& type) {
  return {data, dtype_enum(type.dtype), static_cast<int32_t>(type.rank()), type.shape.data()};
}

std::string node_type_name(cudaGraphNodeType type) {
  switch (type) {
    case cudaGraphNodeTypeKernel:
      return "kernel";
    case cudaGraphNodeTypeMemcpy:
      return "memcpy";
    case cudaGraphNodeTypeMemset:
      return "memset";
    case cudaGraphNodeTypeEmpty:
      return "empty";
    default:
      return "other (" + std::to_string(static_cast<int>(type)) + ")";
  }
}

}  // namespace

bool has_cuda_device() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

struct CompiledModel::Buffers {
  std::vector<void*> inputs, outputs;
  std::vector<inferno_tensor> input_descs, output_descs;
  ~Buffers() {
    for (void* p : inputs) cudaFree(p);
    for (void* p : outputs) cudaFree(p);
  }
};

CompiledModel::CompiledModel(const ir::Graph& graph) {
  for (const ir::ValueId v : graph.inputs()) input_types_.push_back(graph.type(v));
  for (const ir::ValueId v : graph.outputs()) output_types_.push_back(graph.type(v));
  cudaDeviceProp properties{};
  CUDA_REQUIRE(cudaGetDeviceProperties(&properties, 0));
  const int cc = properties.major * 10 + properties.minor;

  auto toolchain = driver::check_toolchain(driver::NvccSearch::from_environment(""));
  INFO((toolchain ? "" : toolchain.status().to_string()));
  REQUIRE(toolchain.has_value());
  auto sources = driver::find_source_dirs();
  INFO((sources ? "" : sources.status().to_string()));
  REQUIRE(sources.has_value());

  codegen::CodegenOptions options;
  options.target.sm_archs = {cc};
  options.source_model_hash = "0";
  options.cuda_version = toolchain->version.to_string();
  // As the CLI does: codegen sees legalized graphs (the -O0 forms linear, addmm and matmul
  // become gemm).
  ir::Graph legal = graph;
  REQUIRE(passes::legalize(legal, {}).is_ok());
  auto generated = codegen::generate(legal, options);
  INFO((generated ? "" : generated.status().to_string()));
  REQUIRE(generated.has_value());
  cuda_source_ = generated->cuda_source;

  char pattern[] = "/tmp/inferno_gpu_codegen_XXXXXX";
  REQUIRE(mkdtemp(pattern) != nullptr);
  dir_ = pattern;
  driver::BuildOptions build;
  build.toolchain = *toolchain;
  build.source_dirs = *sources;
  build.archs = {driver::SmArch{cc, false}};
  build.output = dir_ + "/model.so";
  const Status built = driver::build_shared_object(*generated, build);
  INFO(built.to_string());
  REQUIRE(built.is_ok());

  RUNTIME_REQUIRE(inferno_model_load(build.output.c_str(), 0, &model_));
  inferno_session_options session_options{};
  RUNTIME_REQUIRE(inferno_session_options_default(&session_options));
  session_options.use_cuda_graph = 0;  // plain launches; captured_nodes captures them itself
  RUNTIME_REQUIRE(inferno_session_create(model_, &session_options, &session_));
}

CompiledModel::~CompiledModel() {
  inferno_session_destroy(session_);
  inferno_model_unload(model_);
  if (!dir_.empty()) driver::remove_tree(dir_);
}

void CompiledModel::upload(Buffers& buffers, const std::vector<ir::Tensor>& inputs) {
  REQUIRE(inputs.size() == input_types_.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    REQUIRE(inputs[i].type == input_types_[i]);
    void* data = nullptr;
    CUDA_REQUIRE(cudaMalloc(&data, std::max<size_t>(inputs[i].data.size(), 1)));
    buffers.inputs.push_back(data);
    CUDA_REQUIRE(
        cudaMemcpy(data, inputs[i].data.data(), inputs[i].data.size(), cudaMemcpyHostToDevice));
    buffers.input_descs.push_back(tensor_desc(data, input_types_[i]));
  }
  for (const ir::TensorType& type : output_types_) {
    void* data = nullptr;
    CUDA_REQUIRE(cudaMalloc(&data, std::max<size_t>(static_cast<size_t>(type.size_bytes()), 1)));
    CUDA_REQUIRE(
        cudaMemset(data, 0xff, static_cast<size_t>(type.size_bytes())));  // NaNs until written
    buffers.outputs.push_back(data);
    buffers.output_descs.push_back(tensor_desc(data, type));
  }
}

void CompiledModel::enqueue(Buffers& buffers, void* stream) {
  RUNTIME_REQUIRE(inferno_session_run(session_, stream, buffers.input_descs.data(),
                                      static_cast<int32_t>(buffers.input_descs.size()),
                                      buffers.output_descs.data(),
                                      static_cast<int32_t>(buffers.output_descs.size())));
}

std::vector<ir::Tensor> CompiledModel::run(const std::vector<ir::Tensor>& inputs) {
  Buffers buffers;
  upload(buffers, inputs);
  enqueue(buffers, nullptr);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  std::vector<ir::Tensor> outputs;
  for (size_t j = 0; j < output_types_.size(); ++j) {
    ir::Tensor out = ir::Tensor::zeros(output_types_[j]);
    CUDA_REQUIRE(
        cudaMemcpy(out.data.data(), buffers.outputs[j], out.data.size(), cudaMemcpyDeviceToHost));
    outputs.push_back(std::move(out));
  }
  return outputs;
}

// One run of `model` captured on a stream of its own into a graph; destroyed with the capture.
struct CompiledModel::Capture {
  cudaStream_t stream = nullptr;
  cudaGraph_t graph = nullptr;
  Buffers buffers;
  ~Capture() {
    if (graph != nullptr) cudaGraphDestroy(graph);
    if (stream != nullptr) cudaStreamDestroy(stream);
  }
};

void CompiledModel::capture(Capture& capture, const std::vector<ir::Tensor>& inputs) {
  run(inputs);  // cuBLASLt's lazy set-up happens outside the capture
  CUDA_REQUIRE(cudaStreamCreateWithFlags(&capture.stream, cudaStreamNonBlocking));
  upload(capture.buffers, inputs);
  CUDA_REQUIRE(cudaStreamBeginCapture(capture.stream, cudaStreamCaptureModeThreadLocal));
  enqueue(capture.buffers, capture.stream);
  CUDA_REQUIRE(cudaStreamEndCapture(capture.stream, &capture.graph));
}

double CompiledModel::replay_microseconds(const std::vector<ir::Tensor>& inputs, int replays) {
  Capture c;
  capture(c, inputs);
  cudaGraphExec_t exec = nullptr;
  CUDA_REQUIRE(cudaGraphInstantiate(&exec, c.graph, 0));
  cudaEvent_t start = nullptr, stop = nullptr;
  CUDA_REQUIRE(cudaEventCreate(&start));
  CUDA_REQUIRE(cudaEventCreate(&stop));
  for (int i = 0; i < 10; ++i) CUDA_REQUIRE(cudaGraphLaunch(exec, c.stream));
  CUDA_REQUIRE(cudaEventRecord(start, c.stream));
  for (int i = 0; i < replays; ++i) CUDA_REQUIRE(cudaGraphLaunch(exec, c.stream));
  CUDA_REQUIRE(cudaEventRecord(stop, c.stream));
  CUDA_REQUIRE(cudaEventSynchronize(stop));
  float ms = 0;
  CUDA_REQUIRE(cudaEventElapsedTime(&ms, start, stop));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaGraphExecDestroy(exec);
  return 1000.0 * ms / replays;
}

std::vector<std::string> CompiledModel::captured_nodes(const std::vector<ir::Tensor>& inputs) {
  std::vector<std::string> names;
  {
    Capture c;
    capture(c, inputs);
    cudaGraph_t graph = c.graph;
    size_t count = 0;
    CUDA_REQUIRE(cudaGraphGetNodes(graph, nullptr, &count));
    std::vector<cudaGraphNode_t> nodes(count);
    if (count > 0) CUDA_REQUIRE(cudaGraphGetNodes(graph, nodes.data(), &count));
    for (const cudaGraphNode_t node : nodes) {
      cudaGraphNodeType type{};
      CUDA_REQUIRE(cudaGraphNodeGetType(node, &type));
      names.push_back(node_type_name(type));
    }
  }
  return names;
}

}  // namespace inferno::test
