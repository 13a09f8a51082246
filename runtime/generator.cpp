#include "runtime/generator.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>

#include "runtime/cuda_util.h"
#include "runtime/descriptor.h"
#include "runtime/error.h"
#include "runtime/session.h"

namespace inferno::runtime {
namespace {

constexpr uint64_t kAlign = 256;
// The pinned host area: the sampling parameters' staging, then the tokens, then the prompt's.
constexpr uint64_t kTokensOffset = kAlign;

uint64_t align_up(uint64_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

double ms_between(std::chrono::steady_clock::time_point a,
                  std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// The q-quantile of `values` (sorted in place).
double quantile(std::vector<double>& values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[static_cast<size_t>(q * static_cast<double>(values.size() - 1))];
}

}  // namespace

Generator::Generator(Session& session) : session_(session), layout_(session.model().generation()) {
  const auto length = static_cast<uint64_t>(layout_.max_length());
  const uint64_t ids_bytes = align_up(length * 8);
  const uint64_t params_bytes = align_up(sizeof(SampleParams));
  const uint64_t logits_bytes = length * static_cast<uint64_t>(layout_.vocab) *
                                static_cast<uint64_t>(dtype_size(layout_.logits_dtype));
  const uint64_t total = 2 * ids_bytes + params_bytes + logits_bytes;
  try {
    check_cuda(
        cudaMalloc(&device_, total),
        ("cudaMalloc of generation's buffers (" + std::to_string(total) + " bytes)").c_str());
    char* base = static_cast<char*>(device_);
    ids_ = reinterpret_cast<int64_t*>(base);
    positions_ = reinterpret_cast<int64_t*>(base + ids_bytes);
    params_ = reinterpret_cast<SampleParams*>(base + 2 * ids_bytes);
    logits_ = base + 2 * ids_bytes + params_bytes;
    for (cudaEvent_t& e : ready_) {
      check_cuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
    }
    check_cuda(cudaEventCreate(&prefill_begin_), "cudaEventCreate");
    check_cuda(cudaEventCreate(&prefill_end_), "cudaEventCreate");
  } catch (...) {
    release();
    throw;
  }
}

Generator::~Generator() { release(); }

void Generator::release() noexcept {
  if (decode_graph_ != nullptr) cudaGraphExecDestroy(decode_graph_);
  decode_graph_ = nullptr;
  for (cudaEvent_t& e : ready_) {
    if (e != nullptr) cudaEventDestroy(e);
    e = nullptr;
  }
  if (prefill_begin_ != nullptr) cudaEventDestroy(prefill_begin_);
  if (prefill_end_ != nullptr) cudaEventDestroy(prefill_end_);
  prefill_begin_ = prefill_end_ = nullptr;
  if (host_ != nullptr) cudaFreeHost(host_);
  host_ = nullptr;
  if (device_ != nullptr) cudaFree(device_);
  device_ = nullptr;
}

void Generator::reserve_host(uint64_t bytes) {
  if (bytes <= host_bytes_) return;
  session_.wait_last_run();  // a step of the previous call may still write tokens there
  if (host_ != nullptr) cudaFreeHost(host_);
  host_ = nullptr;
  host_bytes_ = 0;
  const uint64_t grown = std::max<uint64_t>(bytes, 64 * 1024);
  check_cuda(
      cudaHostAlloc(&host_, grown, cudaHostAllocMapped | cudaHostAllocPortable),
      ("cudaHostAlloc of generation's host buffers (" + std::to_string(grown) + " bytes)").c_str());
  host_bytes_ = grown;
}

SampleLaunch Generator::sample_launch(int64_t row) const {
  return SampleLaunch{
      logits_,   layout_.logits_dtype, row, static_cast<int32_t>(layout_.vocab), params_, ids_,
      positions_};
}

void Generator::run_entry(const GenerationEntry& entry, cudaStream_t stream) {
  void* inputs[2] = {};
  inputs[entry.ids_input] = ids_;
  inputs[entry.positions_input] = positions_;
  void* outputs[1] = {logits_};
  session_.launch(entry.entry, inputs, outputs, stream);
}

int32_t Generator::prefill(cudaStream_t stream, const int64_t* prompt,
                           const std::vector<PrefillChunk>& chunks, int64_t* staging) {
  check_cuda(cudaEventRecord(prefill_begin_, stream), "cudaEventRecord");
  for (const PrefillChunk& chunk : chunks) {
    const GenerationEntry& entry = layout_.lengths[chunk.slot];
    // Staged per run (each run its own pinned slice: the copies are asynchronous). The tail of a
    // padded run repeats the last token at the following positions: rows past the prompt that
    // causal attention does not read before a decode step overwrites them.
    int64_t* ids = staging;
    int64_t* positions = staging + entry.length;
    staging += 2 * entry.length;
    for (int64_t j = 0; j < entry.length; ++j) {
      ids[j] = prompt[chunk.start + std::min(j, chunk.tokens - 1)];
      positions[j] = chunk.start + j;
    }
    const auto bytes = static_cast<size_t>(entry.length) * sizeof(int64_t);
    check_cuda(cudaMemcpyAsync(ids_, ids, bytes, cudaMemcpyHostToDevice, stream),
               "cudaMemcpyAsync of prompt tokens");
    check_cuda(cudaMemcpyAsync(positions_, positions, bytes, cudaMemcpyHostToDevice, stream),
               "cudaMemcpyAsync of prompt positions");
    run_entry(entry, stream);
  }
  check_cuda(cudaEventRecord(prefill_end_, stream), "cudaEventRecord");
  // The first new token: from the row of the prompt's last token.
  enqueue_sample(sample_launch(chunks.back().tokens - 1), stream);
  return static_cast<int32_t>(chunks.size());
}

void Generator::generate(cudaStream_t stream, const int64_t* prompt, int32_t prompt_len,
                         const inferno_generate_options& o, int64_t* tokens_out,
                         int32_t* num_tokens_out, inferno_generate_stats* stats) {
  const auto start = std::chrono::steady_clock::now();
  Session::Work work = session_.work_for(stream);  // never a captured stream (Session::generate)
  const std::vector<PrefillChunk> chunks = plan_prefill(layout_, prompt_len);
  uint64_t staging_count = 0;
  for (const PrefillChunk& c : chunks) staging_count += 2 * layout_.lengths[c.slot].length;
  staging_offset_ =
      kTokensOffset + align_up(static_cast<uint64_t>(o.max_new_tokens) * sizeof(int64_t));
  reserve_host(staging_offset_ + staging_count * sizeof(int64_t));
  char* host = static_cast<char*>(host_);
  auto* host_tokens = reinterpret_cast<int64_t*>(host + kTokensOffset);
  void* device_tokens = nullptr;
  check_cuda(cudaHostGetDevicePointer(&device_tokens, host_tokens, 0), "cudaHostGetDevicePointer");

  // Greedy when the temperature is 0 or only one token may be kept.
  auto* params = reinterpret_cast<SampleParams*>(host);
  *params = SampleParams{};
  params->greedy = o.temperature == 0.0f || o.top_k == 1 ? 1 : 0;
  params->scale = params->greedy != 0 ? 0.0f : 1.44269504f / o.temperature;
  params->top_k = o.top_k;
  params->top_p = o.top_p;
  params->seed = o.seed;
  params->tokens = static_cast<int64_t*>(device_tokens);
  params->capacity = o.max_new_tokens;
  params->step = 0;

  session_.begin_work(work, session_.use_graph());
  try {
    run_loop(work, prompt, prompt_len, chunks, o, tokens_out, num_tokens_out, stats, start);
  } catch (...) {
    try {
      session_.end_work(work);  // keeps the session's stream order for its next call
    } catch (...) {
    }
    throw;
  }
  session_.end_work(work);
}

void Generator::run_loop(Session::Work& work, const int64_t* prompt, int32_t prompt_len,
                         const std::vector<PrefillChunk>& chunks, const inferno_generate_options& o,
                         int64_t* tokens_out, int32_t* num_tokens_out,
                         inferno_generate_stats* stats,
                         std::chrono::steady_clock::time_point start) {
  char* host = static_cast<char*>(host_);
  auto* params = reinterpret_cast<SampleParams*>(host);
  auto* host_tokens = reinterpret_cast<int64_t*>(host + kTokensOffset);
  session_.enqueue_state_init(work.stream);
  check_cuda(
      cudaMemcpyAsync(params_, params, sizeof(SampleParams), cudaMemcpyHostToDevice, work.stream),
      "cudaMemcpyAsync of the sampling parameters");
  const int32_t runs =
      prefill(work.stream, prompt, chunks, reinterpret_cast<int64_t*>(host + staging_offset_));
  check_cuda(cudaEventRecord(ready_[0], work.stream), "cudaEventRecord");
  // One step ahead: the GPU runs step k + 1 while the host reads token k (a stop or the callback
  // may waste that step; it writes only cache rows the next reset clears).
  int32_t launched = 1;
  const auto launch_next = [&] {
    decode_step(work.stream);
    check_cuda(cudaEventRecord(ready_[launched % 2], work.stream), "cudaEventRecord");
    ++launched;
  };
  if (launched < o.max_new_tokens) launch_next();

  std::vector<double> gaps;
  double first_ms = 0;
  auto last = start;
  int32_t emitted = 0;
  while (emitted < launched) {
    check_cuda(cudaEventSynchronize(ready_[emitted % 2]), "cudaEventSynchronize");
    const int64_t token = static_cast<volatile int64_t*>(host_tokens)[emitted];
    const auto now = std::chrono::steady_clock::now();
    if (emitted == 0) {
      first_ms = ms_between(start, now);
    } else {
      gaps.push_back(ms_between(last, now));
    }
    last = now;
    tokens_out[emitted++] = token;
    bool stop = std::find(o.stop_tokens, o.stop_tokens + o.num_stop_tokens, token) !=
                o.stop_tokens + o.num_stop_tokens;
    if (!stop && o.callback != nullptr) stop = o.callback(o.user_data, emitted - 1, token) != 0;
    if (stop) break;
    if (launched < o.max_new_tokens) launch_next();
  }
  *num_tokens_out = emitted;
  if (stats == nullptr) return;
  float prefill_ms = 0;
  check_cuda(cudaEventElapsedTime(&prefill_ms, prefill_begin_, prefill_end_),
             "cudaEventElapsedTime");
  stats->prompt_tokens = prompt_len;
  stats->new_tokens = emitted;
  stats->prefill_runs = runs;
  stats->time_to_first_token_ms = first_ms;
  stats->prefill_ms = prefill_ms;
  stats->decode_ms = ms_between(start, last) - first_ms;
  stats->decode_ms_per_token =
      gaps.empty() ? 0 : stats->decode_ms / static_cast<double>(gaps.size());
  stats->decode_ms_p90 = quantile(gaps, 0.9);
  stats->decode_ms_p50 = quantile(gaps, 0.5);
}

void Generator::decode_step(cudaStream_t stream) {
  const GenerationEntry& decode = layout_.lengths.front();
  if (!session_.use_graph()) {
    run_entry(decode, stream);
    enqueue_sample(sample_launch(0), stream);
    return;
  }
  if (decode_graph_ == nullptr) {
    if (!decode_ran_) {  // plain launches first: lazy loading must not happen inside a capture
      run_entry(decode, stream);
      enqueue_sample(sample_launch(0), stream);
      decode_ran_ = true;
      void* inputs[2] = {};
      inputs[decode.ids_input] = ids_;
      inputs[decode.positions_input] = positions_;
      void* outputs[1] = {logits_};
      decode_graph_ = session_.capture(decode.entry, inputs, outputs, [&](cudaStream_t s) {
        enqueue_sample(sample_launch(0), s);
      });
      return;  // this step ran already
    }
  }
  check_cuda(cudaGraphLaunch(decode_graph_, stream), "cudaGraphLaunch of a decode step");
}

}  // namespace inferno::runtime
