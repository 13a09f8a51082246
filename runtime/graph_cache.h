// Captured CUDA graphs of one session, keyed by the buffer addresses baked into them.
//
// A captured graph replays its kernels with the exact pointers seen during capture, so a graph is
// only valid for the (inputs..., outputs...) address tuple it was captured with. The cache keeps
// the few most recently used tuples (callers usually cycle through a handful of buffers) and the
// session captures again on a miss. Linear search: the cache is small and a hit must not allocate.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

namespace inferno::runtime {

class GraphCache {
 public:
  /// Keeps at most `capacity` graphs (at least one).
  explicit GraphCache(size_t capacity) : capacity_(capacity) {}
  ~GraphCache() { clear(); }
  GraphCache(const GraphCache&) = delete;
  GraphCache& operator=(const GraphCache&) = delete;

  /// The graph captured for `key`, made most recently used; null on a miss.
  cudaGraphExec_t find(const std::vector<void*>& key);
  /// Adds a graph for `key` (not present), evicting the least recently used one when full. Takes
  /// ownership of `exec`.
  void insert(const std::vector<void*>& key, cudaGraphExec_t exec);
  /// Destroys every graph (a graph still running on the GPU is freed when it finishes).
  void clear();
  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::vector<void*> key;
    cudaGraphExec_t exec;
  };
  size_t capacity_;
  std::vector<Entry> entries_;  // most recently used first
};

}  // namespace inferno::runtime
