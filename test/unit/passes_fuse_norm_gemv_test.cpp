// fuse-norm-gemv: a layer_norm or rms_norm over the last dim whose every reader is a
// decode-shaped gemm with an [N, K] weight (taking it as x) becomes part of each: norm_gemm.
// Everything else is left alone. norm_gemm is the norm, rounded, then the gemm: bit-identical.
#include "passes_helpers.h"
#include "support/catch.h"

namespace inferno {
namespace {

using test::check_pass;
using test::check_unchanged;

TEST_CASE("fuse-norm-gemv: GPT-2's layer_norm before its fused q/k/v product and MLP") {
  // One norm read by two decode gemms (each gets it), with a bias and a gelu epilogue.
  check_pass({"fuse-norm-gemv"}, R"(
graph(%x: f16[1,1,4]) {
  %g: f16[4] = constant [1, 0.5, -2, 1.5]
  %be: f16[4] = constant [0.25, 0, -0.5, 1]
  %w: f16[3,4] = constant [1, 2, 3, 4, -1, -2, -3, -4, 0.5, 0.25, 0, 1]
  %b: f16[3] = constant [0.5, -0.5, 1]
  %w2: f16[2,4] = constant [1, -1, 1, -1, 2, 0, -2, 0.5]
  %h: f16[1,1,4] = layer_norm(%x, %g, %be) {eps=1e-05, normalized_dims=1} loc("model.py":3)
  %y: f16[1,1,3] = gemm(%h, %w, %b) {activation="none", alpha=1.0, beta=1.0, trans_b=true} loc("model.py":4)
  %z: f16[1,1,2] = gemm(%h, %w2) {activation="gelu_tanh", alpha=1.0, beta=1.0, trans_b=true}
  return %y, %z
})",
             R"(
graph(%x: f16[1,1,4]) {
  %g: f16[4] = constant [1, 0.5, -2, 1.5]
  %be: f16[4] = constant [0.25, 0, -0.5, 1]
  %w: f16[3,4] = constant [1, 2, 3, 4, -1, -2, -3, -4, 0.5, 0.25, 0, 1]
  %b: f16[3] = constant [0.5, -0.5, 1]
  %w2: f16[2,4] = constant [1, -1, 1, -1, 2, 0, -2, 0.5]
  %y: f16[1,1,3] = norm_gemm(%x, %w, %g, %be, %b) {activation="none", alpha=1.0, beta=1.0, eps=1e-05, norm="layer_norm", trans_b=true} loc("model.py":4)
  %z: f16[1,1,2] = norm_gemm(%x, %w2, %g, %be) {activation="gelu_tanh", alpha=1.0, beta=1.0, eps=1e-05, norm="layer_norm", trans_b=true}
  return %y, %z
})");
}

TEST_CASE("fuse-norm-gemv: Llama's rms_norm with a residual, 4 rows in f32") {
  check_pass({"fuse-norm-gemv"}, R"(
graph(%x: f32[4,3], %r: f32[4,2]) {
  %g: f32[3] = constant [1, 2, 0.5]
  %w: f32[2,3] = constant [1, 2, 3, 4, 5, 6]
  %b: f32[2] = constant [0.5, -1]
  %h: f32[4,3] = rms_norm(%x, %g) {eps=1e-06, normalized_dims=1}
  %y: f32[4,2] = gemm(%h, %w, %b, %r) {activation="relu", alpha=0.5, beta=2.0, trans_b=true}
  return %y
})",
             R"(
graph(%x: f32[4,3], %r: f32[4,2]) {
  %g: f32[3] = constant [1, 2, 0.5]
  %w: f32[2,3] = constant [1, 2, 3, 4, 5, 6]
  %b: f32[2] = constant [0.5, -1]
  %y: f32[4,2] = norm_gemm(%x, %w, %g, %b, %r) {activation="relu", alpha=0.5, beta=2.0, eps=1e-06, norm="rms_norm", trans_b=true}
  return %y
})");
}

TEST_CASE("fuse-norm-gemv: rows up to the 44 KB the GEMV stages them in") {
  // One f16 row of 22528 elements is 44 KB and fuses; 22536 elements do not (target.h).
  check_pass({"fuse-norm-gemv"}, R"(
graph(%x: f16[1,22528], %g: f16[22528], %w: f16[2,22528], %y: f16[1,22536], %gy: f16[22536], %wy: f16[2,22536]) {
  %h: f16[1,22528] = rms_norm(%x, %g) {eps=1e-06, normalized_dims=1}
  %a: f16[1,2] = gemm(%h, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %hy: f16[1,22536] = rms_norm(%y, %gy) {eps=1e-06, normalized_dims=1}
  %b: f16[1,2] = gemm(%hy, %wy) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  return %a, %b
})",
             R"(
graph(%x: f16[1,22528], %g: f16[22528], %w: f16[2,22528], %y: f16[1,22536], %gy: f16[22536], %wy: f16[2,22536]) {
  %a: f16[1,2] = norm_gemm(%x, %w, %g) {activation="none", alpha=1.0, beta=1.0, eps=1e-06, norm="rms_norm", trans_b=true}
  %hy: f16[1,22536] = rms_norm(%y, %gy) {eps=1e-06, normalized_dims=1}
  %b: f16[1,2] = gemm(%hy, %wy) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  return %a, %b
})");
}

TEST_CASE("fuse-norm-gemv: a norm with another reader or a graph output is left alone") {
  // Read by a residual add; read as the gemm's addend too; returned.
  check_unchanged({"fuse-norm-gemv"}, R"(
graph(%x: f32[1,4], %x2: f32[1,4], %x3: f32[1,4]) {
  %g: f32[4] = constant [1, 2, 3, 4]
  %w: f32[4,4] = constant [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
  %h: f32[1,4] = rms_norm(%x, %g) {eps=1e-06, normalized_dims=1}
  %y: f32[1,4] = gemm(%h, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %s: f32[1,4] = add(%h, %y)
  %h2: f32[1,4] = rms_norm(%x2, %g) {eps=1e-06, normalized_dims=1}
  %y2: f32[1,4] = gemm(%h2, %w, %h2) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %h3: f32[1,4] = rms_norm(%x3, %g) {eps=1e-06, normalized_dims=1}
  %y3: f32[1,4] = gemm(%h3, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  return %s, %y2, %y3, %h3
})");
}

TEST_CASE("fuse-norm-gemv: products the GEMV does not run with an [N, K] weight keep their norm") {
  // 128 rows (a prefill: cuBLASLt); a [K, N] weight (gemv_kn); the norm as the right operand;
  // f64 (cuBLASLt); a batched weight; rows too long to stage (8 x 4096 f16 = 64 KB).
  check_unchanged({"fuse-norm-gemv"}, R"(
graph(%p: f16[128,4], %x: f16[1,4], %q: f16[4,4], %d: f64[1,4], %t: f16[1,4], %l: f16[8,4096], %lw: f16[2,4096], %gl: f16[4096], %wb: f16[2,4,4]) {
  %g: f16[4] = constant [1, 2, 3, 4]
  %gd: f64[4] = constant [1, 2, 3, 4]
  %w: f16[4,4] = constant [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
  %wd: f64[4,4] = constant [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
  %hp: f16[128,4] = rms_norm(%p, %g) {eps=1e-06, normalized_dims=1}
  %yp: f16[128,4] = gemm(%hp, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %hk: f16[1,4] = rms_norm(%x, %g) {eps=1e-06, normalized_dims=1}
  %yk: f16[1,4] = gemm(%hk, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  %hr: f16[4,4] = rms_norm(%q, %g) {eps=1e-06, normalized_dims=1}
  %yr: f16[1,4] = gemm(%x, %hr) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %hd: f64[1,4] = rms_norm(%d, %gd) {eps=1e-06, normalized_dims=1}
  %yd: f64[1,4] = gemm(%hd, %wd) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %ht: f16[1,4] = rms_norm(%t, %g) {eps=1e-06, normalized_dims=1}
  %yt: f16[2,1,4] = gemm(%ht, %wb) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %hl: f16[8,4096] = rms_norm(%l, %gl) {eps=1e-06, normalized_dims=1}
  %yl: f16[8,2] = gemm(%hl, %lw) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  return %yp, %yk, %yr, %yd, %yt, %yl
})");
}

TEST_CASE("fuse-norm-gemv: norms over two dims and odd addends stay") {
  // layer_norm over the last two dims; a gemm whose two addends both want the row slot.
  check_unchanged({"fuse-norm-gemv"}, R"(
graph(%x: f32[1,2,2], %u: f32[2,4]) {
  %g22: f32[2,2] = constant [1, 2, 3, 4]
  %g: f32[4] = constant [1, 2, 3, 4]
  %w: f32[4,4] = constant [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
  %w2: f32[4,2] = constant [1, 0, 0, 1, 1, 0, 0, 1]
  %b: f32[4] = constant [1, 1, 1, 1]
  %b2: f32[1,4] = constant [2, 2, 2, 2]
  %h2: f32[1,2,2] = layer_norm(%x, %g22, %g22) {eps=1e-05, normalized_dims=2}
  %y2: f32[1,2,4] = gemm(%h2, %w2) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %hu: f32[2,4] = rms_norm(%u, %g) {eps=1e-06, normalized_dims=1}
  %yu: f32[2,4] = gemm(%hu, %w, %b, %b2) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  return %y2, %yu
})");
}

TEST_CASE("fuse-norm-gemv: a norm without its weight or bias folds with ones and zeros") {
  // A randomly initialized Llama keeps its norm weights at one, and simplify drops the multiply:
  // the GEMV takes a constant of ones (and a layer_norm without bias one of zeros) instead.
  check_pass({"fuse-norm-gemv"}, R"(
graph(%y: f16[1,4], %z: f16[1,4]) {
  %g: f16[4] = constant [1, 2, 3, 4]
  %w: f16[4,4] = constant [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
  %hn: f16[1,4] = layer_norm(%y, %g) {eps=1e-05, normalized_dims=1}
  %yn: f16[1,4] = gemm(%hn, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %hw: f16[1,4] = rms_norm(%z) {eps=1e-06, normalized_dims=1}
  %yw: f16[1,4] = gemm(%hw, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  return %yn, %yw
})",
             R"(
graph(%y: f16[1,4], %z: f16[1,4]) {
  %g: f16[4] = constant [1, 2, 3, 4]
  %w: f16[4,4] = constant [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
  %hn_bias: f16[4] = constant [0, 0, 0, 0]
  %hw_weight: f16[4] = constant [1, 1, 1, 1]
  %yn: f16[1,4] = norm_gemm(%y, %w, %g, %hn_bias) {activation="none", alpha=1.0, beta=1.0, eps=1e-05, norm="layer_norm", trans_b=true}
  %yw: f16[1,4] = norm_gemm(%z, %w, %hw_weight) {activation="none", alpha=1.0, beta=1.0, eps=1e-06, norm="rms_norm", trans_b=true}
  return %yn, %yw
})");
}

}  // namespace
}  // namespace inferno
