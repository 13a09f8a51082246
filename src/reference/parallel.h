// Splitting a reference kernel's work over threads, deterministically: each of `count` work items
// goes to exactly one worker, in fixed contiguous ranges, so a kernel whose items write disjoint
// outputs gives the same bits for every worker count.
#pragma once

#include <cstdint>
#include <functional>

namespace inferno::reference::detail {

/// The number of workers for `count` items of `work_per_item` units each (multiply-adds, say):
/// at most std::thread::hardware_concurrency(), at most `count`, and about one per
/// `work_per_worker` units, so that a small kernel runs on the calling thread alone.
int choose_workers(int64_t count, double work_per_item, double work_per_worker);

/// Calls body(begin, end) on `workers` threads (the calling thread is one of them) for the
/// consecutive ranges that split [0, count) into `workers` near-equal parts, and waits for all.
/// The first exception a body throws is rethrown here once every worker has finished.
void parallel_ranges(int64_t count, int workers,
                     const std::function<void(int64_t begin, int64_t end)>& body);

}  // namespace inferno::reference::detail
