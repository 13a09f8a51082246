// verify's per-node tolerance (reference/rounding_allowance.h) against kernels written here as a
// GPU computes them: a GEMM and a convolution summing in float in another order than the
// reference's, and a flash-style attention rounding its probabilities to f16 before P @ V. Each
// such "device" output is first shown to fail torch.testing's per-dtype tolerance alone (so each
// test would catch a regression to it), then to pass with the allowance; and real bugs (a dropped
// bias, a swapped index, one element off by 1% of the output's scale, a flipped exponent bit) must
// still be named at the right node.
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "reference/interpreter.h"
#include "reference/node_check.h"
#include "support/catch.h"
#include "support/half.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using ir::Tensor;
using ir::TensorType;

/// A tensor of `graph`'s input `index` with values uniform in [lo, hi) (deterministic).
Tensor uniform(const ir::Graph& graph, size_t index, double lo, double hi, uint32_t seed) {
  std::mt19937 rng(seed);
  Tensor t = Tensor::zeros(graph.type(graph.inputs()[index]));
  for (int64_t i = 0; i < t.numel(); ++i)
    t.set(i, lo + (hi - lo) * static_cast<double>(rng() >> 8) / 16777216.0);
  return t;
}

/// `value` rounded to `dtype` (f16 or f32) as a store would.
float round_to(ir::DType dtype, float value) {
  return dtype == ir::DType::kF16 ? half_bits_to_float(float_to_half_bits(value)) : value;
}

/// Every node's output as a device gives it: node 0's is `first` (the kernel under test), each
/// later one the reference's on the device's values (those kernels are exact here).
std::vector<Tensor> device_outputs(const ir::Graph& graph, const std::vector<Tensor>& in,
                                   Tensor first) {
  std::vector<const Tensor*> value_of(static_cast<size_t>(graph.num_values()), nullptr);
  for (size_t i = 0; i < in.size(); ++i) value_of[static_cast<size_t>(graph.inputs()[i])] = &in[i];
  std::vector<Tensor> out(graph.nodes().size());
  out[0] = std::move(first);
  value_of[static_cast<size_t>(graph.nodes()[0].outputs[0])] = &out[0];
  for (size_t n = 1; n < graph.nodes().size(); ++n) {
    const ir::Node& node = graph.nodes()[n];
    std::vector<const Tensor*> args;
    for (const ir::ValueId v : node.inputs) args.push_back(value_of[static_cast<size_t>(v)]);
    auto result = reference::evaluate_node(graph, node, args);
    REQUIRE(result.has_value());
    out[n] = std::move(result->front());
    value_of[static_cast<size_t>(node.outputs[0])] = &out[n];
  }
  return out;
}

reference::NodeCheck check(const ir::Graph& graph, const std::vector<Tensor>& in,
                           const std::vector<Tensor>& device,
                           const reference::AllowanceOptions& options = {}) {
  auto result = reference::check_nodes(
      graph, in, [&](int32_t n) { return &device[static_cast<size_t>(n)]; }, options);
  INFO((result ? "" : result.status().to_string()));
  REQUIRE(result.has_value());
  return *result;
}

/// Node 0's reference output on `in`.
Tensor reference_of_first(const ir::Graph& graph, const std::vector<Tensor>& in) {
  std::vector<const Tensor*> args;
  for (const ir::ValueId v : graph.nodes()[0].inputs) {
    for (size_t i = 0; i < in.size(); ++i)
      if (graph.inputs()[i] == v) args.push_back(&in[i]);
  }
  auto result = reference::evaluate_node(graph, graph.nodes()[0], args);
  REQUIRE(result.has_value());
  return std::move(result->front());
}

bool fails_dtype_tolerance_alone(const Tensor& expected, const Tensor& device) {
  return reference::first_difference(expected, device,
                                     reference::default_tolerance(expected.type.dtype))
      .has_value();
}

/// Checks that node 0's output as `device` gives it is out of the dtype's tolerance alone but
/// accepted by verify (within its rounding allowance); returns the check.
reference::NodeCheck check_accepted(const ir::Graph& graph, const std::vector<Tensor>& in,
                                    const Tensor& device) {
  CHECK(fails_dtype_tolerance_alone(reference_of_first(graph, in), device));
  reference::NodeCheck result = check(graph, in, device_outputs(graph, in, device));
  INFO(reference::describe_check(graph, result));
  CHECK_FALSE(result.mismatch.has_value());
  return result;
}

double largest_magnitude(const Tensor& t) {
  double largest = 0;
  for (int64_t i = 0; i < t.numel(); ++i) largest = std::max(largest, std::fabs(t.get(i)));
  return largest;
}

/// Flips bit 0x40 of the top byte of element `i`, as `--corrupt-node` does on the GPU: the
/// exponent's highest bit for f32 and f16.
void flip_exponent_bit(Tensor& t, int64_t i) {
  const auto size = static_cast<int64_t>(ir::dtype_size(t.type.dtype));
  t.data[static_cast<size_t>(i * size + size - 1)] ^= std::byte{0x40};
}

// ---- GEMM -----------------------------------------------------------------------------------

// A 1x1 convolution as a GEMM, as in ResNet-50's last stage: K = 2048 nonnegative activations
// (after a relu) against positive weights, with a folded batch norm's bias cancelling most of
// the sum, so the results are small against the terms summed.
std::string gemm_graph(const char* dtype) {
  const std::string t = dtype;
  return "graph(%x: " + t + "[8,2048], %w: " + t + "[2048,16], %c: " + t + "[16]) {\n" +
         "  %m: " + t +
         "[8,16] = gemm(%x, %w, %c) {activation=\"none\", alpha=1.0, beta=1.0, trans_b=false} "
         "loc(\"conv.py\":553)\n"
         "  %r: " +
         t + "[8,16] = relu(%m) loc(\"conv.py\":554)\n  return %r\n}";
}

std::vector<Tensor> gemm_inputs(const ir::Graph& graph) {
  std::vector<Tensor> in = {uniform(graph, 0, 0, 1, 1), uniform(graph, 1, 0, 0.05, 2),
                            Tensor::zeros(graph.type(graph.inputs()[2]))};
  for (int64_t n = 0; n < 16; ++n) in[2].set(n, -25.6 + 0.2 * static_cast<double>(n % 5));
  return in;
}

/// The GEMM as a GPU thread would sum it: float, k from last to first, then the bias (optional,
/// for the dropped-bias bug), rounded to the dtype; `column` maps an output column to the column
/// of w it reads (the identity, or a swapped index).
Tensor float_gemm(const ir::Graph& graph, const std::vector<Tensor>& in, bool with_bias,
                  const std::function<int64_t(int64_t)>& column) {
  Tensor y = Tensor::zeros(graph.type(graph.nodes()[0].outputs[0]));
  for (int64_t m = 0; m < 8; ++m) {
    for (int64_t n = 0; n < 16; ++n) {
      float acc = 0;
      for (int64_t k = 2048; k-- > 0;)
        acc += static_cast<float>(in[0].get(m * 2048 + k)) *
               static_cast<float>(in[1].get(k * 16 + column(n)));
      if (with_bias) acc += static_cast<float>(in[2].get(n));
      y.set(m * 16 + n, round_to(y.type.dtype, acc));
    }
  }
  return y;
}

int64_t same(int64_t n) { return n; }

}  // namespace

TEST_CASE("verify accepts a 2048-term GEMM summed in float in another order", "[reference]") {
  for (const char* dtype : {"f32", "f16"}) {
    INFO(dtype);
    const ir::Graph graph = test::parse(gemm_graph(dtype));
    const std::vector<Tensor> in = gemm_inputs(graph);
    CHECK(check_accepted(graph, in, float_gemm(graph, in, true, same)).nodes_compared == 2);
  }
}

TEST_CASE("verify names a GEMM with a dropped bias, a swapped column or one bad element",
          "[reference]") {
  for (const char* dtype : {"f32", "f16"}) {
    INFO(dtype);
    const ir::Graph graph = test::parse(gemm_graph(dtype));
    const std::vector<Tensor> in = gemm_inputs(graph);
    auto named = [&](const Tensor& device, int64_t index) {
      const reference::NodeCheck result = check(graph, in, device_outputs(graph, in, device));
      REQUIRE(result.mismatch.has_value());
      CHECK(result.mismatch->node == 0);
      CHECK(result.mismatch->index == index);
      return reference::describe_check(graph, result);
    };
    named(float_gemm(graph, in, false, same), 0);
    // Columns 3 and 4 read each other's weights: the first row's column 3 is named.
    named(float_gemm(graph, in, true, [](int64_t n) { return n == 3 ? 4 : n == 4 ? 3 : n; }), 3);
    // One element off by 1% of the output's largest magnitude.
    Tensor off = float_gemm(graph, in, true, same);
    off.set(37, off.get(37) + 0.01 * largest_magnitude(off));
    const std::string text = named(off, 37);
    CHECK(text.rfind("%m (gemm) at conv.py:553: element [2, 5] is ", 0) == 0);
    CHECK(text.find(std::string("(") + dtype + " tolerance for a 2048-term gemm: rtol ") !=
          std::string::npos);
    // The exponent bit --corrupt-node flips, on element 0.
    Tensor flipped = float_gemm(graph, in, true, same);
    flip_exponent_bit(flipped, 0);
    named(flipped, 0);
  }
}

TEST_CASE("verify allows a 16-bit gelu gemm the rounding of its stored sum", "[reference]") {
  // cuBLASLt stores the f16 sum and an epilogue kernel applies gelu to it: the output may be off
  // by the activation's slope times half an ulp of the sum, beyond the output's own rounding.
  std::string text = gemm_graph("f16");
  text.replace(text.find("activation=\"none\""), std::string("activation=\"none\"").size(),
               "activation=\"gelu\"");
  const ir::Graph graph = test::parse(text);
  std::vector<Tensor> in = gemm_inputs(graph);
  for (int64_t n = 0; n < 16; ++n) in[2].set(n, -23.0 - 0.5 * static_cast<double>(n % 5));
  const Tensor expected = reference_of_first(graph, in);
  std::string plain = gemm_graph("f16");
  const Tensor sums = reference_of_first(test::parse(plain), in);  // before the activation
  // Every element moved by the dtype's tolerance plus 1.2 half-ulps of its sum (u = 2^-11).
  Tensor device = expected;
  for (int64_t i = 0; i < device.numel(); ++i) {
    const double shift =
        1e-5 + 1e-3 * std::fabs(expected.get(i)) + 1.2 * 0x1p-11 * std::fabs(sums.get(i));
    device.set(i, expected.get(i) + shift);
  }
  check_accepted(graph, in, device);
  // One element 1% of the output's largest magnitude off is still named.
  Tensor off = expected;
  off.set(21, off.get(21) + 0.01 * largest_magnitude(off));
  const reference::NodeCheck bad = check(graph, in, device_outputs(graph, in, off));
  REQUIRE(bad.mismatch.has_value());
  CHECK(bad.mismatch->index == 21);
}

TEST_CASE("verify allows TF32 operands only where the GEMMs ran on TF32", "[reference]") {
  const ir::Graph graph = test::parse(gemm_graph("f32"));
  std::vector<Tensor> in = gemm_inputs(graph);
  // Weights cut to TF32's 10 mantissa bits, as the tensor cores read them.
  std::vector<Tensor> tf32_in = in;
  for (int64_t i = 0; i < tf32_in[1].numel(); ++i) {
    float w = static_cast<float>(tf32_in[1].get(i));
    uint32_t bits = 0;
    std::memcpy(&bits, &w, sizeof bits);
    bits &= 0xFFFFE000u;
    std::memcpy(&w, &bits, sizeof bits);
    tf32_in[1].set(i, w);
  }
  const std::vector<Tensor> device =
      device_outputs(graph, in, float_gemm(graph, tf32_in, true, same));
  CHECK(check(graph, in, device).mismatch.has_value());
  reference::AllowanceOptions tf32;
  tf32.tf32_gemms = true;
  CHECK_FALSE(check(graph, in, device, tf32).mismatch.has_value());
}

// ---- convolution ------------------------------------------------------------------------------

namespace {

// A 3x3 convolution over 256 channels (K = 2304), padding 1, nonnegative inputs and weights with
// a cancelling bias as above.
std::string conv_graph(const char* dtype) {
  const std::string t = dtype;
  return "graph(%x: " + t + "[1,256,6,6], %w: " + t + "[8,256,3,3], %b: " + t + "[8]) {\n" +
         "  %y: " + t +
         "[1,8,6,6] = conv2d(%x, %w, %b) {dilation=[1, 1], groups=1, padding=[1, 1, 1, 1], "
         "stride=[1, 1]} loc(\"net.py\":20)\n  return %y\n}";
}

std::vector<Tensor> conv_inputs(const ir::Graph& graph) {
  std::vector<Tensor> in = {uniform(graph, 0, 0, 1, 3), uniform(graph, 1, 0, 0.05, 4),
                            Tensor::zeros(graph.type(graph.inputs()[2]))};
  for (int64_t o = 0; o < 8; ++o) in[2].set(o, -28.8 + 0.1 * static_cast<double>(o));
  return in;
}

/// The convolution summed in float, taps outer and channels inner (the reference's order is the
/// other way round); `flip` reads the kernel upside down (a swapped index).
Tensor float_conv(const ir::Graph& graph, const std::vector<Tensor>& in, bool with_bias,
                  bool flip) {
  Tensor y = Tensor::zeros(graph.type(graph.nodes()[0].outputs[0]));
  for (int64_t o = 0; o < 8; ++o) {
    for (int64_t oh = 0; oh < 6; ++oh) {
      for (int64_t ow = 0; ow < 6; ++ow) {
        float acc = 0;
        for (int64_t i = 0; i < 3; ++i) {
          for (int64_t j = 0; j < 3; ++j) {
            const int64_t h = oh + i - 1, w = ow + j - 1;
            if (h < 0 || h >= 6 || w < 0 || w >= 6) continue;
            const int64_t ki = flip ? 2 - i : i;
            for (int64_t c = 0; c < 256; ++c)
              acc += static_cast<float>(in[0].get((c * 6 + h) * 6 + w)) *
                     static_cast<float>(in[1].get(((o * 256 + c) * 3 + ki) * 3 + j));
          }
        }
        if (with_bias) acc += static_cast<float>(in[2].get(o));
        y.set((o * 6 + oh) * 6 + ow, round_to(y.type.dtype, acc));
      }
    }
  }
  return y;
}

}  // namespace

TEST_CASE("verify accepts a convolution summed in float in another order", "[reference]") {
  for (const char* dtype : {"f32", "f16"}) {
    INFO(dtype);
    const ir::Graph graph = test::parse(conv_graph(dtype));
    const std::vector<Tensor> in = conv_inputs(graph);
    check_accepted(graph, in, float_conv(graph, in, true, false));
  }
}

TEST_CASE("verify names a convolution with a dropped bias, a flipped kernel or one bad element",
          "[reference]") {
  for (const char* dtype : {"f32", "f16"}) {
    INFO(dtype);
    const ir::Graph graph = test::parse(conv_graph(dtype));
    const std::vector<Tensor> in = conv_inputs(graph);
    auto mismatch_at = [&](const Tensor& device) -> int64_t {
      const reference::NodeCheck result = check(graph, in, device_outputs(graph, in, device));
      REQUIRE(result.mismatch.has_value());
      CHECK(result.mismatch->node == 0);
      CHECK(reference::describe_check(graph, result).rfind("%y (conv2d) at net.py:20: ", 0) == 0);
      return result.mismatch->index;
    };
    CHECK(mismatch_at(float_conv(graph, in, false, false)) == 0);
    // Upside down, the first row reads the image's row 1 where it should read nothing (padding).
    CHECK(mismatch_at(float_conv(graph, in, true, true)) == 0);
    Tensor off = float_conv(graph, in, true, false);
    off.set(100, off.get(100) - 0.01 * largest_magnitude(off));
    CHECK(mismatch_at(off) == 100);
    Tensor flipped = float_conv(graph, in, true, false);
    flip_exponent_bit(flipped, 0);
    CHECK(mismatch_at(flipped) == 0);
  }
}

// ---- attention --------------------------------------------------------------------------------

namespace {

// Causal attention with peaked scores (q, k in [-2, 2), head 64) and values of both signs, so
// that the first query rows mix a few values that cancel, as GPT-2's do.
const char* const kAttentionGraph =
    R"(graph(%q: f16[1,2,64,64], %k: f16[1,2,64,64], %v: f16[1,2,64,64]) {
  %o: f16[1,2,64,64] = attention(%q, %k, %v) {causal=true, kv_groups=1, mask="none", scale=0.125} loc("attn.py":7)
  return %o
})";

std::vector<Tensor> attention_inputs(const ir::Graph& graph) {
  return {uniform(graph, 0, -2, 2, 5), uniform(graph, 1, -2, 2, 6), uniform(graph, 2, -1, 1, 7)};
}

/// Flash attention as the tensor-core kernel computes it: float scores, the softmax's numerator
/// exp(s - max) in float, rounded to f16 as the A operand of P @ V with float accumulation, the
/// normalizer summed over the unrounded numerators, one division at the end. `causal` false is
/// the bug of a dropped mask; `scale` another is a wrong scale.
Tensor flash_attention(const ir::Graph& graph, const std::vector<Tensor>& in, bool causal,
                       float scale) {
  Tensor y = Tensor::zeros(graph.type(graph.nodes()[0].outputs[0]));
  constexpr int64_t kRows = 2 * 64, kD = 64, kKeys = 64;
  std::vector<float> s(kKeys);
  for (int64_t row = 0; row < kRows; ++row) {
    const int64_t head = row / 64, i = row % 64, base = head * kKeys * kD;
    float max = -INFINITY;
    const int64_t seen = causal ? i + 1 : kKeys;
    for (int64_t j = 0; j < seen; ++j) {
      float dot = 0;
      for (int64_t e = 0; e < kD; ++e)
        dot += static_cast<float>(in[0].get(row * kD + e)) *
               static_cast<float>(in[1].get(base + j * kD + e));
      s[static_cast<size_t>(j)] = dot * scale;
      max = std::max(max, s[static_cast<size_t>(j)]);
    }
    float l = 0;
    std::vector<float> acc(kD, 0.0f);
    for (int64_t j = 0; j < seen; ++j) {
      const float p = std::exp(s[static_cast<size_t>(j)] - max);
      l += p;
      const float p16 = round_to(ir::DType::kF16, p);
      for (int64_t e = 0; e < kD; ++e)
        acc[static_cast<size_t>(e)] += p16 * static_cast<float>(in[2].get(base + j * kD + e));
    }
    for (int64_t e = 0; e < kD; ++e) y.set(row * kD + e, acc[static_cast<size_t>(e)] / l);
  }
  return y;
}

}  // namespace

TEST_CASE("verify accepts flash attention with f16 probabilities", "[reference]") {
  const ir::Graph graph = test::parse(kAttentionGraph);
  const std::vector<Tensor> in = attention_inputs(graph);
  check_accepted(graph, in, flash_attention(graph, in, true, 0.125f));
}

TEST_CASE("verify names attention without its mask, with a wrong scale or one bad element",
          "[reference]") {
  const ir::Graph graph = test::parse(kAttentionGraph);
  const std::vector<Tensor> in = attention_inputs(graph);
  auto mismatch_at = [&](const Tensor& device) -> int64_t {
    const reference::NodeCheck result = check(graph, in, device_outputs(graph, in, device));
    REQUIRE(result.mismatch.has_value());
    CHECK(result.mismatch->node == 0);
    const std::string text = reference::describe_check(graph, result);
    CHECK(text.rfind("%o (attention) at attn.py:7: ", 0) == 0);
    CHECK(text.find("(f16 tolerance for a 64-term attention: rtol 0.001, atol ") !=
          std::string::npos);
    return result.mismatch->index;
  };
  CHECK(mismatch_at(flash_attention(graph, in, false, 0.125f)) == 0);     // row 0 sees key 0 only
  CHECK(mismatch_at(flash_attention(graph, in, true, 1.0f / 64)) >= 64);  // row 0: v_0 at any scale
  Tensor off = flash_attention(graph, in, true, 0.125f);
  off.set(4000, off.get(4000) + 0.01 * largest_magnitude(off));
  CHECK(mismatch_at(off) == 4000);
  Tensor flipped = flash_attention(graph, in, true, 0.125f);
  flip_exponent_bit(flipped, 0);
  CHECK(mismatch_at(flipped) == 0);
}

// ---- reductions -------------------------------------------------------------------------------

namespace {

const char* const kSumGraph = R"(graph(%x: f32[4,65536]) {
  %s: f32[4] = sum(%x) {dims=[1], keepdim=false} loc("model.py":3)
  return %s
})";

/// Each row summed in float from first to last, plus `bias` on row 2 (the bug of a wrong value).
Tensor float_sum(const Tensor& x, double bias) {
  Tensor y = Tensor::zeros(TensorType{ir::DType::kF32, {4}});
  for (int64_t r = 0; r < 4; ++r) {
    float acc = 0;
    for (int64_t i = 0; i < 65536; ++i) acc += static_cast<float>(x.get(r * 65536 + i));
    y.set(r, acc + (r == 2 ? bias : 0.0));
  }
  return y;
}

}  // namespace

TEST_CASE("verify accepts a 65536-term sum in float and names one 1% off", "[reference]") {
  const ir::Graph graph = test::parse(kSumGraph);
  const std::vector<Tensor> in = {uniform(graph, 0, 0, 1, 8)};
  check_accepted(graph, in, float_sum(in[0], 0));
  const reference::NodeCheck bad =
      check(graph, in, device_outputs(graph, in, float_sum(in[0], 0.01 * 32768)));
  REQUIRE(bad.mismatch.has_value());
  CHECK(bad.mismatch->index == 2);
  CHECK(reference::describe_check(graph, bad).find("(f32 tolerance for a 65536-term sum: ") !=
        std::string::npos);
}

}  // namespace inferno
