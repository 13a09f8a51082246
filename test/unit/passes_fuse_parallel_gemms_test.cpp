// fuse-parallel-gemms: gemms over one input with constant weights become one gemm and slices.
// Every output element is the same dot product, bias and activation: bit-identical.
#include <string>

#include "passes_helpers.h"
#include "support/catch.h"

namespace inferno {
namespace {

using test::check_pass;
using test::check_unchanged;

TEST_CASE("fuse-parallel-gemms: BERT's q, k and v projections with biases (trans_b)") {
  check_pass({"fuse-parallel-gemms"}, R"(
graph(%x: f32[2,3,4]) {
  %wq: f32[2,4] = constant [1, 2, 3, 4, 5, 6, 7, 8]
  %bq: f32[2] = constant [0.5, -0.5]
  %wk: f32[1,4] = constant [-1, 0.25, 2, -3]
  %bk: f32[1] = constant [1.5]
  %wv: f32[3,4] = constant [0, 1, 0, 1, 2, 2, -2, -2, 0.5, 0.5, 0.5, 0.5]
  %bv: f32[3] = constant [1, 2, 3]
  %q: f32[2,3,2] = gemm(%x, %wq, %bq) {activation="none", alpha=1.0, beta=1.0, trans_b=true} loc("model.py":1)
  %e: f32[2,3,4] = exp(%x)
  %k: f32[2,3,1] = gemm(%x, %wk, %bk) {activation="none", alpha=1.0, beta=1.0, trans_b=true} loc("model.py":2)
  %v: f32[2,3,3] = gemm(%x, %wv, %bv) {activation="none", alpha=1.0, beta=1.0, trans_b=true} loc("model.py":3)
  return %q, %k, %v, %e
})",
             R"(
graph(%x: f32[2,3,4]) {
  %wq_fused: f32[6,4] = constant [1, 2, 3, 4, 5, 6, 7, 8, -1, 0.25, 2, -3, 0, 1, 0, 1, 2, 2, -2, -2, 0.5, 0.5, 0.5, 0.5]
  %bq_fused: f32[6] = constant [0.5, -0.5, 1.5, 1, 2, 3]
  %q_k_v: f32[2,3,6] = gemm(%x, %wq_fused, %bq_fused) {activation="none", alpha=1.0, beta=1.0, trans_b=true} loc("model.py":1)
  %q: f32[2,3,2] = slice(%q_k_v) {ends=[2, 3, 2], starts=[0, 0, 0], steps=[1, 1, 1]} loc("model.py":1)
  %k: f32[2,3,1] = slice(%q_k_v) {ends=[2, 3, 3], starts=[0, 0, 2], steps=[1, 1, 1]} loc("model.py":2)
  %v: f32[2,3,3] = slice(%q_k_v) {ends=[2, 3, 6], starts=[0, 0, 3], steps=[1, 1, 1]} loc("model.py":3)
  %e: f32[2,3,4] = exp(%x)
  return %q, %k, %v, %e
})");
}

TEST_CASE("fuse-parallel-gemms: gate and up without bias, [K, N] weights joined along N") {
  check_pass({"fuse-parallel-gemms"}, R"(
graph(%x: f32[3,2]) {
  %wg: f32[2,2] = constant [1, 2, 3, 4]
  %wu: f32[2,3] = constant [5, 6, 7, 8, 9, 10]
  %g: f32[3,2] = gemm(%x, %wg) {activation="relu", alpha=0.5, beta=1.0, trans_b=false}
  %u: f32[3,3] = gemm(%x, %wu) {activation="relu", alpha=0.5, beta=1.0, trans_b=false}
  return %g, %u
})",
             R"(
graph(%x: f32[3,2]) {
  %wg_fused: f32[2,5] = constant [1, 2, 5, 6, 7, 3, 4, 8, 9, 10]
  %g_u: f32[3,5] = gemm(%x, %wg_fused) {activation="relu", alpha=0.5, beta=1.0, trans_b=false}
  %g: f32[3,2] = slice(%g_u) {ends=[3, 2], starts=[0, 0], steps=[1, 1]}
  %u: f32[3,3] = slice(%g_u) {ends=[3, 5], starts=[0, 2], steps=[1, 1]}
  return %g, %u
})");
}

TEST_CASE("fuse-parallel-gemms: a member without a bias gets zeros (Whisper's k projection)") {
  check_pass({"fuse-parallel-gemms"}, R"(
graph(%x: f32[3,2]) {
  %wq: f32[1,2] = constant [1, 2]
  %bq: f32[1] = constant [0.5]
  %wk: f32[2,2] = constant [3, 4, 5, 6]
  %wv: f32[1,2] = constant [7, 8]
  %bv: f32[1] = constant [-1]
  %q: f32[3,1] = gemm(%x, %wq, %bq) {activation="none", alpha=1.0, beta=2.0, trans_b=true}
  %k: f32[3,2] = gemm(%x, %wk) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %v: f32[3,1] = gemm(%x, %wv, %bv) {activation="none", alpha=1.0, beta=2.0, trans_b=true}
  return %q, %k, %v
})",
             R"(
graph(%x: f32[3,2]) {
  %wq_fused: f32[4,2] = constant [1, 2, 3, 4, 5, 6, 7, 8]
  %bq_fused: f32[4] = constant [0.5, -0, -0, -1]
  %q_k_v: f32[3,4] = gemm(%x, %wq_fused, %bq_fused) {activation="none", alpha=1.0, beta=2.0, trans_b=true}
  %q: f32[3,1] = slice(%q_k_v) {ends=[3, 1], starts=[0, 0], steps=[1, 1]}
  %k: f32[3,2] = slice(%q_k_v) {ends=[3, 3], starts=[0, 1], steps=[1, 1]}
  %v: f32[3,1] = slice(%q_k_v) {ends=[3, 4], starts=[0, 3], steps=[1, 1]}
  return %q, %k, %v
})");
  // Biased members with different betas: only the unbiased ones fuse, among themselves.
  check_pass({"fuse-parallel-gemms"}, R"(
graph(%x: f32[3,2]) {
  %w: f32[1,2] = constant [1, 2]
  %u: f32[1,2] = constant [3, 4]
  %b: f32[1] = constant [0.5]
  %p: f32[3,1] = gemm(%x, %w, %b) {activation="none", alpha=1.0, beta=2.0, trans_b=true}
  %q: f32[3,1] = gemm(%x, %u, %b) {activation="none", alpha=1.0, beta=3.0, trans_b=true}
  %r: f32[3,1] = gemm(%x, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %s: f32[3,1] = gemm(%x, %u) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  return %p, %q, %r, %s
})",
             R"(
graph(%x: f32[3,2]) {
  %w: f32[1,2] = constant [1, 2]
  %u: f32[1,2] = constant [3, 4]
  %b: f32[1] = constant [0.5]
  %w_fused: f32[2,2] = constant [1, 2, 3, 4]
  %p: f32[3,1] = gemm(%x, %w, %b) {activation="none", alpha=1.0, beta=2.0, trans_b=true}
  %q: f32[3,1] = gemm(%x, %u, %b) {activation="none", alpha=1.0, beta=3.0, trans_b=true}
  %r_s: f32[3,2] = gemm(%x, %w_fused) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %r: f32[3,1] = slice(%r_s) {ends=[3, 1], starts=[0, 0], steps=[1, 1]}
  %s: f32[3,1] = slice(%r_s) {ends=[3, 2], starts=[0, 1], steps=[1, 1]}
  return %p, %q, %r, %s
})");
}

TEST_CASE("fuse-parallel-gemms leaves weights that are inputs, and gemms that differ") {
  // A weight computed at run time (a graph input) cannot be concatenated at compile time.
  check_unchanged({"fuse-parallel-gemms"}, R"(
graph(%x: f32[3,4], %w: f32[2,4]) {
  %wk: f32[1,4] = constant [-1, 0.25, 2, -3]
  %q: f32[3,2] = gemm(%x, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %k: f32[3,1] = gemm(%x, %wk) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  return %q, %k
})");
  // trans_b differs (K is 4 either way, but the weights are laid out differently), activation
  // differs, alpha differs, one has a residual.
  check_unchanged({"fuse-parallel-gemms"}, R"(
graph(%x: f32[3,4], %r: f32[3,1]) {
  %w1: f32[1,4] = constant [1, 2, 3, 4]
  %w2: f32[4,1] = constant [1, 2, 3, 4]
  %b: f32[1] = constant [0.5]
  %a: f32[3,1] = gemm(%x, %w1) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %c: f32[3,1] = gemm(%x, %w2) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  %d: f32[3,1] = gemm(%x, %w1) {activation="relu", alpha=2.0, beta=1.0, trans_b=true}
  %e: f32[3,1] = gemm(%x, %w1, %b) {activation="none", alpha=3.0, beta=1.0, trans_b=true}
  %f: f32[3,1] = gemm(%x, %w1, %b, %r) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %g: f32[3,1] = gemm(%x, %w1, %b, %r) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  return %a, %c, %d, %e, %f, %g
})");
}

}  // namespace
}  // namespace inferno
