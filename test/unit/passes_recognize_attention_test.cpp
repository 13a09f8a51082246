// recognize-attention: attention written out as gemms and a softmax becomes one attention node.
// The op computes the scores, the softmax and the product in one step (double on the reference)
// where the written-out form rounded each op, so outputs compare at fp32 tolerances (f16's for
// the f16 form).
#include <functional>
#include <string>

#include "passes_helpers.h"
#include "support/catch.h"

namespace inferno {
namespace {

using test::check_pass;
using test::check_unchanged;

/// The elements of an n x n bool constant, row-major, true where keep(i, j).
std::string bool_matrix(int n, const std::function<bool(int, int)>& keep) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j)
      out += std::string(out.empty() ? "" : ", ") + (keep(i, j) ? "true" : "false");
  }
  return out;
}

/// An n x n f32 constant: 0 where keep(i, j), `fill` elsewhere.
std::string additive_matrix(int n, const std::function<bool(int, int)>& keep,
                            const std::string& fill) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j)
      out += std::string(out.empty() ? "" : ", ") + (keep(i, j) ? "0" : fill);
  }
  return out;
}

bool lower(int i, int j) { return j <= i; }
bool strictly_upper(int i, int j) { return j > i; }
bool upper(int i, int j) { return j >= i; }

TEST_CASE("recognize-attention: 4-D scores divided by sqrt(d), an additive padding mask") {
  check_pass({"recognize-attention", "dce"}, R"(
graph(%q: f32[2,4,8,16], %k: f32[2,4,8,16], %v: f32[2,4,8,12], %m: f32[2,1,1,8]) {
  %d: f32[] = constant [4.0]
  %s: f32[2,4,8,8] = gemm(%q, %k) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %sd: f32[2,4,8,8] = div(%s, %d)
  %z: f32[2,4,8,8] = add(%sd, %m)
  %p: f32[2,4,8,8] = softmax(%z) {dim=3}
  %o: f32[2,4,8,12] = gemm(%p, %v) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %o
})",
             R"(
graph(%q: f32[2,4,8,16], %k: f32[2,4,8,16], %v: f32[2,4,8,12], %m: f32[2,1,1,8]) {
  %o: f32[2,4,8,12] = attention(%q, %k, %v, %m) {causal=false, kv_groups=1, mask="additive", scale=0.25}
  return %o
})",
             test::kFp32);
}

TEST_CASE("recognize-attention: GPT-2's sliced tril buffer in where(c, scores, min) is causal") {
  const std::string input = R"(
graph(%q: f32[1,2,8,16], %k: f32[1,2,8,16], %v: f32[1,2,8,16]) {
  %c: f32[] = constant [0.25]
  %tril: bool[1,1,8,8] = constant [)" +
                            bool_matrix(8, lower) + R"(]
  %min: f32[] = constant [-3.4028234663852886e38]
  %s: f32[1,2,8,8] = gemm(%q, %k) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %sc: f32[1,2,8,8] = mul(%s, %c)
  %z: f32[1,2,8,8] = where(%tril, %sc, %min)
  %p: f32[1,2,8,8] = softmax(%z) {dim=3}
  %o: f32[1,2,8,16] = gemm(%p, %v) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %o
})";
  check_pass({"recognize-attention", "dce"}, input, R"(
graph(%q: f32[1,2,8,16], %k: f32[1,2,8,16], %v: f32[1,2,8,16]) {
  %o: f32[1,2,8,16] = attention(%q, %k, %v) {causal=true, kv_groups=1, mask="none", scale=0.25}
  return %o
})",
             test::kFp32);
}

TEST_CASE("recognize-attention: nanoGPT's masked_fill(bias == 0, -inf) is causal, polarity") {
  // masked_fill(c, -inf) masks where c is true: c strictly upper keeps j <= i, causal.
  check_pass({"recognize-attention", "dce"},
             R"(
graph(%q: f32[1,2,6,8], %k: f32[1,2,6,8], %v: f32[1,2,6,8]) {
  %up: bool[1,1,6,6] = constant [)" +
                 bool_matrix(6, strictly_upper) + R"(]
  %ninf: f32[] = constant [-inf]
  %s: f32[1,2,6,6] = gemm(%q, %k) {activation="none", alpha=0.5, beta=1.0, trans_b=true}
  %z: f32[1,2,6,6] = where(%up, %ninf, %s)
  %p: f32[1,2,6,6] = softmax(%z) {dim=3}
  %o: f32[1,2,6,8] = gemm(%p, %v) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %o
})",
             R"(
graph(%q: f32[1,2,6,8], %k: f32[1,2,6,8], %v: f32[1,2,6,8]) {
  %o: f32[1,2,6,8] = attention(%q, %k, %v) {causal=true, kv_groups=1, mask="none", scale=0.5}
  return %o
})",
             test::kFp32);
  // where(c, S, -inf) keeps where c is true: upper (j >= i) is a bool mask, not causal.
  check_pass({"recognize-attention", "dce"},
             R"(
graph(%q: f32[1,2,6,8], %k: f32[1,2,6,8], %v: f32[1,2,6,8]) {
  %up: bool[6,6] = constant [)" +
                 bool_matrix(6, upper) + R"(]
  %ninf: f32[] = constant [-inf]
  %s: f32[1,2,6,6] = gemm(%q, %k) {activation="none", alpha=0.5, beta=1.0, trans_b=true}
  %z: f32[1,2,6,6] = where(%up, %s, %ninf)
  %p: f32[1,2,6,6] = softmax(%z) {dim=3}
  %o: f32[1,2,6,8] = gemm(%p, %v) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %o
})",
             R"(
graph(%q: f32[1,2,6,8], %k: f32[1,2,6,8], %v: f32[1,2,6,8]) {
  %up: bool[6,6] = constant [)" +
                 bool_matrix(6, upper) + R"(]
  %o: f32[1,2,6,8] = attention(%q, %k, %v, %up) {causal=false, kv_groups=1, mask="bool", scale=0.5}
  return %o
})",
             test::kFp32);
  // The wrong polarity, masked_fill(tril, -inf), leaves the last row without a key: the written
  // form gives NaN there and the op zeros, so the graph stays.
  check_unchanged({"recognize-attention"}, R"(
graph(%q: f32[1,2,6,8], %k: f32[1,2,6,8], %v: f32[1,2,6,8]) {
  %tril: bool[1,1,6,6] = constant [)" + bool_matrix(6, lower) +
                                               R"(]
  %ninf: f32[] = constant [-inf]
  %s: f32[1,2,6,6] = gemm(%q, %k) {activation="none", alpha=0.5, beta=1.0, trans_b=true}
  %z: f32[1,2,6,6] = where(%tril, %ninf, %s)
  %p: f32[1,2,6,6] = softmax(%z) {dim=3}
  %o: f32[1,2,6,8] = gemm(%p, %v) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %o
})");
}

TEST_CASE("recognize-attention: a run-time bool mask, masked_fill form, becomes logical_not") {
  check_pass({"recognize-attention", "dce"}, R"(
graph(%q: f32[2,2,4,8], %k: f32[2,2,5,8], %v: f32[2,2,5,8], %pad: bool[2,1,1,5]) {
  %first: bool[5] = constant [false, true, true, true, true]
  %ninf: f32[] = constant [-inf]
  %masked: bool[2,1,1,5] = logical_and(%pad, %first)
  %s: f32[2,2,4,5] = gemm(%q, %k) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %z: f32[2,2,4,5] = where(%masked, %ninf, %s)
  %p: f32[2,2,4,5] = softmax(%z) {dim=3}
  %o: f32[2,2,4,8] = gemm(%p, %v) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %o
})",
             R"(
graph(%q: f32[2,2,4,8], %k: f32[2,2,5,8], %v: f32[2,2,5,8], %pad: bool[2,1,1,5]) {
  %first: bool[5] = constant [false, true, true, true, true]
  %masked: bool[2,1,1,5] = logical_and(%pad, %first)
  %masked_keep: bool[2,1,1,5] = logical_not(%masked)
  %o: f32[2,2,4,8] = attention(%q, %k, %v, %masked_keep) {causal=false, kv_groups=1, mask="bool", scale=1.0}
  return %o
})",
             test::kFp32);
}

TEST_CASE("recognize-attention: nn.MultiheadAttention's 3-D bmm form with q scaled first") {
  check_pass({"recognize-attention", "dce"}, R"(
graph(%q: f32[8,5,16], %k: f32[8,5,16], %v: f32[8,5,16], %m: f32[5,5]) {
  %c: f32[] = constant [4.0]
  %qs: f32[8,5,16] = div(%q, %c)
  %s: f32[8,5,5] = gemm(%qs, %k) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %z: f32[8,5,5] = add(%s, %m)
  %p: f32[8,5,5] = softmax(%z) {dim=2}
  %o: f32[8,5,16] = gemm(%p, %v) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %o
})",
             R"(
graph(%q: f32[8,5,16], %k: f32[8,5,16], %v: f32[8,5,16], %m: f32[5,5]) {
  %q_4d: f32[1,8,5,16] = reshape(%q) {shape=[1, 8, 5, 16]}
  %k_4d: f32[1,8,5,16] = reshape(%k) {shape=[1, 8, 5, 16]}
  %v_4d: f32[1,8,5,16] = reshape(%v) {shape=[1, 8, 5, 16]}
  %o_attention: f32[1,8,5,16] = attention(%q_4d, %k_4d, %v_4d, %m) {causal=false, kv_groups=1, mask="additive", scale=0.25}
  %o: f32[8,5,16] = reshape(%o_attention) {shape=[8, 5, 16]}
  return %o
})",
             test::kFp32);
}

TEST_CASE("recognize-attention: baddbmm's addend is the additive mask (beta 1)") {
  check_pass({"recognize-attention", "dce"}, R"(
graph(%q: f32[8,5,16], %k: f32[8,5,16], %v: f32[8,5,16], %m: f32[5,5]) {
  %s: f32[8,5,5] = gemm(%q, %k, %m) {activation="none", alpha=0.25, beta=1.0, trans_b=true}
  %p: f32[8,5,5] = softmax(%s) {dim=2}
  %o: f32[8,5,16] = gemm(%p, %v) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %o
})",
             R"(
graph(%q: f32[8,5,16], %k: f32[8,5,16], %v: f32[8,5,16], %m: f32[5,5]) {
  %q_4d: f32[1,8,5,16] = reshape(%q) {shape=[1, 8, 5, 16]}
  %k_4d: f32[1,8,5,16] = reshape(%k) {shape=[1, 8, 5, 16]}
  %v_4d: f32[1,8,5,16] = reshape(%v) {shape=[1, 8, 5, 16]}
  %o_attention: f32[1,8,5,16] = attention(%q_4d, %k_4d, %v_4d, %m) {causal=false, kv_groups=1, mask="additive", scale=0.25}
  %o: f32[8,5,16] = reshape(%o_attention) {shape=[8, 5, 16]}
  return %o
})",
             test::kFp32);
  // beta 2 scales the mask: left alone.
  check_unchanged({"recognize-attention"}, R"(
graph(%q: f32[8,5,16], %k: f32[8,5,16], %v: f32[8,5,16], %m: f32[5,5]) {
  %s: f32[8,5,5] = gemm(%q, %k, %m) {activation="none", alpha=0.25, beta=2.0, trans_b=true}
  %p: f32[8,5,5] = softmax(%s) {dim=2}
  %o: f32[8,5,16] = gemm(%p, %v) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %o
})");
}

TEST_CASE("recognize-attention: torch.export's core-ATen form (views, permute, bmm)") {
  check_pass({"recognize-attention", "dce"}, R"(
graph(%q: f32[2,4,8,16], %k: f32[2,4,8,16], %v: f32[2,4,8,16]) {
  %c: f32[] = constant [0.25]
  %q3: f32[8,8,16] = reshape(%q) {shape=[8, 8, 16]}
  %kt: f32[2,4,16,8] = permute(%k) {dims=[0, 1, 3, 2]}
  %kt3: f32[8,16,8] = reshape(%kt) {shape=[8, 16, 8]}
  %s3: f32[8,8,8] = gemm(%q3, %kt3) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  %s: f32[2,4,8,8] = reshape(%s3) {shape=[2, 4, 8, 8]}
  %sc: f32[2,4,8,8] = mul(%s, %c)
  %p: f32[2,4,8,8] = softmax(%sc) {dim=3}
  %p3: f32[8,8,8] = reshape(%p) {shape=[8, 8, 8]}
  %v3: f32[8,8,16] = reshape(%v) {shape=[8, 8, 16]}
  %o3: f32[8,8,16] = gemm(%p3, %v3) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  %o: f32[2,4,8,16] = reshape(%o3) {shape=[2, 4, 8, 16]}
  return %o
})",
             R"(
graph(%q: f32[2,4,8,16], %k: f32[2,4,8,16], %v: f32[2,4,8,16]) {
  %o3_attention: f32[2,4,8,16] = attention(%q, %k, %v) {causal=false, kv_groups=1, mask="none", scale=0.25}
  return %o3_attention
})",
             test::kFp32);
}

TEST_CASE("recognize-attention: core-ATen form whose v is 3-D already (the model's views merged)") {
  // nn.MultiheadAttention exported: v is permute(view(...)) [B * H, S, D], viewed as 4-D and back
  // (two reshapes that canonicalize removed); the op reads it through a new reshape.
  check_pass({"recognize-attention", "dce"}, R"(
graph(%q: f32[2,4,8,16], %k: f32[2,4,8,16], %v3: f32[8,8,16]) {
  %c: f32[] = constant [0.25]
  %q3: f32[8,8,16] = reshape(%q) {shape=[8, 8, 16]}
  %kt: f32[2,4,16,8] = permute(%k) {dims=[0, 1, 3, 2]}
  %kt3: f32[8,16,8] = reshape(%kt) {shape=[8, 16, 8]}
  %s3: f32[8,8,8] = gemm(%q3, %kt3) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  %s: f32[2,4,8,8] = reshape(%s3) {shape=[2, 4, 8, 8]}
  %sc: f32[2,4,8,8] = mul(%s, %c)
  %p: f32[2,4,8,8] = softmax(%sc) {dim=3}
  %p3: f32[8,8,8] = reshape(%p) {shape=[8, 8, 8]}
  %o3: f32[8,8,16] = gemm(%p3, %v3) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %o3
})",
             R"(
graph(%q: f32[2,4,8,16], %k: f32[2,4,8,16], %v3: f32[8,8,16]) {
  %v3_4d: f32[2,4,8,16] = reshape(%v3) {shape=[2, 4, 8, 16]}
  %o3_attention: f32[2,4,8,16] = attention(%q, %k, %v3_4d) {causal=false, kv_groups=1, mask="none", scale=0.25}
  %o3: f32[8,8,16] = reshape(%o3_attention) {shape=[8, 8, 16]}
  return %o3
})",
             test::kFp32);
}

TEST_CASE("recognize-attention: Llama's repeat_kv (GQA) and an additive causal constant") {
  const std::string input = R"(
graph(%q: f32[1,4,6,8], %k: f32[1,2,6,8], %v: f32[1,2,6,8]) {
  %c: f32[] = constant [0.5]
  %causal: f32[1,1,6,6] = constant [)" +
                            additive_matrix(6, lower, "-3.4028234663852886e38") + R"(]
  %k5: f32[1,2,1,6,8] = reshape(%k) {shape=[1, 2, 1, 6, 8]}
  %ke: f32[1,2,2,6,8] = expand(%k5) {shape=[1, 2, 2, 6, 8]}
  %kr: f32[1,4,6,8] = reshape(%ke) {shape=[1, 4, 6, 8]}
  %v5: f32[1,2,1,6,8] = reshape(%v) {shape=[1, 2, 1, 6, 8]}
  %ve: f32[1,2,2,6,8] = expand(%v5) {shape=[1, 2, 2, 6, 8]}
  %vr: f32[1,4,6,8] = reshape(%ve) {shape=[1, 4, 6, 8]}
  %s: f32[1,4,6,6] = gemm(%q, %kr) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %sc: f32[1,4,6,6] = mul(%c, %s)
  %z: f32[1,4,6,6] = add(%sc, %causal)
  %p: f32[1,4,6,6] = softmax(%z) {dim=3}
  %o: f32[1,4,6,8] = gemm(%p, %vr) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %o
})";
  check_pass({"recognize-attention", "dce"}, input, R"(
graph(%q: f32[1,4,6,8], %k: f32[1,2,6,8], %v: f32[1,2,6,8]) {
  %o: f32[1,4,6,8] = attention(%q, %k, %v) {causal=true, kv_groups=2, mask="none", scale=0.5}
  return %o
})",
             test::kFp32);
}

TEST_CASE("recognize-attention: torch's sdpa over repeat_kv reads the kv heads in place") {
  // The frontend's attention node (aten sdpa) after transformers' repeat_kv of k and v.
  check_pass({"recognize-attention", "dce"}, R"(
graph(%q: f32[1,4,1,8], %k: f32[1,1,6,8], %v: f32[1,1,6,8], %m: bool[1,1,1,6]) {
  %k5: f32[1,1,1,6,8] = reshape(%k) {shape=[1, 1, 1, 6, 8]}
  %ke: f32[1,1,4,6,8] = expand(%k5) {shape=[1, 1, 4, 6, 8]}
  %kr: f32[1,4,6,8] = reshape(%ke) {shape=[1, 4, 6, 8]}
  %v5: f32[1,1,1,6,8] = reshape(%v) {shape=[1, 1, 1, 6, 8]}
  %ve: f32[1,1,4,6,8] = expand(%v5) {shape=[1, 1, 4, 6, 8]}
  %vr: f32[1,4,6,8] = reshape(%ve) {shape=[1, 4, 6, 8]}
  %o: f32[1,4,1,8] = attention(%q, %kr, %vr, %m) {causal=false, kv_groups=1, mask="bool", scale=0.5}
  return %o
})",
             R"(
graph(%q: f32[1,4,1,8], %k: f32[1,1,6,8], %v: f32[1,1,6,8], %m: bool[1,1,1,6]) {
  %o: f32[1,4,1,8] = attention(%q, %k, %v, %m) {causal=false, kv_groups=4, mask="bool", scale=0.5}
  return %o
})",
             test::kFp32);
  // k and v repeated differently: left as they are.
  check_unchanged({"recognize-attention"}, R"(
graph(%q: f32[1,4,1,8], %k: f32[1,1,6,8], %v: f32[1,4,6,8]) {
  %k5: f32[1,1,1,6,8] = reshape(%k) {shape=[1, 1, 1, 6, 8]}
  %ke: f32[1,1,4,6,8] = expand(%k5) {shape=[1, 1, 4, 6, 8]}
  %kr: f32[1,4,6,8] = reshape(%ke) {shape=[1, 4, 6, 8]}
  %o: f32[1,4,1,8] = attention(%q, %kr, %v) {causal=false, kv_groups=1, mask="none", scale=0.5}
  return %o
})");
}

TEST_CASE("recognize-attention: f16 scores with the softmax in f32 and cast back") {
  check_pass({"recognize-attention", "dce"}, R"(
graph(%q: f16[1,2,4,8], %k: f16[1,2,4,8], %v: f16[1,2,4,8]) {
  %d: f16[] = constant [4.0]
  %s: f16[1,2,4,4] = gemm(%q, %k) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %sd: f16[1,2,4,4] = div(%s, %d)
  %zf: f32[1,2,4,4] = cast(%sd) {dtype=f32}
  %pf: f32[1,2,4,4] = softmax(%zf) {dim=3}
  %p: f16[1,2,4,4] = cast(%pf) {dtype=f16}
  %o: f16[1,2,4,8] = gemm(%p, %v) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %o
})",
             R"(
graph(%q: f16[1,2,4,8], %k: f16[1,2,4,8], %v: f16[1,2,4,8]) {
  %o: f16[1,2,4,8] = attention(%q, %k, %v) {causal=false, kv_groups=1, mask="none", scale=0.25}
  return %o
})",
             test::Tolerance{2e-3, 2e-3});
}

TEST_CASE("recognize-attention: GPT-2's one-step permute of k to [B, H, D, S]") {
  check_pass({"recognize-attention", "dce"}, R"(
graph(%qs: f32[1,6,2,8], %ks: f32[1,6,2,8], %v: f32[1,2,6,8]) {
  %q: f32[1,2,6,8] = permute(%qs) {dims=[0, 2, 1, 3]}
  %kt: f32[1,2,8,6] = permute(%ks) {dims=[0, 2, 3, 1]}
  %s: f32[1,2,6,6] = gemm(%q, %kt) {activation="none", alpha=0.5, beta=1.0, trans_b=false}
  %p: f32[1,2,6,6] = softmax(%s) {dim=3}
  %o: f32[1,2,6,8] = gemm(%p, %v) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %o
})",
             R"(
graph(%qs: f32[1,6,2,8], %ks: f32[1,6,2,8], %v: f32[1,2,6,8]) {
  %q: f32[1,2,6,8] = permute(%qs) {dims=[0, 2, 1, 3]}
  %ks_k: f32[1,2,6,8] = permute(%ks) {dims=[0, 2, 1, 3]}
  %o: f32[1,2,6,8] = attention(%q, %ks_k, %v) {causal=false, kv_groups=1, mask="none", scale=0.5}
  return %o
})",
             test::kFp32);
}

TEST_CASE("recognize-attention: torch 2's SDPA math form zeroing rows that see no key") {
  // where(not(any(Z != -inf, -1)), 0, softmax(Z)): the op's own behaviour, so exact in meaning
  // even for a mask computed at run time.
  check_pass({"recognize-attention", "dce"}, R"(
graph(%q: f32[1,2,4,8], %k: f32[1,2,4,8], %v: f32[1,2,4,8], %m: f32[1,1,4,4]) {
  %ninf: f32[] = constant [-inf]
  %false: bool[] = constant [false]
  %zero: i64[] = constant [0]
  %zeros: f32[1,2,4,4] = constant [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
  %s: f32[1,2,4,4] = gemm(%q, %k) {activation="none", alpha=0.25, beta=1.0, trans_b=true}
  %z: f32[1,2,4,4] = add(%s, %m)
  %p0: f32[1,2,4,4] = softmax(%z) {dim=3}
  %eq: bool[1,2,4,4] = eq(%z, %ninf)
  %fin: bool[1,2,4,4] = logical_not(%eq)
  %hit: bool[1,2,4,4] = ne(%fin, %false)
  %count: i64[1,2,4,4] = cast(%hit) {dtype=i64}
  %total: i64[1,2,4,1] = sum(%count) {dims=[3], keepdim=true}
  %any: bool[1,2,4,1] = ne(%total, %zero)
  %none: bool[1,2,4,1] = logical_not(%any)
  %p: f32[1,2,4,4] = where(%none, %zeros, %p0)
  %o: f32[1,2,4,8] = gemm(%p, %v) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %o
})",
             R"(
graph(%q: f32[1,2,4,8], %k: f32[1,2,4,8], %v: f32[1,2,4,8], %m: f32[1,1,4,4]) {
  %o: f32[1,2,4,8] = attention(%q, %k, %v, %m) {causal=false, kv_groups=1, mask="additive", scale=0.25}
  return %o
})",
             test::kFp32);
}

TEST_CASE("recognize-attention leaves other softmax dims, fills, mask orders and shared P alone") {
  // Softmax over the queries (dim 2).
  check_unchanged({"recognize-attention"}, R"(
graph(%q: f32[1,2,6,8], %k: f32[1,2,6,8], %v: f32[1,2,6,8]) {
  %s: f32[1,2,6,6] = gemm(%q, %k) {activation="none", alpha=0.5, beta=1.0, trans_b=true}
  %p: f32[1,2,6,6] = softmax(%s) {dim=2}
  %o: f32[1,2,6,8] = gemm(%p, %v) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %o
})");
  // A fill of 0 does not mask.
  check_unchanged({"recognize-attention"}, R"(
graph(%q: f32[1,2,6,8], %k: f32[1,2,6,8], %v: f32[1,2,6,8], %c: bool[6,6]) {
  %zero: f32[] = constant [0.0]
  %s: f32[1,2,6,6] = gemm(%q, %k) {activation="none", alpha=0.5, beta=1.0, trans_b=true}
  %z: f32[1,2,6,6] = where(%c, %zero, %s)
  %p: f32[1,2,6,6] = softmax(%z) {dim=3}
  %o: f32[1,2,6,8] = gemm(%p, %v) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %o
})");
  // The additive mask is scaled with the scores: (S + M) * c is not c * S + M.
  check_unchanged({"recognize-attention"}, R"(
graph(%q: f32[1,2,6,8], %k: f32[1,2,6,8], %v: f32[1,2,6,8], %m: f32[6,6]) {
  %c: f32[] = constant [0.5]
  %s: f32[1,2,6,6] = gemm(%q, %k) {activation="none", alpha=1.0, beta=1.0, trans_b=true}
  %z: f32[1,2,6,6] = add(%s, %m)
  %zc: f32[1,2,6,6] = mul(%z, %c)
  %p: f32[1,2,6,6] = softmax(%zc) {dim=3}
  %o: f32[1,2,6,8] = gemm(%p, %v) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %o
})");
  // The probabilities are a graph output too (need_weights).
  check_unchanged({"recognize-attention"}, R"(
graph(%q: f32[1,2,6,8], %k: f32[1,2,6,8], %v: f32[1,2,6,8]) {
  %s: f32[1,2,6,6] = gemm(%q, %k) {activation="none", alpha=0.5, beta=1.0, trans_b=true}
  %p: f32[1,2,6,6] = softmax(%s) {dim=3}
  %o: f32[1,2,6,8] = gemm(%p, %v) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %o, %p
})");
  // A head dim above 256: the attention kernels' largest tile.
  check_unchanged({"recognize-attention"}, R"(
graph(%q: f32[1,1,2,300], %k: f32[1,1,2,300], %v: f32[1,1,2,8]) {
  %s: f32[1,1,2,2] = gemm(%q, %k) {activation="none", alpha=0.5, beta=1.0, trans_b=true}
  %p: f32[1,1,2,2] = softmax(%s) {dim=3}
  %o: f32[1,1,2,8] = gemm(%p, %v) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %o
})");
  // k not transposed: q @ k is no attention score.
  check_unchanged({"recognize-attention"}, R"(
graph(%q: f32[1,2,6,6], %k: f32[1,2,6,6], %v: f32[1,2,6,8]) {
  %s: f32[1,2,6,6] = gemm(%q, %k) {activation="none", alpha=0.5, beta=1.0, trans_b=false}
  %p: f32[1,2,6,6] = softmax(%s) {dim=3}
  %o: f32[1,2,6,8] = gemm(%p, %v) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %o
})");
}

}  // namespace
}  // namespace inferno
