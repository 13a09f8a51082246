// Channels-last (NHWC) activations in the IR: the permutations between NCHW and NHWC, and where
// a pooling node (max_pool2d, avg_pool2d and the adaptive forms; ops.def) finds its window and
// channel dims by its layout attribute, [.., C, H, W] for "nchw" (rank 3 or 4) and [N, H, W, C]
// for "nhwc" (rank 4). Every stage that reads a pool's dims asks here.
#pragma once

#include <cstddef>

#include "ir/attributes.h"

namespace inferno::ir {

/// NCHW -> NHWC: out[n, h, w, c] = in[n, c, h, w].
inline const IntList kToNhwc = {0, 2, 3, 1};
/// NHWC -> NCHW.
inline const IntList kToNchw = {0, 3, 1, 2};

struct PoolDims {
  size_t h = 0, w = 0, c = 0;  ///< the window's rows and columns, the channels
  bool nhwc = false;
};

/// The dims of a pool of rank `rank` with attributes `attrs` (layout checked by the shape rule).
inline PoolDims pool_dims(const Attributes& attrs, size_t rank) {
  if (attrs.get_string("layout") == "nhwc") return {1, 2, 3, true};
  return {rank - 2, rank - 1, rank - 3, false};
}

}  // namespace inferno::ir
