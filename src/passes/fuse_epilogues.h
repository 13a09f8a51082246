// GEMM epilogue fusion: folds the elementwise consumer of a gemm into the gemm, so that one
// kernel (cuBLASLt with an epilogue) does the work of two and the product is written once.
//
// Requires: a verified, canonical graph (canonicalize turns linear, addmm and matmul into gemm).
// Guarantees: no gemm with activation "none" whose output has exactly one use, by a node C, and
// is not a graph output, has one of these C (each is folded into it):
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
// Numerics on the reference interpreter: relu and gelu are bit-identical (its gemm rounds before
// the activation, as the unfused graph does); an added or scaled gemm rounds once where the
// unfused graph rounded twice.
#pragma once

#include "passes/pass.h"

namespace inferno::passes {

Status fuse_epilogues(ir::Graph& graph, const PassOptions& options);

}  // namespace inferno::passes
