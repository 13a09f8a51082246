// transpose-gemm-weights: a constant [K, N] right operand becomes its [N, K] copy with trans_b,
// unless the constant is also read as something else. The same dot products: bit-identical.
#include "passes_helpers.h"
#include "support/catch.h"

namespace inferno {
namespace {

using test::check_pass;
using test::check_unchanged;

TEST_CASE("transpose-gemm-weights: a [K, N] weight (GPT-2's Conv1D) becomes [N, K]") {
  check_pass({"transpose-gemm-weights", "dce"}, R"(
graph(%x: f32[3,2], %x2: f32[4,2]) {
  %w: f32[2,3] = constant [1, 2, 3, 4, 5, 6]
  %b: f32[3] = constant [0.5, -0.5, 1]
  %y: f32[3,3] = gemm(%x, %w, %b) {activation="gelu_tanh", alpha=0.5, beta=1.0, trans_b=false} loc("model.py":4)
  %z: f32[4,3] = gemm(%x2, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %y, %z
})",
             R"(
graph(%x: f32[3,2], %x2: f32[4,2]) {
  %b: f32[3] = constant [0.5, -0.5, 1]
  %w_nk: f32[3,2] = constant [1, 4, 2, 5, 3, 6]
  %y: f32[3,3] = gemm(%x, %w_nk, %b) {activation="gelu_tanh", alpha=0.5, beta=1.0, trans_b=true} loc("model.py":4)
  %z: f32[4,3] = gemm(%x2, %w_nk) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  return %y, %z
})");
}

TEST_CASE("transpose-gemm-weights: leaves [N, K] weights, shared constants and activations") {
  // Already [N, K]; a weight also read by another op (stored once, as it is); a non-constant
  // right operand; a weight that is a graph output.
  check_unchanged({"transpose-gemm-weights"}, R"(
graph(%x: f32[3,2], %r: f32[2,3]) {
  %wt: f32[3,2] = constant [1, 2, 3, 4, 5, 6]
  %ws: f32[2,3] = constant [1, 2, 3, 4, 5, 6]
  %wo: f32[2,3] = constant [6, 5, 4, 3, 2, 1]
  %a: f32[3,3] = gemm(%x, %wt) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %b: f32[3,3] = gemm(%x, %ws) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  %e: f32[2,3] = exp(%ws)
  %c: f32[3,3] = gemm(%x, %r) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  %d: f32[3,3] = gemm(%x, %wo) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %a, %b, %e, %c, %d, %wo
})");
}

}  // namespace
}  // namespace inferno
