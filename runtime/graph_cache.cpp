#include "runtime/graph_cache.h"

#include <algorithm>

namespace inferno::runtime {

cudaGraphExec_t GraphCache::find(const std::vector<void*>& key) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->key == key) {
      std::rotate(entries_.begin(), it, it + 1);
      return entries_.front().exec;
    }
  }
  return nullptr;
}

void GraphCache::insert(const std::vector<void*>& key, cudaGraphExec_t exec) {
  if (!entries_.empty() && entries_.size() >= capacity_) {
    cudaGraphExecDestroy(entries_.back().exec);
    entries_.pop_back();
  }
  entries_.insert(entries_.begin(), Entry{key, exec});
}

void GraphCache::clear() {
  for (Entry& e : entries_) cudaGraphExecDestroy(e.exec);
  entries_.clear();
}

}  // namespace inferno::runtime
