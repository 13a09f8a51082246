#include "runtime/session.h"

#include <string>

#include "runtime/cuda_util.h"
#include "runtime/error.h"
#include "runtime/tensor_check.h"

namespace inferno::runtime {
namespace {

constexpr size_t kErrorSize = 1024;  // the model's error text buffer

// Holds a session's busy flag for one run; a flag already set means another thread is inside.
class BusyLock {
 public:
  explicit BusyLock(std::atomic<bool>& flag) : flag_(flag) {
    if (flag_.exchange(true, std::memory_order_acquire)) {
      fail(INFERNO_STATUS_BUSY,
           "session is running on another thread (use one session per thread)");
    }
  }
  ~BusyLock() { flag_.store(false, std::memory_order_release); }
  BusyLock(const BusyLock&) = delete;
  BusyLock& operator=(const BusyLock&) = delete;

 private:
  std::atomic<bool>& flag_;
};

// Throws for a failed model status, with the model's own message.
void check_model(int32_t status, char* error, const Model& model, const char* what) {
  if (status == INFERNO_MODEL_OK) return;
  error[kErrorSize - 1] = '\0';  // whatever the model wrote, the text ends inside the buffer
  inferno_status mapped = INFERNO_STATUS_INTERNAL;
  switch (status) {
    case INFERNO_MODEL_CUDA_ERROR:
      mapped = INFERNO_STATUS_CUDA_ERROR;
      break;
    case INFERNO_MODEL_CUBLAS_ERROR:
      mapped = INFERNO_STATUS_CUBLAS_ERROR;
      break;
    case INFERNO_MODEL_DEVICE_LOST:
      mapped = INFERNO_STATUS_DEVICE_LOST;
      break;
    case INFERNO_MODEL_BAD_ARGUMENT:
      mapped = INFERNO_STATUS_INVALID_ARGUMENT;
      break;
    default:
      break;
  }
  fail(mapped, "model '" + model.path() + "': " + what + " failed: " + error);
}

struct GraphDeleter {
  void operator()(cudaGraph_t graph) const { cudaGraphDestroy(graph); }
};
using GraphPtr = std::unique_ptr<CUgraph_st, GraphDeleter>;

}  // namespace

Session::Session(std::shared_ptr<const Model> model, const inferno_session_options& options)
    : model_(std::move(model)),
      use_graph_(options.use_cuda_graph != 0),
      graphs_(static_cast<size_t>(options.graph_cache_size)) {
  const inferno_model& abi = model_->abi();
  pointers_.resize(static_cast<size_t>(abi.num_inputs + abi.num_outputs));
  const DeviceGuard guard(model_->device());
  try {
    check_cuda(cudaEventCreateWithFlags(&last_run_, cudaEventDisableTiming), "cudaEventCreate");
    if (use_graph_) {
      check_cuda(cudaEventCreateWithFlags(&fork_, cudaEventDisableTiming), "cudaEventCreate");
      check_cuda(cudaStreamCreateWithFlags(&side_stream_, cudaStreamNonBlocking),
                 "cudaStreamCreate");
    }
    if (abi.arena_bytes > 0) {
      check_cuda(
          cudaMalloc(&arena_, abi.arena_bytes),
          ("cudaMalloc of the arena (" + std::to_string(abi.arena_bytes) + " bytes)").c_str());
    }
    char error[kErrorSize] = {};
    check_model(abi.session_create(model_->device_weights(), &state_, error, kErrorSize), error,
                *model_, "session_create");
  } catch (...) {
    release();
    throw;
  }
}

Session::~Session() {
  const DeviceGuard guard(model_->device(), std::nothrow);
  if (has_run_) cudaEventSynchronize(last_run_);  // the arena may still be in use on the GPU
  release();
}

void Session::release() noexcept {
  graphs_.clear();
  if (state_ != nullptr) model_->abi().session_destroy(state_);
  state_ = nullptr;
  if (arena_ != nullptr) cudaFree(arena_);
  arena_ = nullptr;
  if (side_stream_ != nullptr) cudaStreamDestroy(side_stream_);
  side_stream_ = nullptr;
  if (fork_ != nullptr) cudaEventDestroy(fork_);
  fork_ = nullptr;
  if (last_run_ != nullptr) cudaEventDestroy(last_run_);
  last_run_ = nullptr;
}

void Session::run(void* stream_handle, const inferno_tensor* inputs, int32_t num_inputs,
                  const inferno_tensor* outputs, int32_t num_outputs) {
  const BusyLock lock(busy_);
  const inferno_model& abi = model_->abi();
  check_tensors("input", abi.inputs, abi.num_inputs, inputs, num_inputs);
  check_tensors("output", abi.outputs, abi.num_outputs, outputs, num_outputs);
  for (int32_t i = 0; i < num_inputs; ++i) pointers_[i] = inputs[i].data;
  for (int32_t i = 0; i < num_outputs; ++i) pointers_[num_inputs + i] = outputs[i].data;

  const DeviceGuard guard(model_->device());
  const auto stream = static_cast<cudaStream_t>(stream_handle);
  // A stream the caller is capturing gets plain launches, which become part of the caller's graph.
  const bool legacy = stream == nullptr || stream == cudaStreamLegacy;
  cudaStreamCaptureStatus caller_capture = cudaStreamCaptureStatusNone;
  if (!legacy) check_cuda(cudaStreamIsCapturing(stream, &caller_capture), "cudaStreamIsCapturing");
  const bool in_caller_graph = caller_capture != cudaStreamCaptureStatusNone;
  const bool graph = use_graph_ && !in_caller_graph;

  cudaGraphExec_t exec = graph ? graphs_.find(pointers_) : nullptr;
  if (exec == nullptr) {  // new addresses (or no graph): check where they point, once
    check_device_memory("input", abi.inputs, inputs, num_inputs, model_->device());
    check_device_memory("output", abi.outputs, outputs, num_outputs, model_->device());
  }

  // Everything is validated; from here on work is enqueued. The legacy default stream cannot be
  // captured, so its graph runs on the side stream, after the caller's earlier work.
  cudaStream_t work = stream;
  if (graph && legacy) {
    work = side_stream_;
    check_cuda(cudaEventRecord(fork_, stream), "cudaEventRecord");
    check_cuda(cudaStreamWaitEvent(work, fork_, 0), "cudaStreamWaitEvent");
  }
  // A run on a new stream first waits for the previous run, which used the same arena.
  if (has_run_ && work != last_stream_ && !in_caller_graph) {
    check_cuda(cudaStreamWaitEvent(work, last_run_, 0), "cudaStreamWaitEvent");
  }
  if (graph) {
    if (exec == nullptr) {
      // The first run is eager: lazy kernel loading and library set-up inside the model must not
      // happen during a capture.
      if (!warmed_up_) call_model(work);
      warmed_up_ = true;
      exec = capture();
      graphs_.insert(pointers_, exec);
    }
    check_cuda(cudaGraphLaunch(exec, work), "cudaGraphLaunch");
  } else {
    call_model(work);
  }
  if (!in_caller_graph) {
    check_cuda(cudaEventRecord(last_run_, work), "cudaEventRecord");
    last_stream_ = work;
    has_run_ = true;
  }
  if (work != stream) {  // join: the caller's later work on its stream sees the outputs
    check_cuda(cudaStreamWaitEvent(stream, last_run_, 0), "cudaStreamWaitEvent");
  }
  // A kernel fault surfaces asynchronously; if one already made the context unusable, say so now.
  const cudaError_t late = cudaPeekAtLastError();
  if (is_sticky(late)) fail(INFERNO_STATUS_DEVICE_LOST, cuda_message(late, "device lost"));
}

cudaGraphExec_t Session::capture() {
  // Capturing only records: nothing runs, so the side stream needs no ordering with the caller's.
  // Capturing on a caller's blocking stream instead would break other threads' work on the legacy
  // default stream (it implicitly waits for every blocking stream, which a capture forbids).
  cudaStream_t stream = side_stream_;
  check_cuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal),
             "cudaStreamBeginCapture");
  const inferno_model_run_args args{stream, arena_, pointers_.data(),
                                    pointers_.data() + model_->abi().num_inputs};
  char error[kErrorSize] = {};
  const int32_t status = model_->abi().run(state_, &args, error, kErrorSize);
  cudaGraph_t raw = nullptr;
  // End the capture whatever happened, so the stream leaves capture mode.
  const cudaError_t ended = cudaStreamEndCapture(stream, &raw);
  const GraphPtr graph(raw);
  check_model(status, error, *model_, "run (while capturing a CUDA graph)");
  check_cuda(ended,
             "cudaStreamEndCapture (the model did something a CUDA graph cannot hold; "
             "create the session with use_cuda_graph = 0)");
  cudaGraphExec_t exec = nullptr;
  check_cuda(cudaGraphInstantiate(&exec, graph.get(), 0), "cudaGraphInstantiate");
  ++graph_captures_;
  return exec;
}

void Session::call_model(cudaStream_t stream) {
  const inferno_model_run_args args{stream, arena_, pointers_.data(),
                                    pointers_.data() + model_->abi().num_inputs};
  char error[kErrorSize] = {};
  check_model(model_->abi().run(state_, &args, error, kErrorSize), error, *model_, "run");
}

}  // namespace inferno::runtime
