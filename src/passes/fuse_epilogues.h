// Epilogue fusion: folds the elementwise consumer of a gemm or conv2d into it, so that one kernel
// (cuBLASLt with an epilogue, the conv kernels' epilogue) does the work of two and the product is
// written once; and a squeeze-and-excitation mul into the conv2d that reads it.
//
// Requires: a verified, canonical graph (canonicalize turns linear, addmm and matmul into gemm).
// Guarantees (gemm): no gemm with activation "none" whose output has exactly one use, by a node C,
// and is not a graph output, has one of these C (each is folded into it):
//   relu(g), gelu(g), gelu_tanh(g)    activation becomes relu, gelu or gelu_tanh (named as the ops)
//   add(g, r), add(r, g)              r becomes c (with beta=1) if g has none, else d if it has
//                                     none; r has g's dtype and broadcasts to g's shape
//   mul(g, s), mul(s, g), div(g, s)   alpha and beta are multiplied (divided) by s, when g has no
//                                     d (it is not scaled) and s is a one-element constant, finite
//                                     and nonzero (scaling by 0 would make beta 0, which ignores c)
// and C's result has g's type. Applied to a fixpoint: gemm -> add -> relu becomes one gemm.
// The fused gemm defines C's output value (C's name and uses stay) at C's position (an addend
// may be computed between the two), with the gemm's source location: the matmul is the costly
// part and its line is the one to show in diagnostics and profiles (an epilogue's location is
// often inside torch.nn.functional).
// conv2d (conv_epilogue.h): no conv2d P with activation "none" whose output has exactly one use,
// by a node C, and is not a graph output, has one of these C, whose result has P's type:
//   add(y, b), add(b, y)   b a per-channel constant (channel_constants.h): added into P's bias
//   add(y, r), add(r, y)   r of P's type, P without a residual: r becomes the residual
//   relu, relu6, silu, hardswish, hardsigmoid, sigmoid, gelu, gelu_tanh (of y), and
//   clamp(y, 0, 6) with constant bounds (relu6)          the activation, named as the op
// and no conv2d without a gate reads mul(a, g) (either order) that has no other use and is not a
// graph output, with a of the conv2d's input type and g [N, C, 1, 1] ([N, 1, 1, C] for nhwc) of
// its dtype (a squeeze-and-excitation gate): the conv2d reads a with gate g. A residual or gate
// brings a zero bias where the conv2d had none. Applied in one forward walk, so conv -> add ->
// relu is one conv2d; the merged conv2d has the conv2d's source location.
// Numerics on the reference interpreter: relu and gelu are bit-identical (its gemm rounds before
// the activation, as the unfused graph does); an added or scaled gemm rounds once where the
// unfused graph rounded twice; so does every conv2d fusion (it rounds once, after the
// activation), and a gate is applied in double where the graph rounded the mul.
#pragma once

#include "passes/pass.h"

namespace inferno::passes {

Status fuse_epilogues(ir::Graph& graph, const PassOptions& options);

}  // namespace inferno::passes
