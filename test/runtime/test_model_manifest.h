// What the hand-written test models (test_model.cu, test_llm.cu) claim about themselves: compiler
// "test", CUDA 13.0, the archs they were built for, and their weights' checksum.
#pragma once

#include "inferno/model_abi.h"

namespace inferno::test {

template <int N>
inferno_manifest test_manifest(const int32_t (&archs)[N], const void* weights, uint64_t size) {
  inferno_manifest m{};
  m.compiler_version = "test";
  m.cuda_version = "13.0";
  m.sm_archs = archs;
  m.num_sm_archs = N;
  m.source_model_hash = "0";
  m.weights_checksum = inferno_weights_checksum(weights, size);
  return m;
}

}  // namespace inferno::test
