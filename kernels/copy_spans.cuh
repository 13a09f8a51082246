// kernels/copy_spans.cuh: several contiguous copies in one launch.
//
// A model's outputs and state updates that no kernel wrote in place are copied out after the
// last node. An LLM's decode step has one such state per layer (transformers' static cache keeps a
// step counter per layer), each a few bytes: one launch per copy cost about a microsecond of
// launch gap each, more than the copy. Here blockIdx.y picks the span and the x blocks stride
// over its bytes, 16 at a time where both pointers are 16-byte aligned, a byte at a time
// otherwise (and for the tail). The spans must not overlap.
#pragma once

#include "common.cuh"

namespace inferno::kernels {

/// One contiguous copy of `bytes` bytes.
struct CopySpan {
  const void* in;
  void* out;
  int64_t bytes;
};

/// Spans one launch takes (they travel as the kernel's by-value parameter: 24 bytes each).
inline constexpr int kMaxCopySpans = 32;

namespace detail {

struct CopySpanList {
  CopySpan span[kMaxCopySpans];
};

constexpr int kCopySpanThreads = 256;
constexpr int64_t kCopySpanMaxBlocks = 1024;

template <int kThreads>
__global__ void __launch_bounds__(kThreads) copy_spans_kernel(const CopySpanList list) {
  const CopySpan s = list.span[blockIdx.y];
  const auto* in = static_cast<const unsigned char*>(s.in);
  auto* out = static_cast<unsigned char*>(s.out);
  const int64_t step = static_cast<int64_t>(gridDim.x) * kThreads;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  int64_t done = 0;
  if (((reinterpret_cast<uintptr_t>(in) | reinterpret_cast<uintptr_t>(out)) & 15u) == 0) {
    const int64_t words = s.bytes / 16;
    for (int64_t w = first; w < words; w += step)
      reinterpret_cast<uint4*>(out)[w] = reinterpret_cast<const uint4*>(in)[w];
    done = words * 16;
  }
  for (int64_t b = done + first; b < s.bytes; b += step) out[b] = in[b];
}

}  // namespace detail

/// Copies spans[0 .. count) (host array; 0 <= count <= kMaxCopySpans, bytes >= 0) in one launch.
inline cudaError_t copy_spans(const CopySpan* spans, int count, cudaStream_t stream) {
  using namespace detail;
  if (count < 0 || count > kMaxCopySpans || (count > 0 && spans == nullptr))
    return cudaErrorInvalidValue;
  CopySpanList list = {};
  int64_t largest = 0;
  for (int i = 0; i < count; ++i) {
    if (spans[i].bytes < 0 ||
        (spans[i].bytes > 0 && (spans[i].in == nullptr || spans[i].out == nullptr)))
      return cudaErrorInvalidValue;
    list.span[i] = spans[i];
    largest = spans[i].bytes > largest ? spans[i].bytes : largest;
  }
  if (largest == 0) return cudaSuccess;
  // Enough blocks for the largest span in 16-byte words, at most kCopySpanMaxBlocks (the
  // x blocks stride over the rest).
  int64_t blocks = (largest / 16 + kCopySpanThreads - 1) / kCopySpanThreads;
  blocks = blocks < 1 ? 1 : blocks > kCopySpanMaxBlocks ? kCopySpanMaxBlocks : blocks;
  copy_spans_kernel<kCopySpanThreads>
      <<<dim3(static_cast<unsigned>(blocks), static_cast<unsigned>(count)), kCopySpanThreads, 0,
         stream>>>(list);
  return cudaGetLastError();
}

}  // namespace inferno::kernels
