#include "generate_cmd.h"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>

#include "inferno/runtime.hpp"
#include "npy.h"
#include "run_common.h"

namespace inferno::run {
namespace {

// The prompt: an .npy of int64 or int32 token ids, [L] or [1, L].
std::vector<int64_t> read_prompt(const std::string& path) {
  const npy::Array a = npy::read(path);
  const bool shape_ok = a.shape.size() == 1 || (a.shape.size() == 2 && a.shape[0] == 1);
  if (!shape_ok || (a.descr != "<i8" && a.descr != "<i4")) {
    throw npy::Error(path + ": a prompt is '<i8' or '<i4' token ids of shape [L] or [1, L]", false);
  }
  const size_t n = a.data.size() / (a.descr == "<i8" ? 8 : 4);
  std::vector<int64_t> ids(n);
  for (size_t i = 0; i < n; ++i) {
    if (a.descr == "<i8") {
      std::memcpy(&ids[i], a.data.data() + 8 * i, 8);
    } else {
      int32_t v = 0;
      std::memcpy(&v, a.data.data() + 4 * i, 4);
      ids[i] = v;
    }
  }
  return ids;
}

void print_result(const inferno::GenerateResult& r, uint64_t weights, double bandwidth) {
  const inferno_generate_stats& stats = r.stats;
  std::printf("tokens (%zu):", r.tokens.size());
  for (const int64_t t : r.tokens) std::printf(" %lld", static_cast<long long>(t));
  std::printf("\n");
  std::printf("prompt: %d tokens in %d runs, %.3f ms on the GPU\n", stats.prompt_tokens,
              stats.prefill_runs, stats.prefill_ms);
  std::printf("time to first token: %.3f ms\n", stats.time_to_first_token_ms);
  const bool decoded = stats.new_tokens > 1;
  if (decoded) {
    std::printf("decode: %d tokens, %.4f ms/token (median %.4f, p90 %.4f)\n", stats.new_tokens - 1,
                stats.decode_ms_per_token, stats.decode_ms_p50, stats.decode_ms_p90);
  }
  if (bandwidth <= 0) return;
  const double floor_ms = static_cast<double>(weights) / bandwidth * 1e3;
  std::printf("bandwidth floor: %llu weight bytes / %.0f GB/s (device copy) = %.4f ms/token",
              static_cast<unsigned long long>(weights), bandwidth / 1e9, floor_ms);
  if (decoded && stats.decode_ms_p50 > 0) {
    std::printf("; reached %.1f%% of it (median)", 100.0 * floor_ms / stats.decode_ms_p50);
  }
  std::printf("\n");
}

}  // namespace

double copy_bandwidth(cudaStream_t stream) {
  constexpr size_t kBytes = size_t{256} << 20;
  void* a = nullptr;
  void* b = nullptr;
  if (cudaMalloc(&a, kBytes) != cudaSuccess || cudaMalloc(&b, kBytes) != cudaSuccess) {
    cudaGetLastError();
    cudaFree(a);
    return 0;
  }
  cudaEvent_t start = nullptr, stop = nullptr;
  check_cuda(cudaEventCreate(&start), "cudaEventCreate");
  check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
  check_cuda(cudaMemcpyAsync(b, a, kBytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync");
  constexpr int kCopies = 10;
  check_cuda(cudaEventRecord(start, stream), "cudaEventRecord");
  for (int i = 0; i < kCopies; ++i) {
    check_cuda(
        cudaMemcpyAsync(i % 2 ? a : b, i % 2 ? b : a, kBytes, cudaMemcpyDeviceToDevice, stream),
        "cudaMemcpyAsync");
  }
  check_cuda(cudaEventRecord(stop, stream), "cudaEventRecord");
  check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(a);
  cudaFree(b);
  return ms > 0 ? 2.0 * kBytes * kCopies / (ms * 1e-3) : 0;
}

void add_generate_options(CLI::App& app, GenerateArgs& args) {
  app.add_flag("--generate", args.enabled,
               "generate tokens with an LLM model.so (token ids in and out, no tokenizer)");
  // Ranges without CLI11's "INT in [...]" text: the option's own text says what fits.
  app.add_option("--prompt", args.prompt, "--generate: the prompt's token ids, '<i8' or '<i4' .npy")
      ->type_name("FILE");
  app.add_option("--max-new-tokens", args.max_new_tokens,
                 "--generate: tokens to make, 1 to 2^20 (16)")
      ->type_name("N")
      ->check(CLI::Range(1, 1 << 20).description(""));
  app.add_option("--temperature", args.temperature, "--generate: 0 (default) is greedy")
      ->type_name("T")
      ->check(CLI::Range(0.0f, 1e30f).description(""));
  app.add_option("--top-k", args.top_k, "--generate: sample among the k highest logits (0: all)")
      ->type_name("K")
      ->check(CLI::Range(0, 1 << 30).description(""));
  app.add_option("--top-p", args.top_p, "--generate: nucleus sampling's probability (1: all)")
      ->type_name("P");
  app.add_option("--seed", args.seed, "--generate: the sampling seed")->type_name("SEED");
  app.add_option("--stop-token", args.stop_tokens, "--generate: stop after this token (repeatable)")
      ->type_name("ID");
  app.add_option("--save-tokens", args.save_tokens, "--generate: write the new tokens as .npy")
      ->type_name("FILE");
}

int generate_command(const std::string& path, int device, bool use_graph,
                     const GenerateArgs& args) {
  if (args.prompt.empty()) throw Exit{3, "--generate needs --prompt ids.npy"};
  const std::vector<int64_t> prompt = read_prompt(args.prompt);
  try {
    const inferno::Model model(path, device);
    inferno::Session session(model, use_graph);
    check_cuda(cudaSetDevice(device), "cudaSetDevice");
    Handles h;  // for the stream
    check_cuda(cudaStreamCreateWithFlags(&h.stream, cudaStreamNonBlocking), "cudaStreamCreate");
    inferno::GenerateOptions o;
    o.max_new_tokens = args.max_new_tokens;
    o.temperature = args.temperature;
    o.top_k = args.top_k;
    o.top_p = args.top_p;
    o.seed = args.seed;
    o.stop_tokens = args.stop_tokens;
    session.generate(h.stream, prompt, o);  // warm-up: captures the graphs, loads the kernels
    const inferno::GenerateResult r = session.generate(h.stream, prompt, o);
    print_result(r, model.weights_bytes(), copy_bandwidth(h.stream));
    if (!args.save_tokens.empty()) {
      const auto n = static_cast<int64_t>(r.tokens.size());
      npy::Array out{"<i8", {n}, std::vector<std::byte>(r.tokens.size() * 8)};
      std::memcpy(out.data.data(), r.tokens.data(), out.data.size());
      npy::write(args.save_tokens, out);
    }
  } catch (const inferno::Error& e) {
    throw Exit{exit_code(e.status()), e.what()};
  }
  return 0;
}

}  // namespace inferno::run
