#include "reference/parallel.h"

#include <algorithm>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace inferno::reference::detail {

int choose_workers(int64_t count, double work_per_item, double work_per_worker) {
  const int64_t hardware = std::max(1u, std::thread::hardware_concurrency());
  const double total = static_cast<double>(count) * work_per_item;
  const auto by_work = static_cast<int64_t>(std::min(total / work_per_worker, 1e9));
  return static_cast<int>(std::max<int64_t>(1, std::min({hardware, count, by_work})));
}

void parallel_ranges(int64_t count, int workers,
                     const std::function<void(int64_t begin, int64_t end)>& body) {
  const int64_t n = std::max<int64_t>(1, std::min<int64_t>(workers, count));
  auto range = [&](int64_t w) { body(count * w / n, count * (w + 1) / n); };
  if (n == 1) {
    range(0);
    return;
  }
  std::exception_ptr first_error;
  std::mutex error_mutex;
  auto guarded = [&](int64_t w) {
    try {
      range(w);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(error_mutex);
      if (!first_error) first_error = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(n - 1));
  int64_t started = 1;
  try {
    for (; started < n; ++started) threads.emplace_back(guarded, started);
  } catch (const std::system_error&) {
    // No more threads to be had: the calling thread runs the ranges left over.
  }
  for (int64_t w = started; w < n; ++w) guarded(w);
  guarded(0);
  for (std::thread& t : threads) t.join();
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace inferno::reference::detail
