// The next-token kernel alone (runtime/sample_kernel.cu) on real vocabulary sizes: for f32 and f16
// logits, greedy and sampled, it chooses the token the host mirror chooses, writes it into the
// input buffer, advances the position and the step, and stores the token at its step.
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cmath>
#include <random>
#include <vector>

#include "gpu_test_support.h"
#include "runtime/sample_kernel.h"
#include "sampling_reference.h"

using inferno::runtime::enqueue_sample;
using inferno::runtime::SampleLaunch;
using inferno::runtime::SampleParams;
using inferno::test::mirror_token;
using inferno::test::SamplingOptions;

namespace {

// Device memory for one launch: two rows of logits, the parameters, ids, positions and tokens.
struct KernelBuffers {
  void* logits = nullptr;
  SampleParams* params = nullptr;
  int64_t* ids = nullptr;
  int64_t* positions = nullptr;
  int64_t* tokens = nullptr;
  explicit KernelBuffers(size_t logits_bytes) {
    CUDA_REQUIRE(cudaMalloc(&logits, logits_bytes));
    CUDA_REQUIRE(cudaMalloc(reinterpret_cast<void**>(&params), sizeof(SampleParams)));
    CUDA_REQUIRE(cudaMalloc(reinterpret_cast<void**>(&ids), 8 * sizeof(int64_t)));
    CUDA_REQUIRE(cudaMalloc(reinterpret_cast<void**>(&positions), 8 * sizeof(int64_t)));
    CUDA_REQUIRE(cudaMalloc(reinterpret_cast<void**>(&tokens), 64 * sizeof(int64_t)));
  }
  ~KernelBuffers() {
    cudaFree(logits);
    cudaFree(params);
    cudaFree(ids);
    cudaFree(positions);
    cudaFree(tokens);
  }
};

std::vector<float> random_row(int vocab, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 2.5f);
  std::vector<float> x(static_cast<size_t>(vocab));
  for (float& v : x) v = normal(rng);
  if (seed % 3 == 0) {  // numbers the kernel must skip
    x[7] = NAN;
    x[vocab - 1] = -INFINITY;
  }
  return x;
}

}  // namespace

TEST_CASE("gpu: the next-token kernel chooses what the host mirror chooses", "[runtime][gpu]") {
  INFERNO_REQUIRE_GPU();
  const SamplingOptions cases[] = {{0.0f, 0, 1.0f, 0},  {1.0f, 0, 1.0f, 11},  {0.7f, 50, 1.0f, 12},
                                   {1.0f, 0, 0.9f, 13}, {1.2f, 40, 0.8f, 14}, {2.0f, 0, 0.5f, 15},
                                   {0.3f, 3, 0.99f, 16}};
  inferno::test::Stream stream;
  for (int vocab : {1000, 50257, 151936}) {
    for (bool f16 : {false, true}) {
      KernelBuffers b(2 * static_cast<size_t>(vocab) * 4);
      const std::vector<float> row = random_row(vocab, static_cast<unsigned>(vocab) + f16);
      std::vector<float> seen = row;  // what the kernel reads: f16 rounds
      std::vector<__half> halves(row.size());
      for (size_t i = 0; i < row.size(); ++i) {
        halves[i] = __float2half_rn(row[i]);
        if (f16) seen[i] = __half2float(halves[i]);
      }
      // Row 1 holds the data (row 0 is garbage), so the kernel must read the row it is given.
      const size_t item = f16 ? 2 : 4;
      CUDA_REQUIRE(cudaMemset(b.logits, 0x7f, 2 * vocab * item));
      CUDA_REQUIRE(cudaMemcpy(static_cast<char*>(b.logits) + vocab * item,
                              f16 ? static_cast<const void*>(halves.data()) : row.data(),
                              vocab * item, cudaMemcpyHostToDevice));
      for (const SamplingOptions& o : cases) {
        for (int64_t step = 0; step < 12; ++step) {
          SampleParams p{};
          p.greedy = o.temperature == 0.0f || o.top_k == 1 ? 1 : 0;
          p.scale = p.greedy != 0 ? 0.0f : 1.44269504f / o.temperature;
          p.top_k = o.top_k;
          p.top_p = o.top_p;
          p.seed = o.seed;
          p.tokens = b.tokens;
          p.capacity = 64;
          p.step = step;
          const int64_t positions[2] = {-1, 40 + step};
          CUDA_REQUIRE(cudaMemcpy(b.params, &p, sizeof p, cudaMemcpyHostToDevice));
          CUDA_REQUIRE(
              cudaMemcpy(b.positions, positions, sizeof positions, cudaMemcpyHostToDevice));
          enqueue_sample(SampleLaunch{b.logits, f16 ? INFERNO_DTYPE_F16 : INFERNO_DTYPE_F32, 1,
                                      vocab, b.params, b.ids, b.positions},
                         stream.get());
          stream.sync();
          int64_t id = -1, position = -1, token = -1;
          SampleParams after{};
          CUDA_REQUIRE(cudaMemcpy(&id, b.ids, 8, cudaMemcpyDeviceToHost));
          CUDA_REQUIRE(cudaMemcpy(&position, b.positions, 8, cudaMemcpyDeviceToHost));
          CUDA_REQUIRE(cudaMemcpy(&token, b.tokens + step, 8, cudaMemcpyDeviceToHost));
          CUDA_REQUIRE(cudaMemcpy(&after, b.params, sizeof after, cudaMemcpyDeviceToHost));
          INFO("vocab " << vocab << " f16 " << f16 << " temperature " << o.temperature << " top_k "
                        << o.top_k << " top_p " << o.top_p << " step " << step);
          CHECK(id == mirror_token(seen, o, static_cast<uint64_t>(step)));
          CHECK(token == id);
          CHECK(position == 41 + step);
          CHECK(after.step == step + 1);
        }
      }
    }
  }
}
