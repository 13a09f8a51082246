#include "runtime/session.h"

#include <algorithm>
#include <string>

#include "runtime/cuda_util.h"
#include "runtime/dynamic_dims.h"
#include "runtime/entry_points.h"
#include "runtime/error.h"
#include "runtime/generator.h"
#include "runtime/host_gate.h"
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

bool is_legacy(cudaStream_t stream) { return stream == nullptr || stream == cudaStreamLegacy; }

// Whether the caller is capturing `stream` into a graph of its own.
bool caller_capturing(cudaStream_t stream) {
  if (is_legacy(stream)) return false;  // the legacy stream cannot be captured
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  check_cuda(cudaStreamIsCapturing(stream, &status), "cudaStreamIsCapturing");
  return status != cudaStreamCaptureStatusNone;
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
  const EntryPoints& entries = model_->entries();
  size_t key_size = 0;
  for (const inferno_model* e : entries) {
    key_size = std::max(key_size, static_cast<size_t>(1 + e->num_inputs + e->num_outputs));
  }
  key_.reserve(key_size);
  warmed_up_.assign(entries.size(), 0);
  model_sessions_.assign(entries.size(), nullptr);
  const DeviceGuard guard(model_->device());
  try {
    check_cuda(cudaEventCreateWithFlags(&last_run_, cudaEventDisableTiming), "cudaEventCreate");
    check_cuda(cudaEventCreateWithFlags(&fork_, cudaEventDisableTiming), "cudaEventCreate");
    check_cuda(cudaStreamCreateWithFlags(&side_stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    const uint64_t arena_bytes = model_->arena_bytes();
    if (arena_bytes > 0) {
      check_cuda(cudaMalloc(&arena_, arena_bytes),
                 ("cudaMalloc of the arena (" + std::to_string(arena_bytes) + " bytes)").c_str());
    }
    const uint64_t staging_bytes = row_staging_bytes(model_->dynamic_dims(), entries);
    if (staging_bytes > 0) {
      check_cuda(cudaMalloc(&staging_, staging_bytes),
                 ("cudaMalloc of the split runs' staging buffer (" + std::to_string(staging_bytes) +
                  " bytes)")
                     .c_str());
    }
    for (size_t e = 0; e < entries.size(); ++e) {
      char error[kErrorSize] = {};
      check_model(entries[e]->session_create(model_->device_weights(), &model_sessions_[e], error,
                                             kErrorSize),
                  error, *model_, e == 0 ? "session_create" : "a variant's session_create");
    }
    states_ = std::make_unique<StateBlock>(model_->abi());
    // The first initialization goes to the session's stream; the first run waits for it.
    states_->enqueue_init(side_stream_, model_->device_weights());
    check_cuda(cudaEventRecord(last_run_, side_stream_), "cudaEventRecord");
    last_stream_ = side_stream_;
    has_run_ = true;
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
  generator_.reset();
  gate_.reset();
  graphs_.clear();
  const EntryPoints& entries = model_->entries();
  for (size_t e = 0; e < model_sessions_.size(); ++e) {
    if (model_sessions_[e] != nullptr) entries[e]->session_destroy(model_sessions_[e]);
    model_sessions_[e] = nullptr;
  }
  states_.reset();
  if (arena_ != nullptr) cudaFree(arena_);
  arena_ = nullptr;
  if (staging_ != nullptr) cudaFree(staging_);
  staging_ = nullptr;
  if (side_stream_ != nullptr) cudaStreamDestroy(side_stream_);
  side_stream_ = nullptr;
  if (fork_ != nullptr) cudaEventDestroy(fork_);
  fork_ = nullptr;
  if (last_run_ != nullptr) cudaEventDestroy(last_run_);
  last_run_ = nullptr;
}

int32_t Session::matching_entry(const inferno_tensor* inputs, int32_t num_inputs) const {
  const EntryPoints& entries = model_->entries();
  if (entries.size() == 1 && !has_split_dim(model_->dynamic_dims())) return 0;
  return select_entry(entries, inputs, num_inputs);
}

int32_t Session::checked_entry(int32_t entry, const inferno_tensor* inputs, int32_t num_inputs,
                               const inferno_tensor* outputs, int32_t num_outputs) {
  const EntryPoints& entries = model_->entries();
  if (entry < 0) {
    const std::string split =
        plan_row_split(model_->dynamic_dims(), entries, inputs, num_inputs, split_plan_);
    if (split.empty()) {  // only a profiled run gets here with a plan
      fail(INFERNO_STATUS_INVALID_ARGUMENT,
           "these inputs run as several runs of the library's variants; a profiled run takes "
           "the inputs of one variant: " +
               accepted_inputs_text(entries));
    }
    fail(INFERNO_STATUS_INVALID_ARGUMENT,
         refusal_text(model_->dynamic_dims(), entries, model_->path(), inputs, num_inputs, split));
  }
  const inferno_model& abi = *entries[entry];
  try {
    check_tensors("input", abi.inputs, abi.num_inputs, inputs, num_inputs);
  } catch (const Error& error) {  // a refusal: its cost does not matter
    if (error.status() == INFERNO_STATUS_INVALID_ARGUMENT) {
      if (const std::string why =
              dynamic_dims_error(model_->dynamic_dims(), entries, inputs, num_inputs);
          !why.empty())
        fail(INFERNO_STATUS_INVALID_ARGUMENT, why);
    }
    throw;
  }
  check_tensors("output", abi.outputs, abi.num_outputs, outputs, num_outputs);
  key_.clear();
  key_.push_back(reinterpret_cast<void*>(static_cast<uintptr_t>(entry)));
  for (int32_t i = 0; i < num_inputs; ++i) key_.push_back(inputs[i].data);
  for (int32_t i = 0; i < num_outputs; ++i) key_.push_back(outputs[i].data);
  return entry;
}

void Session::run(void* stream_handle, const inferno_tensor* inputs, int32_t num_inputs,
                  const inferno_tensor* outputs, int32_t num_outputs) {
  const BusyLock lock(busy_);
  const int32_t match = matching_entry(inputs, num_inputs);
  if (match < 0 &&
      plan_row_split(model_->dynamic_dims(), model_->entries(), inputs, num_inputs, split_plan_)
          .empty()) {
    run_split(static_cast<cudaStream_t>(stream_handle), inputs, num_inputs, outputs, num_outputs);
    return;
  }
  const int32_t entry = checked_entry(match, inputs, num_inputs, outputs, num_outputs);
  const inferno_model& abi = *model_->entries()[entry];
  const DeviceGuard guard(model_->device());
  Work work = work_for(static_cast<cudaStream_t>(stream_handle));
  const bool graph = use_graph_ && !work.in_caller_graph;
  cudaGraphExec_t exec = graph ? graphs_.find(key_) : nullptr;
  if (exec == nullptr) {  // new addresses (or no graph): check where they point, once
    check_device_memory("input", abi.inputs, inputs, num_inputs, model_->device());
    check_device_memory("output", abi.outputs, outputs, num_outputs, model_->device());
  }
  // Everything is validated; from here on work is enqueued. A replay of a captured graph runs on
  // the caller's stream itself, the legacy default stream included (a launch there is allowed; only
  // a capture is not): the fork to the side stream and the join back would add two cross-stream
  // waits to every call.
  begin_work(work, graph && exec == nullptr);
  launch_keyed(entry, work.stream, graph, exec);
  end_work(work);
}

void Session::run_split(cudaStream_t stream, const inferno_tensor* inputs, int32_t num_inputs,
                        const inferno_tensor* outputs, int32_t num_outputs) {
  const RowSplitPlan& plan = split_plan_;
  // The call's tensors against the call's shapes: the descriptors of the first run's entry point,
  // with the split dim at the call's size.
  const inferno_model& first = *model_->entries()[plan.chunks.front().entry];
  std::vector<inferno_tensor_desc> in(first.inputs, first.inputs + first.num_inputs);
  std::vector<inferno_tensor_desc> out(first.outputs, first.outputs + first.num_outputs);
  for (size_t i = 0; i < in.size(); ++i) in[i].shape = plan.input_shapes[i].data();
  for (size_t o = 0; o < out.size(); ++o) out[o].shape = plan.output_shapes[o].data();
  check_tensors("input", in.data(), first.num_inputs, inputs, num_inputs);
  check_tensors("output", out.data(), first.num_outputs, outputs, num_outputs);
  for (const inferno_tensor* t : {inputs, outputs}) {
    const int32_t n = t == inputs ? num_inputs : num_outputs;
    for (int32_t i = 0; i < n; ++i) {
      if (reinterpret_cast<uintptr_t>(t[i].data) % kRowAlignment != 0) {
        fail(INFERNO_STATUS_INVALID_ARGUMENT, std::string(t == inputs ? "input" : "output") + " '" +
                                                  (t == inputs ? in : out)[i].name +
                                                  "' is not 16-byte aligned");
      }
    }
  }
  const DeviceGuard guard(model_->device());
  check_device_memory("input", in.data(), inputs, num_inputs, model_->device());
  check_device_memory("output", out.data(), outputs, num_outputs, model_->device());
  Work work = work_for(stream);
  const bool graph = use_graph_ && !work.in_caller_graph;
  begin_work(work, graph);
  std::vector<void*> ins(static_cast<size_t>(num_inputs)), outs(static_cast<size_t>(num_outputs));
  for (const RowChunk& chunk : plan.chunks) {
    // Each tensor's rows of this run: in place, or for a staged run copied to (inputs) and from
    // (outputs) the staging buffer, slot after slot.
    char* slot = static_cast<char*>(staging_);
    const auto rows_of = [&](const inferno_tensor& t, int64_t row_bytes) -> char* {
      return static_cast<char*>(t.data) + chunk.first_row * row_bytes;
    };
    const auto next_slot = [&](int64_t bytes) {
      char* here = slot;
      slot += staging_slot_bytes(bytes);
      return here;
    };
    for (int32_t i = 0; i < num_inputs; ++i) {
      const int64_t row_bytes = plan.input_row_bytes[static_cast<size_t>(i)];
      ins[i] = row_bytes == 0 ? inputs[i].data : rows_of(inputs[i], row_bytes);
      if (chunk.staged && row_bytes > 0) {
        char* staged = next_slot(chunk.rows * row_bytes);
        check_cuda(cudaMemcpyAsync(staged, ins[i], static_cast<size_t>(chunk.rows * row_bytes),
                                   cudaMemcpyDeviceToDevice, work.stream),
                   "cudaMemcpyAsync");
        ins[i] = staged;
      }
    }
    for (int32_t o = 0; o < num_outputs; ++o) {
      const int64_t row_bytes = plan.output_row_bytes[static_cast<size_t>(o)];
      outs[o] = chunk.staged ? next_slot(chunk.rows * row_bytes) : rows_of(outputs[o], row_bytes);
    }
    set_key(chunk.entry, ins.data(), outs.data());
    launch_keyed(chunk.entry, work.stream, graph, graph ? graphs_.find(key_) : nullptr);
    if (!chunk.staged) continue;
    for (int32_t o = 0; o < num_outputs; ++o) {
      const int64_t row_bytes = plan.output_row_bytes[static_cast<size_t>(o)];
      check_cuda(cudaMemcpyAsync(rows_of(outputs[o], row_bytes), outs[o],
                                 static_cast<size_t>(chunk.rows * row_bytes),
                                 cudaMemcpyDeviceToDevice, work.stream),
                 "cudaMemcpyAsync");
    }
  }
  end_work(work);
}

int32_t Session::run_profiled(void* stream_handle, const inferno_tensor* inputs, int32_t num_inputs,
                              const inferno_tensor* outputs, int32_t num_outputs,
                              inferno_profile_hook hook, void* user) {
  const BusyLock lock(busy_);
  const int32_t entry =
      checked_entry(matching_entry(inputs, num_inputs), inputs, num_inputs, outputs, num_outputs);
  const inferno_model& abi = *model_->entries()[entry];
  const inferno_model_profile* table = model_->profile(static_cast<size_t>(entry));
  if (table == nullptr) {
    fail(INFERNO_STATUS_INVALID_ARGUMENT, "model '" + model_->path() +
                                              "' has no profile table: compile it again with "
                                              "this infernoc to profile it per kernel");
  }
  const DeviceGuard guard(model_->device());
  Work work = work_for(static_cast<cudaStream_t>(stream_handle));
  if (work.in_caller_graph) {
    fail(INFERNO_STATUS_INVALID_ARGUMENT,
         "a profiled run calls its hook at enqueue time: it cannot run on a stream that is being "
         "captured");
  }
  check_device_memory("input", abi.inputs, inputs, num_inputs, model_->device());
  check_device_memory("output", abi.outputs, outputs, num_outputs, model_->device());
  if (gate_ == nullptr) gate_ = std::make_unique<HostGate>();
  begin_work(work, false);
  {
    gate_->close(work.stream);
    const struct Opener {  // also when a step fails: the GPU must not wait for the timeout
      HostGate& gate;
      ~Opener() { gate.open(); }
    } opener{*gate_};
    const inferno_model_run_args args{work.stream, arena_, key_.data() + 1,
                                      key_.data() + 1 + abi.num_inputs, states_->pointers()};
    char error[kErrorSize] = {};
    check_model(table->run_profiled(model_sessions_[entry], &args, hook, user, error, kErrorSize),
                error, *model_, "run");
  }
  end_work(work);
  return entry;
}

void Session::reset_state(void* stream_handle) {
  const BusyLock lock(busy_);
  const DeviceGuard guard(model_->device());
  Work work = work_for(static_cast<cudaStream_t>(stream_handle));
  begin_work(work, false);
  enqueue_state_init(work.stream);
  end_work(work);
}

void Session::generate(void* stream, const int64_t* prompt, int32_t prompt_len,
                       const inferno_generate_options& options, int64_t* tokens_out,
                       int32_t* num_tokens_out, inferno_generate_stats* stats) {
  const BusyLock lock(busy_);
  check_generate_request(model_->generation(), prompt, prompt_len, options);
  const DeviceGuard guard(model_->device());
  // Refused before anything is allocated: an allocation would also break the caller's capture.
  if (caller_capturing(static_cast<cudaStream_t>(stream))) {
    fail(INFERNO_STATUS_INVALID_ARGUMENT,
         "generate waits for each token: it cannot run on a stream that is being captured");
  }
  if (generator_ == nullptr) generator_ = std::make_unique<Generator>(*this);
  generator_->generate(static_cast<cudaStream_t>(stream), prompt, prompt_len, options, tokens_out,
                       num_tokens_out, stats);
}

Session::Work Session::work_for(cudaStream_t caller) {
  return Work{caller, caller, caller_capturing(caller)};
}

void Session::begin_work(Work& work, bool graphs) {
  if (graphs && !work.in_caller_graph && is_legacy(work.caller)) {
    work.stream = side_stream_;
    check_cuda(cudaEventRecord(fork_, work.caller), "cudaEventRecord");
    check_cuda(cudaStreamWaitEvent(work.stream, fork_, 0), "cudaStreamWaitEvent");
  }
  // Work on a new stream first waits for the previous run, which used the same arena and state.
  if (has_run_ && work.stream != last_stream_ && !work.in_caller_graph) {
    check_cuda(cudaStreamWaitEvent(work.stream, last_run_, 0), "cudaStreamWaitEvent");
  }
}

void Session::end_work(const Work& work) {
  if (!work.in_caller_graph) {
    check_cuda(cudaEventRecord(last_run_, work.stream), "cudaEventRecord");
    last_stream_ = work.stream;
    has_run_ = true;
  }
  if (work.stream != work.caller) {  // join: the caller's later work on its stream sees the results
    check_cuda(cudaStreamWaitEvent(work.caller, last_run_, 0), "cudaStreamWaitEvent");
  }
  // A kernel fault surfaces asynchronously; if one already made the context unusable, say so now.
  const cudaError_t late = cudaPeekAtLastError();
  if (is_sticky(late)) fail(INFERNO_STATUS_DEVICE_LOST, cuda_message(late, "device lost"));
}

void Session::set_key(int32_t entry, void* const* inputs, void* const* outputs) {
  const inferno_model& abi = *model_->entries()[entry];
  key_.clear();
  key_.push_back(reinterpret_cast<void*>(static_cast<uintptr_t>(entry)));
  key_.insert(key_.end(), inputs, inputs + abi.num_inputs);
  key_.insert(key_.end(), outputs, outputs + abi.num_outputs);
}

void Session::launch(int32_t entry, void* const* inputs, void* const* outputs,
                     cudaStream_t stream) {
  set_key(entry, inputs, outputs);
  launch_keyed(entry, stream, use_graph_, use_graph_ ? graphs_.find(key_) : nullptr);
}

void Session::launch_keyed(int32_t entry, cudaStream_t stream, bool graph, cudaGraphExec_t exec) {
  if (!graph) {
    call_keyed(entry, stream);
    return;
  }
  if (exec == nullptr) {
    // The entry's first run is plain launches: lazy kernel loading and library set-up inside the
    // model must not happen during a capture. It is this run's result: running the graph too would
    // apply the run to the state twice.
    const bool first = warmed_up_[entry] == 0;
    if (first) call_keyed(entry, stream);
    warmed_up_[entry] = 1;
    exec = capture_keyed(entry, {});
    graphs_.insert(key_, exec);
    if (first) return;
  }
  check_cuda(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
}

cudaGraphExec_t Session::capture(int32_t entry, void* const* inputs, void* const* outputs,
                                 const std::function<void(cudaStream_t)>& extra) {
  set_key(entry, inputs, outputs);
  return capture_keyed(entry, extra);
}

cudaGraphExec_t Session::capture_keyed(int32_t entry,
                                       const std::function<void(cudaStream_t)>& extra) {
  // Capturing only records: nothing runs, so the side stream needs no ordering with the caller's.
  // Capturing on a caller's blocking stream instead would break other threads' work on the legacy
  // default stream (it implicitly waits for every blocking stream, which a capture forbids).
  cudaStream_t stream = side_stream_;
  check_cuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal),
             "cudaStreamBeginCapture");
  const inferno_model& abi = *model_->entries()[entry];
  const inferno_model_run_args args{stream, arena_, key_.data() + 1,
                                    key_.data() + 1 + abi.num_inputs, states_->pointers()};
  char error[kErrorSize] = {};
  int32_t status = abi.run(model_sessions_[entry], &args, error, kErrorSize);
  std::string extra_error;
  if (status == INFERNO_MODEL_OK && extra) {
    try {
      extra(stream);
    } catch (const Error& e) {
      extra_error = e.what();
    }
  }
  cudaGraph_t raw = nullptr;
  // End the capture whatever happened, so the stream leaves capture mode.
  const cudaError_t ended = cudaStreamEndCapture(stream, &raw);
  const GraphPtr graph(raw);
  check_model(status, error, *model_, "run (while capturing a CUDA graph)");
  if (!extra_error.empty()) fail(INFERNO_STATUS_CUDA_ERROR, extra_error);
  check_cuda(ended,
             "cudaStreamEndCapture (the model did something a CUDA graph cannot hold; "
             "create the session with use_cuda_graph = 0)");
  cudaGraphExec_t exec = nullptr;
  check_cuda(cudaGraphInstantiate(&exec, graph.get(), 0), "cudaGraphInstantiate");
  ++graph_captures_;
  return exec;
}

void Session::call_model(int32_t entry, void* const* inputs, void* const* outputs,
                         cudaStream_t stream) {
  set_key(entry, inputs, outputs);
  call_keyed(entry, stream);
}

void Session::call_keyed(int32_t entry, cudaStream_t stream) {
  const inferno_model& abi = *model_->entries()[entry];
  const inferno_model_run_args args{stream, arena_, key_.data() + 1,
                                    key_.data() + 1 + abi.num_inputs, states_->pointers()};
  char error[kErrorSize] = {};
  check_model(abi.run(model_sessions_[entry], &args, error, kErrorSize), error, *model_, "run");
}

void Session::enqueue_state_init(cudaStream_t stream) {
  states_->enqueue_init(stream, model_->device_weights());
}

void Session::wait_last_run() {
  if (has_run_) check_cuda(cudaEventSynchronize(last_run_), "cudaEventSynchronize");
}

}  // namespace inferno::runtime
