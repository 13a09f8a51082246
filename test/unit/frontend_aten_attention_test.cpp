// The attention entries of the ATen table on the reference interpreter, against a naive attention
// written here (softmax(scale * q k^T + mask) v per batch and head, in double): SDPA in its ranks
// (2, 3, 4 and 5, the reshapes to [B, H, L, E] and back), bool and additive masks (an f64 mask
// cast to q's dtype), broadcast masks, is_causal, scale, enable_gqa; the export forms and their
// uncomputed outputs; the fast path of nn.MultiheadAttention with each mask_type, its mask
// polarity (true = masked OUT, the opposite of SDPA). Refusals: dropout (exit 2); is_causal with a
// mask, heads that do not divide, masks that do not broadcast (exit 3, naming the node).
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "frontend/aten_table.h"
#include "reference/interpreter.h"
#include "support/catch.h"

namespace inferno::frontend {
namespace {

using ir::DType;
using ir::Shape;
using ir::ValueId;

const AtenArg kNone = NoneArg{};

/// A tensor of `shape` with pseudo-random values in [-1, 1) (a fixed sequence per seed).
ir::Tensor values(DType dtype, Shape shape, int seed) {
  ir::Tensor t = ir::Tensor::zeros({dtype, std::move(shape)});
  uint32_t s = 2654435761u * static_cast<uint32_t>(seed + 1);
  for (int64_t i = 0; i < t.numel(); ++i) {
    s = s * 1664525u + 1013904223u;
    t.set(i, static_cast<double>(s >> 8) / static_cast<double>(1u << 23) - 1.0);
  }
  return t;
}

/// The naive attention over [B, H, L, E] data (flat, row-major); keep(b, h, i, j) says whether
/// query i sees key j, bias(b, h, i, j) is added. Fully masked rows give zeros.
std::vector<double> naive(const ir::Tensor& q, const ir::Tensor& k, const ir::Tensor& v, Shape s,
                          int64_t S, int64_t Hkv, double scale,
                          const std::function<bool(int64_t, int64_t, int64_t, int64_t)>& keep,
                          const std::function<double(int64_t, int64_t, int64_t, int64_t)>& bias) {
  const int64_t B = s[0], H = s[1], L = s[2], E = s[3], Ev = v.type.shape.back();
  std::vector<double> out(static_cast<size_t>(B * H * L * Ev), 0.0);
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t h = 0; h < H; ++h) {
      const int64_t hk = h / (H / Hkv);
      for (int64_t i = 0; i < L; ++i) {
        std::vector<double> w(static_cast<size_t>(S), 0.0);
        double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j < S; ++j) {
          if (!keep(b, h, i, j)) {
            w[static_cast<size_t>(j)] = -INFINITY;
            continue;
          }
          double dot = 0;
          for (int64_t e = 0; e < E; ++e)
            dot += q.get(((b * H + h) * L + i) * E + e) * k.get(((b * Hkv + hk) * S + j) * E + e);
          w[static_cast<size_t>(j)] = dot * scale + bias(b, h, i, j);
          mx = std::max(mx, w[static_cast<size_t>(j)]);
        }
        if (mx == -INFINITY) continue;
        for (double& x : w) sum += (x = std::exp(x - mx));
        for (int64_t e = 0; e < Ev; ++e) {
          double acc = 0;
          for (int64_t j = 0; j < S; ++j)
            acc += w[static_cast<size_t>(j)] / sum * v.get(((b * Hkv + hk) * S + j) * Ev + e);
          out[static_cast<size_t>(((b * H + h) * L + i) * Ev + e)] = acc;
        }
      }
    }
  }
  return out;
}

const auto kAll = [](int64_t, int64_t, int64_t, int64_t) { return true; };
const auto kNoBias = [](int64_t, int64_t, int64_t, int64_t) { return 0.0; };

struct G {
  ir::Graph g;
  std::vector<ir::Tensor> data;

  ValueId input(const std::string& name, DType dtype, Shape shape) {
    data.push_back(values(dtype, shape, static_cast<int>(data.size())));
    return g.add_input(name, {dtype, std::move(shape)});
  }
  Expected<std::vector<ValueId>> lower(std::string op, std::vector<AtenArg> args,
                                       std::vector<std::pair<std::string, AtenArg>> kw = {}) {
    AtenCall call{std::move(op), "default", std::move(args), std::move(kw), "node", {"m.py", 7}};
    return lower_aten_call(g, call);
  }
  ir::Tensor run(ValueId out) {
    g.set_outputs({out});
    auto result = reference::evaluate(g, data);
    INFO((result ? std::string() : result.status().to_string()));
    REQUIRE(result.has_value());
    return result->front();
  }
  ir::Tensor run1(std::string op, std::vector<AtenArg> args,
                  std::vector<std::pair<std::string, AtenArg>> kw = {}) {
    auto out = lower(std::move(op), std::move(args), std::move(kw));
    INFO((out ? std::string() : out.status().to_string()));
    REQUIRE(out.has_value());
    return run(out->front());
  }
  Status error(std::string op, std::vector<AtenArg> args,
               std::vector<std::pair<std::string, AtenArg>> kw = {}) {
    auto out = lower(std::move(op), std::move(args), std::move(kw));
    REQUIRE(!out.has_value());
    CHECK(out.status().node() == "node");
    return out.status();
  }
};

void check_close(const ir::Tensor& got, const std::string& type, const std::vector<double>& want) {
  CHECK(got.type.to_string() == type);
  REQUIRE(got.numel() == static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i);
    CHECK(std::abs(got.get(static_cast<int64_t>(i)) - want[i]) <= 1e-5 + 1e-5 * std::abs(want[i]));
  }
}

TEST_CASE("aten scaled_dot_product_attention, rank 4: masks, causal, scale, gqa",
          "[frontend][aten][attention]") {
  const Shape s = {2, 4, 3, 5};
  SECTION("no mask, default scale 1/sqrt(E), Ev != E") {
    G t;
    ValueId q = t.input("q", DType::kF32, s), k = t.input("k", DType::kF32, {2, 4, 6, 5}),
            v = t.input("v", DType::kF32, {2, 4, 6, 7});
    const ir::Tensor out = t.run1("aten::scaled_dot_product_attention", {q, k, v});
    check_close(out, "f32[2,4,3,7]",
                naive(t.data[0], t.data[1], t.data[2], s, 6, 4, 1 / std::sqrt(5.0), kAll, kNoBias));
  }
  SECTION("a bool mask [L, S] keeps where true; an explicit scale") {
    G t;
    ValueId q = t.input("q", DType::kF32, s), k = t.input("k", DType::kF32, {2, 4, 6, 5}),
            v = t.input("v", DType::kF32, {2, 4, 6, 5});
    ir::Tensor m = ir::Tensor::zeros({DType::kBool, {3, 6}});
    for (int64_t i = 0; i < 18; ++i) m.set(i, (i * 7) % 3 != 0 ? 1 : 0);
    ValueId mask = t.g.add_constant("mask", m);
    const ir::Tensor out =
        t.run1("aten::scaled_dot_product_attention", {q, k, v, mask}, {{"scale", 0.3}});
    check_close(out, "f32[2,4,3,5]",
                naive(
                    t.data[0], t.data[1], t.data[2], s, 6, 4, 0.3,
                    [&](int64_t, int64_t, int64_t i, int64_t j) { return m.get(i * 6 + j) != 0; },
                    kNoBias));
  }
  SECTION("an f64 additive mask [B, 1, 1, S] is cast to f32 and added") {
    G t;
    ValueId q = t.input("q", DType::kF32, s), k = t.input("k", DType::kF32, {2, 4, 6, 5}),
            v = t.input("v", DType::kF32, {2, 4, 6, 5});
    ir::Tensor m = values(DType::kF64, {2, 1, 1, 6}, 9);
    m.set(3, -INFINITY);
    ValueId mask = t.g.add_constant("mask", m);
    const ir::Tensor out = t.run1("aten::scaled_dot_product_attention", {q, k, v, mask});
    check_close(out, "f32[2,4,3,5]",
                naive(t.data[0], t.data[1], t.data[2], s, 6, 4, 1 / std::sqrt(5.0), kAll,
                      [&](int64_t b, int64_t, int64_t, int64_t j) {
                        return static_cast<double>(static_cast<float>(m.get(b * 6 + j)));
                      }));
  }
  SECTION("is_causal: top-left aligned, L < S") {
    G t;
    ValueId q = t.input("q", DType::kF32, s), k = t.input("k", DType::kF32, {2, 4, 6, 5}),
            v = t.input("v", DType::kF32, {2, 4, 6, 5});
    const ir::Tensor out =
        t.run1("aten::scaled_dot_product_attention", {q, k, v, kNone, 0.0, true});
    check_close(out, "f32[2,4,3,5]",
                naive(
                    t.data[0], t.data[1], t.data[2], s, 6, 4, 1 / std::sqrt(5.0),
                    [](int64_t, int64_t, int64_t i, int64_t j) { return j <= i; }, kNoBias));
  }
  SECTION("enable_gqa: 4 query heads over 2 key/value heads") {
    G t;
    ValueId q = t.input("q", DType::kF32, s), k = t.input("k", DType::kF32, {2, 2, 6, 5}),
            v = t.input("v", DType::kF32, {2, 2, 6, 5});
    const ir::Tensor out =
        t.run1("aten::scaled_dot_product_attention", {q, k, v}, {{"enable_gqa", true}});
    check_close(out, "f32[2,4,3,5]",
                naive(t.data[0], t.data[1], t.data[2], s, 6, 2, 1 / std::sqrt(5.0), kAll, kNoBias));
  }
}

TEST_CASE("aten scaled_dot_product_attention in ranks 2, 3 and 5", "[frontend][aten][attention]") {
  SECTION("rank 3 [N, L, E] is [N, 1, L, E], with a rank-3 mask") {
    G t;
    ValueId q = t.input("q", DType::kF32, {2, 3, 4}), k = t.input("k", DType::kF32, {2, 5, 4}),
            v = t.input("v", DType::kF32, {2, 5, 4});
    ir::Tensor m = ir::Tensor::zeros({DType::kBool, {2, 1, 5}});
    for (int64_t i = 0; i < 10; ++i) m.set(i, i % 4 != 1 ? 1 : 0);
    ValueId mask = t.g.add_constant("mask", m);
    const ir::Tensor out = t.run1("aten::scaled_dot_product_attention", {q, k, v, mask});
    check_close(out, "f32[2,3,4]",
                naive(
                    t.data[0], t.data[1], t.data[2], {2, 1, 3, 4}, 5, 1, 0.5,
                    [&](int64_t b, int64_t, int64_t, int64_t j) { return m.get(b * 5 + j) != 0; },
                    kNoBias));
  }
  SECTION("rank 2 [L, E]") {
    G t;
    ValueId q = t.input("q", DType::kF32, {3, 4}), k = t.input("k", DType::kF32, {5, 4}),
            v = t.input("v", DType::kF32, {5, 2});
    const ir::Tensor out = t.run1("aten::scaled_dot_product_attention", {q, k, v});
    check_close(out, "f32[3,2]",
                naive(t.data[0], t.data[1], t.data[2], {1, 1, 3, 4}, 5, 1, 0.5, kAll, kNoBias));
  }
  SECTION("rank 5 flattens the batch dims; a mask [N2, 1, L, S] is expanded first") {
    G t;
    ValueId q = t.input("q", DType::kF32, {2, 3, 2, 3, 4}),
            k = t.input("k", DType::kF32, {2, 3, 2, 5, 4}),
            v = t.input("v", DType::kF32, {2, 3, 2, 5, 4});
    ir::Tensor m = ir::Tensor::zeros({DType::kBool, {3, 1, 3, 5}});
    for (int64_t i = 0; i < m.numel(); ++i) m.set(i, (i * 5) % 7 != 0 ? 1 : 0);
    ValueId mask = t.g.add_constant("mask", m);
    const ir::Tensor out = t.run1("aten::scaled_dot_product_attention", {q, k, v, mask});
    check_close(out, "f32[2,3,2,3,4]",
                naive(
                    t.data[0], t.data[1], t.data[2], {6, 2, 3, 4}, 5, 2, 0.5,
                    [&](int64_t b, int64_t, int64_t i, int64_t j) {
                      return m.get(((b % 3) * 3 + i) * 5 + j) != 0;
                    },
                    kNoBias));
  }
}

TEST_CASE("aten SDPA export forms: output 0 computed, the others not",
          "[frontend][aten][attention]") {
  const std::vector<std::pair<std::string, size_t>> forms = {
      {"aten::_scaled_dot_product_flash_attention", 9},
      {"aten::_scaled_dot_product_flash_attention_for_cpu", 2},
      {"aten::_scaled_dot_product_efficient_attention", 4},
      {"aten::_scaled_dot_product_cudnn_attention", 9}};
  for (const auto& [op, count] : forms) {
    INFO(op);
    G t;
    const Shape s = {1, 2, 3, 4};
    ValueId q = t.input("q", DType::kF32, s), k = t.input("k", DType::kF32, s),
            v = t.input("v", DType::kF32, s);
    std::vector<std::pair<std::string, AtenArg>> kw = {{"is_causal", true}};
    // attn_bias and compute_log_sumexp follow q, k, v in these two (built whole: GCC 12 reports
    // pushing a variant into the vector as maybe-uninitialized)
    const bool with_bias =
        op.find("efficient") != std::string::npos || op.find("cudnn") != std::string::npos;
    const std::vector<AtenArg> args =
        with_bias ? std::vector<AtenArg>{q, k, v, kNone, false} : std::vector<AtenArg>{q, k, v};
    auto out = t.lower(op, args, kw);
    INFO((out ? std::string() : out.status().to_string()));
    REQUIRE(out.has_value());
    REQUIRE(out->size() == count);
    for (size_t i = 1; i < count; ++i) CHECK((*out)[i] == ir::kNoValue);
    check_close(t.run(out->front()), "f32[1,2,3,4]",
                naive(
                    t.data[0], t.data[1], t.data[2], s, 3, 2, 0.5,
                    [](int64_t, int64_t, int64_t i, int64_t j) { return j <= i; }, kNoBias));
  }
  // The export forms take is_causal with a bias (the public op refuses both).
  G t;
  const Shape s = {1, 2, 3, 4};
  ValueId q = t.input("q", DType::kF32, s), k = t.input("k", DType::kF32, s),
          v = t.input("v", DType::kF32, s), bias = t.input("bias", DType::kF32, {1, 1, 3, 3});
  auto out =
      t.lower("aten::_scaled_dot_product_efficient_attention", {q, k, v, bias, false, 0.0, true});
  INFO((out ? std::string() : out.status().to_string()));
  REQUIRE(out.has_value());
  check_close(
      t.run(out->front()), "f32[1,2,3,4]",
      naive(
          t.data[0], t.data[1], t.data[2], s, 3, 2, 0.5,
          [](int64_t, int64_t, int64_t i, int64_t j) { return j <= i; },
          [&](int64_t, int64_t, int64_t i, int64_t j) { return t.data[3].get(i * 3 + j); }));
}

TEST_CASE("aten SDPA refusals", "[frontend][aten][attention]") {
  G t;
  ValueId q = t.input("q", DType::kF32, {2, 4, 3, 5}), k = t.input("k", DType::kF32, {2, 3, 6, 5}),
          v = t.input("v", DType::kF32, {2, 3, 6, 5}),
          k4 = t.input("k4", DType::kF32, {2, 4, 6, 5}),
          i = t.input("i", DType::kI64, {2, 4, 3, 5}), bad = t.input("m", DType::kBool, {4, 6});
  const std::string op = "aten::scaled_dot_product_attention";
  const Status dropout = t.error(op, {q, k4, k4, kNone, 0.1});
  CHECK(dropout.code() == ErrorCode::kUnsupported);
  CHECK(dropout.message().find("dropout") != std::string::npos);
  const Status both = t.error(
      op,
      {q, k4, k4, t.g.add_constant("keep", ir::Tensor::zeros({DType::kBool, {3, 6}})), 0.0, true});
  CHECK(both.code() == ErrorCode::kInvalidInput);
  CHECK(both.message().find("is_causal") != std::string::npos);
  CHECK(t.error(op, {q, k, v}, {{"enable_gqa", true}}).code() == ErrorCode::kInvalidInput);
  CHECK(t.error(op, {q, k, v}).code() == ErrorCode::kInvalidInput);  // heads differ, no gqa
  const Status mask = t.error(op, {q, k4, k4, bad});
  CHECK(mask.code() == ErrorCode::kInvalidInput);
  CHECK(mask.message().find("does not broadcast") != std::string::npos);
  CHECK(t.error(op, {i, i, i}).code() == ErrorCode::kInvalidInput);
  CHECK(t.error("aten::_scaled_dot_product_flash_attention", {q, k4, k4, 0.5}).code() ==
        ErrorCode::kUnsupported);
}

/// _native_multi_head_attention's inputs: x [B, L, E] and the projections (E = 4, 2 heads).
struct Mha : G {
  ValueId x, w, b, pw, pb;
  Mha() {
    x = input("x", DType::kF32, {2, 3, 4});
    w = g.add_constant("w", values(DType::kF32, {12, 4}, 11));
    b = g.add_constant("b", values(DType::kF32, {12}, 12));
    pw = g.add_constant("pw", values(DType::kF32, {4, 4}, 13));
    pb = g.add_constant("pb", values(DType::kF32, {4}, 14));
  }
  std::vector<AtenArg> args(AtenArg mask, AtenArg type, int64_t heads = 2) {
    return {x, x, x, int64_t{4}, heads, w, b, pw, pb, mask, true, true, type};
  }
  /// The expected output: projections in double, naive attention, out projection.
  std::vector<double> expect(const std::function<bool(int64_t, int64_t, int64_t)>& masked) {
    const ir::Tensor& xs = data[0];
    const ir::Tensor W = values(DType::kF32, {12, 4}, 11), Bv = values(DType::kF32, {12}, 12),
                     P = values(DType::kF32, {4, 4}, 13), Pb = values(DType::kF32, {4}, 14);
    ir::Tensor parts[3] = {ir::Tensor::zeros({DType::kF64, {2, 2, 3, 2}}),
                           ir::Tensor::zeros({DType::kF64, {2, 2, 3, 2}}),
                           ir::Tensor::zeros({DType::kF64, {2, 2, 3, 2}})};
    for (int64_t p = 0; p < 3; ++p)
      for (int64_t bb = 0; bb < 2; ++bb)
        for (int64_t l = 0; l < 3; ++l)
          for (int64_t o = 0; o < 4; ++o) {
            double acc = Bv.get(p * 4 + o);
            for (int64_t e = 0; e < 4; ++e)
              acc += xs.get((bb * 3 + l) * 4 + e) * W.get((p * 4 + o) * 4 + e);
            parts[p].set(((bb * 2 + o / 2) * 3 + l) * 2 + o % 2, acc);
          }
    const std::vector<double> att = naive(
        parts[0], parts[1], parts[2], {2, 2, 3, 2}, 3, 2, 1 / std::sqrt(2.0),
        [&](int64_t bb, int64_t, int64_t i, int64_t j) { return !masked(bb, i, j); }, kNoBias);
    std::vector<double> out(24);
    for (int64_t bb = 0; bb < 2; ++bb)
      for (int64_t l = 0; l < 3; ++l)
        for (int64_t o = 0; o < 4; ++o) {
          double acc = Pb.get(o);
          for (int64_t e = 0; e < 4; ++e)
            acc +=
                att[static_cast<size_t>(((bb * 2 + e / 2) * 3 + l) * 2 + e % 2)] * P.get(o * 4 + e);
          out[static_cast<size_t>((bb * 3 + l) * 4 + o)] = acc;
        }
    return out;
  }
};

TEST_CASE("aten _native_multi_head_attention: mask types and polarity (true = masked out)",
          "[frontend][aten][attention]") {
  const std::string op = "aten::_native_multi_head_attention";
  SECTION("no mask; the weights output is not computed") {
    Mha t;
    auto out = t.lower(op, t.args(kNone, kNone));
    REQUIRE(out.has_value());
    REQUIRE(out->size() == 2);
    CHECK((*out)[1] == ir::kNoValue);
    check_close(t.run(out->front()), "f32[2,3,4]",
                t.expect([](int64_t, int64_t, int64_t) { return false; }));
  }
  SECTION("mask_type 1: a key padding mask [B, S], true masks the key out") {
    Mha t;
    ir::Tensor m = ir::Tensor::zeros({DType::kBool, {2, 3}});
    m.set(2, 1);  // batch 0, key 2 padded
    m.set(3, 1);  // batch 1, key 0 padded
    ValueId mask = t.g.add_constant("kpm", m);
    check_close(t.run1(op, t.args(mask, int64_t{1})), "f32[2,3,4]",
                t.expect([&](int64_t b, int64_t, int64_t j) { return m.get(b * 3 + j) != 0; }));
  }
  SECTION("mask_type 1 with a float mask: nonzero (-inf) masks out, as PyTorch converts it") {
    Mha t;
    ir::Tensor m = ir::Tensor::zeros({DType::kF32, {2, 3}});
    m.set(1, -INFINITY);
    ValueId mask = t.g.add_constant("kpm", m);
    check_close(t.run1(op, t.args(mask, int64_t{1})), "f32[2,3,4]",
                t.expect([&](int64_t b, int64_t, int64_t j) { return b == 0 && j == 1; }));
  }
  SECTION("mask_type 0: an attention mask [L, S]; mask_type 2: [B, 1, L, S]") {
    Mha t;
    ir::Tensor m = ir::Tensor::zeros({DType::kBool, {3, 3}});
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = i + 1; j < 3; ++j) m.set(i * 3 + j, 1);  // causal: future keys masked
    ValueId mask = t.g.add_constant("am", m);
    check_close(t.run1(op, t.args(mask, int64_t{0})), "f32[2,3,4]",
                t.expect([](int64_t, int64_t i, int64_t j) { return j > i; }));
    Mha u;
    ir::Tensor m4 = ir::Tensor::zeros({DType::kBool, {2, 1, 3, 3}});
    m4.set(9 + 4, 1);  // batch 1, query 1, key 1
    ValueId mask4 = u.g.add_constant("m4", m4);
    check_close(
        u.run1(op, u.args(mask4, int64_t{2})), "f32[2,3,4]",
        u.expect([](int64_t b, int64_t i, int64_t j) { return b == 1 && i == 1 && j == 1; }));
  }
  SECTION("refusals name the node") {
    Mha t;
    CHECK(t.error(op, t.args(kNone, kNone, 3)).message().find("not divisible") !=
          std::string::npos);
    ValueId m = t.g.add_constant("kpm", ir::Tensor::zeros({DType::kBool, {2, 3}}));
    CHECK(t.error(op, t.args(m, kNone)).code() == ErrorCode::kInvalidInput);       // no mask_type
    CHECK(t.error(op, t.args(m, int64_t{0})).code() == ErrorCode::kInvalidInput);  // not [L, S]
    CHECK(t.error(op, t.args(m, int64_t{5})).code() == ErrorCode::kInvalidInput);
  }
}

/// _transformer_encoder_layer_fwd's arguments over an Mha's graph (FFN width 8, relu).
std::vector<AtenArg> encoder_args(Mha& t, int64_t heads) {
  ValueId norm = t.g.add_constant("norm", values(DType::kF32, {4}, 3));
  ValueId f1 = t.g.add_constant("f1", values(DType::kF32, {8, 4}, 4));
  ValueId f1b = t.g.add_constant("f1b", values(DType::kF32, {8}, 5));
  ValueId f2 = t.g.add_constant("f2", values(DType::kF32, {4, 8}, 6));
  return {t.x,  int64_t{4}, heads, t.w,  t.b,  t.pw, t.pb, false, false,
          1e-5, norm,       t.pb,  norm, t.pb, f1,   f1b,  f2,    t.pb};
}

TEST_CASE("aten _transformer_encoder_layer_fwd: heads must divide embed_dim",
          "[frontend][aten][attention]") {
  Mha t;
  auto out = t.lower("aten::_transformer_encoder_layer_fwd", encoder_args(t, 2));
  INFO((out ? std::string() : out.status().to_string()));
  REQUIRE(out.has_value());
  CHECK(t.run(out->front()).type.to_string() == "f32[2,3,4]");  // values: the fixture test
  Mha u;
  const Status s = u.error("aten::_transformer_encoder_layer_fwd", encoder_args(u, 3));
  CHECK(s.code() == ErrorCode::kInvalidInput);
  CHECK(s.message().find("not divisible") != std::string::npos);
}

}  // namespace
}  // namespace inferno::frontend
