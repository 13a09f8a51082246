// Row split: whether a graph computes its outputs "row by row" along a dynamic dim, so that a run
// at a size the library was not compiled for can be made of runs at sizes it was (a batch of 13
// as runs of 8, 4 and 1 rows), each reading its rows of the inputs and writing its rows of the
// outputs in place.
//
// The analysis, over a graph at one size `rows` (at least 2) of the dim: the split inputs have
// the dim as their first axis (size `rows`); every other input and every constant is *free* (the
// same whatever the rows). A value is *split* when its data, in row-major order, is `rows` equal
// contiguous blocks and block i depends only on block i of the split inputs (and on free values).
// Each op's rule says when it maps split operands to a split result: it must treat the leading
// axes that hold the blocks as batch axes (an elementwise op whose free operands are broadcast
// along them, a reduction, softmax or norm over later axes only, a gemm contracting a later axis,
// a conv or pool over images, attention over later axes, a reshape, which keeps the row-major
// order). An op that mixes rows (a reduction over the batch, a permute that moves it, a slice of
// it, a gather by a split index along a later axis) or any op without a rule stops the analysis
// with the reason, naming the node. The split holds when every user output is split with its
// first dim a multiple of `rows`.
//
// A free value expanded along its first axis to a size that holds the rows (Hugging Face's BERT
// expands its token types [1, S] to the batch, a decoder its causal mask [1, 1, q, k]) is
// *uniform*: split, with every block the same (its block i depends on no input at all), so a run
// of any rows computes the same blocks. The rules take it as split: it must have the rows where
// it meets a split value, as a split operand must, which ties its size to the dim's; read as
// free it could not be, as its rows would count those of the run (a sum over them, or a later
// axis of the result). A node with uniform operands only (the others free) is uniform too, and
// an output must be split, not uniform. As a weight or parameter (a linear's, a norm's, a conv's)
// it is read as free, its axes meeting the split operand's later ones as any weight's do. Only an
// expand makes one, only along the first axis (an expand over heads that happen to number the rows
// stays free), and a free value with rows of its own (a non-split input of the size) stays free:
// its blocks differ.
//
// A *row index* is arange(n) of the dim's size n (start 0, step 1, integer), which the frontend
// records (frontend::DynamicDim::row_indices) instead of taking the dim as read: [rows] holding i
// in row i. Its blocks differ, so it is neither free nor split; it may only be viewed (a reshape
// to [rows, 1, ...], an expand of its later axes) and be the index of an index_select along the
// first axis of a split value whose first axis is the rows: out[i] = src[i], split. A run of b
// rows computes the same, its arange being 0..b-1 and its source those rows. Any other use
// (arithmetic, a comparison, an index along a later axis) is refused, naming the node. The
// frontend lowers x[arange(n)[:, None], j] (transformers' padding mask) to x[:, j] outright.
//
// What the analysis cannot see, the frontend reports: a model that computes with the dim's size
// as a number otherwise (x * x.shape[0], arange(batch) * 2, zeros(batch)) gets constants that
// differ per size, so such a dim is never split (frontend::DynamicDim::read_as_value). Graphs with
// state are never split.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"
#include "support/status.h"

namespace inferno::passes {

/// OK when `graph` computes every user output row by row along a dim that is the first axis, of
/// size `rows` (>= 2), of the user inputs marked in `split_inputs` (one flag per user input),
/// `row_indices` being the dim's row indices in `graph` (the ones its load recorded); otherwise
/// an unsupported Status saying which node or output mixes the rows.
Status check_row_split(const ir::Graph& graph, const std::vector<bool>& split_inputs,
                       const std::vector<ir::ValueId>& row_indices, int64_t rows);

}  // namespace inferno::passes
