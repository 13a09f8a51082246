#include "llm_test_support.h"

#include <algorithm>

#include "gpu_test_support.h"

namespace inferno::test {

using llm::kVocab;

LlmBuffers::LlmBuffers() {
  CUDA_REQUIRE(cudaMalloc(reinterpret_cast<void**>(&ids_), 8 * sizeof(int64_t)));
  CUDA_REQUIRE(cudaMalloc(reinterpret_cast<void**>(&positions_), 8 * sizeof(int64_t)));
  CUDA_REQUIRE(cudaMalloc(reinterpret_cast<void**>(&logits_), 8 * kVocab * sizeof(float)));
}

LlmBuffers::~LlmBuffers() {
  cudaFree(ids_);
  cudaFree(positions_);
  cudaFree(logits_);
}

inferno_status LlmBuffers::run(inferno::Session& session, cudaStream_t stream,
                               const std::vector<int64_t>& ids,
                               const std::vector<int64_t>& positions, std::vector<int64_t>& rows) {
  rows.clear();
  const auto s = static_cast<int64_t>(ids.size());
  REQUIRE(s <= 8);
  REQUIRE(positions.size() == ids.size());
  CUDA_REQUIRE(cudaMemcpy(ids_, ids.data(), s * 8, cudaMemcpyHostToDevice));
  CUDA_REQUIRE(cudaMemcpy(positions_, positions.data(), s * 8, cudaMemcpyHostToDevice));
  const int64_t ids_shape[] = {1, s}, positions_shape[] = {s}, logits_shape[] = {1, s, kVocab};
  const inferno_tensor inputs[] = {{ids_, INFERNO_DTYPE_I64, 2, ids_shape},
                                   {positions_, INFERNO_DTYPE_I64, 1, positions_shape}};
  const inferno_tensor output{logits_, INFERNO_DTYPE_F32, 3, logits_shape};
  const inferno_status status =
      inferno_session_run(session.handle(), stream, inputs, 2, &output, 1);
  if (status != INFERNO_STATUS_OK) return status;
  CUDA_REQUIRE(cudaStreamSynchronize(stream));
  std::vector<float> logits(static_cast<size_t>(s * kVocab));
  CUDA_REQUIRE(cudaMemcpy(logits.data(), logits_, logits.size() * 4, cudaMemcpyDeviceToHost));
  for (int64_t r = 0; r < s; ++r) {
    const auto row = logits.begin() + r * kVocab;
    rows.push_back(std::max_element(row, row + kVocab) - row);
  }
  return status;
}

std::vector<int64_t> LlmBuffers::peaks(inferno::Session& session, cudaStream_t stream,
                                       const std::vector<int64_t>& ids,
                                       const std::vector<int64_t>& positions) {
  std::vector<int64_t> rows;
  const inferno_status status = run(session, stream, ids, positions, rows);
  INFO(inferno_last_error());
  REQUIRE(status == INFERNO_STATUS_OK);
  return rows;
}

}  // namespace inferno::test
