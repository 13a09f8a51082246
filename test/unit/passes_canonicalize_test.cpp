// canonicalize: IR text in, IR text out, and bit-identical outputs on the reference interpreter
// (silu, which rounds once where mul(x, sigmoid(x)) rounded twice, at fp32 tolerance).
#include <string>
#include <vector>

#include "ir/printer.h"
#include "passes/pipeline.h"
#include "passes_helpers.h"
#include "reference/interpreter.h"
#include "support/catch.h"

namespace inferno {
namespace {

using test::check_pass;
using test::check_unchanged;

TEST_CASE("canonicalize turns linear of a matrix into gemm with trans_b, a vector stays linear") {
  check_pass({"canonicalize"}, R"(
graph(%x: f32[2,3,4], %w: f32[5,4], %b: f32[5], %v: f32[4]) {
  %y: f32[2,3,5] = linear(%x, %w, %b) loc("model.py":3)
  %z: f32[2,3,5] = linear(%x, %w)
  %u: f32[5] = linear(%v, %w, %b)
  return %y, %z, %u
})",
             R"(
graph(%x: f32[2,3,4], %w: f32[5,4], %b: f32[5], %v: f32[4]) {
  %y: f32[2,3,5] = gemm(%x, %w, %b) {activation="none", alpha=1.0, beta=1.0, trans_b=true} loc("model.py":3)
  %z: f32[2,3,5] = gemm(%x, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %u: f32[5] = linear(%v, %w, %b)
  return %y, %z, %u
})");
}

TEST_CASE("canonicalize turns addmm into gemm and folds a transposed weight into trans_b") {
  check_pass({"canonicalize", "dce"}, R"(
graph(%c: f32[5], %a: f32[3,4], %w: f32[5,4], %m: f32[4,5]) {
  %wt: f32[4,5] = permute(%w) {dims=[1, 0]}
  %y: f32[3,5] = addmm(%c, %a, %wt) {alpha=2.0, beta=0.5}
  %t: f32[4,5] = transpose(%w) {dim0=1, dim1=0}
  %z: f32[3,5] = addmm(%c, %a, %t) {alpha=1.0, beta=1.0}
  %u: f32[3,5] = addmm(%c, %a, %m) {alpha=1.0, beta=1.0}
  return %y, %z, %u
})",
             R"(
graph(%c: f32[5], %a: f32[3,4], %w: f32[5,4], %m: f32[4,5]) {
  %y: f32[3,5] = gemm(%a, %w, %c) {activation="none", alpha=2.0, beta=0.5, trans_b=true}
  %z: f32[3,5] = gemm(%a, %w, %c) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %u: f32[3,5] = gemm(%a, %m, %c) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %y, %z, %u
})");
}

TEST_CASE("canonicalize keeps a permuted weight that something else reads") {
  check_pass({"canonicalize", "dce"}, R"(
graph(%c: f32[5], %a: f32[3,4], %w: f32[5,4]) {
  %wt: f32[4,5] = permute(%w) {dims=[1, 0]}
  %y: f32[3,5] = addmm(%c, %a, %wt) {alpha=1.0, beta=1.0}
  return %y, %wt
})",
             R"(
graph(%c: f32[5], %a: f32[3,4], %w: f32[5,4]) {
  %wt: f32[4,5] = permute(%w) {dims=[1, 0]}
  %y: f32[3,5] = gemm(%a, %w, %c) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  return %y, %wt
})");
}

TEST_CASE("canonicalize drops the bias of addmm with beta = 0, NaN and all, as PyTorch does") {
  check_pass({"canonicalize"}, R"(
graph(%a: f32[3,4], %m: f32[4,5]) {
  %c: f32[5] = constant [nan, inf, -inf, 1.0, 2.0]
  %u: f32[3,5] = addmm(%c, %a, %m) {alpha=1.5, beta=0.0}
  return %u
})",
             R"(
graph(%a: f32[3,4], %m: f32[4,5]) {
  %u: f32[3,5] = gemm(%a, %m) {activation="none", alpha=1.5, beta=1.0, trans_b=false}
  return %u
})");
}

TEST_CASE(
    "canonicalize turns matmul of matrices into gemm and a swap of the last two dims into "
    "trans_b") {
  check_pass({"canonicalize", "dce"}, R"(
graph(%a: f32[2,3,4], %b: f32[2,5,4], %m: f32[4,6], %v: f32[4], %n: f32[4,2,5]) {
  %bt: f32[2,4,5] = transpose(%b) {dim0=2, dim1=1}
  %y: f32[2,3,5] = matmul(%a, %bt)
  %z: f32[2,3,6] = matmul(%a, %m)
  %u: f32[2,3] = matmul(%a, %v)
  %np: f32[2,4,5] = permute(%n) {dims=[1, 0, 2]}
  %q: f32[2,3,5] = matmul(%a, %np)
  return %y, %z, %u, %q
})",
             R"(
graph(%a: f32[2,3,4], %b: f32[2,5,4], %m: f32[4,6], %v: f32[4], %n: f32[4,2,5]) {
  %y: f32[2,3,5] = gemm(%a, %b) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %z: f32[2,3,6] = gemm(%a, %m) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  %u: f32[2,3] = matmul(%a, %v)
  %np: f32[2,4,5] = permute(%n) {dims=[1, 0, 2]}
  %q: f32[2,3,5] = gemm(%a, %np) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %y, %z, %u, %q
})");
}

TEST_CASE("canonicalize flips trans_b back for a transposed operand of a gemm that has it") {
  check_pass({"canonicalize", "dce"}, R"(
graph(%a: f32[3,4], %m: f32[4,5]) {
  %mt: f32[5,4] = permute(%m) {dims=[1, 0]}
  %y: f32[3,5] = gemm(%a, %mt) {activation="relu", alpha=1.0, beta=1.0, trans_b=true}
  return %y
})",
             R"(
graph(%a: f32[3,4], %m: f32[4,5]) {
  %y: f32[3,5] = gemm(%a, %m) {activation="relu", alpha=1.0, beta=1.0, trans_b=false}
  return %y
})");
}

// torch.export decomposes matmul(x[2,4,8], w[8,5]) as view -> mm -> view and linear of a 3-D x as
// view -> addmm -> view; both must meet the plain form, a gemm on x itself.
TEST_CASE("canonicalize moves a reshape merging leading dims from a gemm's input to its output") {
  check_pass({"canonicalize", "dce"}, R"(
graph(%a: f32[2,4,8], %w: f32[8,5], %w2: f32[5,8], %bias: f32[5]) {
  %view: f32[8,8] = reshape(%a) {shape=[8, 8]}
  %mm: f32[8,5] = matmul(%view, %w)
  %view_1: f32[2,4,5] = reshape(%mm) {shape=[2, 4, 5]}
  %view_2: f32[2,20] = reshape(%view_1) {shape=[2, 20]}
  %permute: f32[8,5] = permute(%w2) {dims=[1, 0]}
  %addmm: f32[8,5] = addmm(%bias, %view, %permute) {alpha=1.0, beta=1.0}
  %view_3: f32[2,4,5] = reshape(%addmm) {shape=[2, 4, 5]}
  return %view_2, %view_3
})",
             R"(
graph(%a: f32[2,4,8], %w: f32[8,5], %w2: f32[5,8], %bias: f32[5]) {
  %mm_1: f32[2,4,5] = gemm(%a, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  %view_2: f32[2,20] = reshape(%mm_1) {shape=[2, 20]}
  %addmm_1: f32[2,4,5] = gemm(%a, %w2, %bias) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  return %view_2, %addmm_1
})");
}

// GPT-2's attention output: heads [1, S, H, D] merged by one view to [S, H * D] before a 2-D addmm,
// viewed back to [1, S, N]. The gemm reads x viewed as [1, S, H * D] instead, and the add reads the
// gemm itself (fuse-epilogues then takes it as the gemm's residual).
TEST_CASE(
    "canonicalize moves a reshape that also merges the last dims into K to the gemm's output") {
  check_pass({"canonicalize", "dce"}, R"(
graph(%x: f32[1,6,4,2], %w: f32[8,3], %bias: f32[3], %r: f32[1,6,3]) {
  %merged: f32[6,8] = reshape(%x) {shape=[6, 8]}
  %proj: f32[6,3] = gemm(%merged, %w, %bias) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  %back: f32[1,6,3] = reshape(%proj) {shape=[1, 6, 3]}
  %y: f32[1,6,3] = add(%back, %r)
  return %y
})",
             R"(
graph(%x: f32[1,6,4,2], %w: f32[8,3], %bias: f32[3], %r: f32[1,6,3]) {
  %merged_rows: f32[1,6,8] = reshape(%x) {shape=[1, 6, 8]}
  %proj_1: f32[1,6,3] = gemm(%merged_rows, %w, %bias) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  %y: f32[1,6,3] = add(%proj_1, %r)
  return %y
})");
}

TEST_CASE("canonicalize leaves a gemm on a reshape alone where moving it would change the result") {
  check_unchanged({"canonicalize"}, R"(
graph(%a: f32[2,4,8], %w: f32[8,5], %c: f32[8,5], %b3: f32[2,8,5]) {
  %view: f32[8,8] = reshape(%a) {shape=[8, 8]}
  %rows: f32[8,5] = gemm(%view, %w, %c) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  %k: f32[16,4] = reshape(%a) {shape=[16, 4]}
  %w4: f32[4,5] = constant [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]
  %inner: f32[16,5] = gemm(%k, %w4) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  %batched: f32[2,8,5] = gemm(%view, %b3) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %rows, %inner, %batched
})");
}

TEST_CASE("canonicalize merges and removes layout ops: t(t(x)) disappears") {
  check_pass({"canonicalize", "dce"}, R"(
graph(%x: f32[2,3,4]) {
  %r1: f32[6,4] = reshape(%x) {shape=[6, 4]}
  %r2: f32[24] = reshape(%r1) {shape=[24]}
  %r3: f32[2,3,4] = reshape(%r1) {shape=[2, 3, 4]}
  %e: f32[2,3,4] = expand(%x) {shape=[2, 3, 4]}
  %t1: f32[4,3,2] = transpose(%x) {dim0=0, dim1=2}
  %t2: f32[2,3,4] = transpose(%t1) {dim0=2, dim1=0}
  %p1: f32[3,4,2] = permute(%x) {dims=[1, 2, 0]}
  %p2: f32[4,2,3] = permute(%p1) {dims=[1, 2, 0]}
  %big: f32[5,2,3,4] = expand(%x) {shape=[5, 2, 3, 4]}
  %s: f32[2,3,4] = add(%r3, %e)
  %u: f32[2,3,4] = add(%s, %t2)
  return %r2, %u, %p2, %big
})",
             R"(
graph(%x: f32[2,3,4]) {
  %r2: f32[24] = reshape(%x) {shape=[24]}
  %p2: f32[4,2,3] = permute(%x) {dims=[2, 0, 1]}
  %big: f32[5,2,3,4] = expand(%x) {shape=[5, 2, 3, 4]}
  %s: f32[2,3,4] = add(%x, %x)
  %u: f32[2,3,4] = add(%s, %x)
  return %r2, %u, %p2, %big
})");
}

TEST_CASE("canonicalize turns a lone transpose into a permute, keeping its name") {
  check_pass({"canonicalize"}, R"(
graph(%x: f32[2,3,4]) {
  %t: f32[2,4,3] = transpose(%x) {dim0=1, dim1=2} loc("model.py":7)
  return %t
})",
             R"(
graph(%x: f32[2,3,4]) {
  %t: f32[2,4,3] = permute(%x) {dims=[0, 2, 1]} loc("model.py":7)
  return %t
})");
}

// silu(x) rounds x * sigmoid(x) once; the decomposed graph rounds sigmoid(x) first.
TEST_CASE("canonicalize turns mul(x, sigmoid(x)) in either order into silu(x)") {
  check_pass({"canonicalize"}, R"(
graph(%x: f32[4,8], %y: f32[4,8]) {
  %s: f32[4,8] = sigmoid(%x)
  %a: f32[4,8] = mul(%x, %s) loc("activation.py":475)
  %b: f32[4,8] = mul(%s, %x)
  %c: f32[4,8] = mul(%y, %s)
  return %a, %b, %c
})",
             R"(
graph(%x: f32[4,8], %y: f32[4,8]) {
  %s: f32[4,8] = sigmoid(%x)
  %a: f32[4,8] = silu(%x) loc("activation.py":475)
  %b: f32[4,8] = silu(%x)
  %c: f32[4,8] = mul(%y, %s)
  return %a, %b, %c
})",
             test::kFp32);
}

TEST_CASE("canonicalize turns a gemm of K = 1 into the broadcast product") {
  // transformers' rotary angles (inv_freq @ positions, a batch of one); a 2-D b read transposed;
  // the same from a b that a reshape made ([6] -> [6, 1]: the view back is the vector itself);
  // what stays a gemm: alpha, an addend, an activation, K = 2.
  check_pass({"canonicalize", "dce"}, R"(
graph(%f: f32[1,32,1], %p: f32[1,1,4], %a: f32[3,1], %w: f32[6,1], %v: f32[6], %c: f32[3,6], %k: f32[3,2], %u: f32[6,2]) {
  %angles: f32[1,32,4] = matmul(%f, %p) loc("modeling_llama.py":122)
  %t: f32[3,6] = gemm(%a, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %vc: f32[6,1] = reshape(%v) {shape=[6, 1]}
  %tv: f32[3,6] = gemm(%a, %vc) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %scaled: f32[3,6] = gemm(%a, %w) {activation="none", alpha=2.0, beta=1.0, trans_b=true}
  %added: f32[3,6] = gemm(%a, %w, %c) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %relu: f32[3,6] = gemm(%a, %w) {activation="relu", alpha=1.0, beta=1.0, trans_b=true}
  %k2: f32[3,6] = gemm(%k, %u) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  return %angles, %t, %tv, %scaled, %added, %relu, %k2
})",
             R"(
graph(%f: f32[1,32,1], %p: f32[1,1,4], %a: f32[3,1], %w: f32[6,1], %v: f32[6], %c: f32[3,6], %k: f32[3,2], %u: f32[6,2]) {
  %angles: f32[1,32,4] = mul(%f, %p) loc("modeling_llama.py":122)
  %t_row: f32[1,6] = reshape(%w) {shape=[1, 6]}
  %t: f32[3,6] = mul(%a, %t_row)
  %tv_row: f32[1,6] = reshape(%v) {shape=[1, 6]}
  %tv: f32[3,6] = mul(%a, %tv_row)
  %scaled: f32[3,6] = gemm(%a, %w) {activation="none", alpha=2.0, beta=1.0, trans_b=true}
  %added: f32[3,6] = gemm(%a, %w, %c) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %relu: f32[3,6] = gemm(%a, %w) {activation="relu", alpha=1.0, beta=1.0, trans_b=true}
  %k2: f32[3,6] = gemm(%k, %u) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  return %angles, %t, %tv, %scaled, %added, %relu, %k2
})");
}

TEST_CASE("canonicalize leaves a graph in canonical form alone") {
  check_unchanged({"canonicalize"}, R"(
graph(%x: f32[4,8], %w: f32[6,8]) {
  %g: f32[4,6] = gemm(%x, %w) {activation="gelu", alpha=1.0, beta=1.0, trans_b=true}
  %p: f32[6,4] = permute(%g) {dims=[1, 0]}
  %r: f32[24] = reshape(%p) {shape=[24]}
  %s: f32[24] = silu(%r)
  return %s
})");
}

}  // namespace
}  // namespace inferno
