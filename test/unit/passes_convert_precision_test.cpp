// convert-precision: IR text in, IR text out for each of its rules (with --precision fp16 and
// bf16), and the converted graph's outputs on the reference interpreter (which rounds every
// stored value to its dtype) against the f32 graph's: a softmax over logits beyond f16's range
// stays finite, a norm over a long row stays accurate.
#include <cmath>
#include <string>
#include <vector>

#include "ir/printer.h"
#include "passes/pipeline.h"
#include "passes_helpers.h"
#include "reference/interpreter.h"
#include "support/catch.h"

namespace inferno {
namespace {

using target::Precision;

ir::Graph convert(const std::string& text, Precision precision,
                  passes::IoPrecision io = passes::IoPrecision::kModel) {
  ir::Graph graph = test::parse(text);
  passes::PipelineOptions options;
  options.pass_options.target.precision = precision;
  options.pass_options.io_precision = io;
  const Status status = passes::run_passes(graph, {"convert-precision"}, options);
  INFO(status.to_string());
  REQUIRE(status.is_ok());
  return graph;
}

/// Converts `input` and checks the text against `expected`, and the outputs against the f32
/// graph's on random inputs within `tolerance` (16-bit storage: a few roundings of 2^-11 or 2^-8).
void check_convert(Precision precision, const std::string& input, const std::string& expected,
                   test::Tolerance tolerance) {
  const ir::Graph before = test::parse(input);
  const ir::Graph after = convert(input, precision);
  CHECK(ir::print_graph(after) == ir::print_graph(test::parse(expected)));
  for (uint64_t seed : {7, 8}) {
    std::vector<ir::Tensor> inputs;
    for (ir::ValueId v : before.inputs())
      inputs.push_back(test::random_tensor(before.type(v), seed * 100 + v));
    test::check_same_outputs(before, after, inputs, tolerance);
  }
}

constexpr test::Tolerance kF16{1e-2, 1e-2};
constexpr test::Tolerance kBf16{5e-2, 5e-2};

TEST_CASE("convert-precision changes nothing with fp32 and tf32") {
  const std::string text = R"(
graph(%x: f32[2,4]) {
  %w: f32[4,3] = constant [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
  %y: f32[2,3] = gemm(%x, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  %s: f32[2,3] = softmax(%y) {dim=1}
  return %s
})";
  for (Precision p : {Precision::kFp32, Precision::kTf32}) {
    CHECK(ir::print_graph(convert(text, p)) == ir::print_graph(test::parse(text)));
  }
}

TEST_CASE("convert-precision runs a gemm chain in f16, converting its weights once") {
  // 0.1 rounds to f16's nearest, 1e6 saturates to 65504 instead of becoming inf; the input is
  // cast where the first gemm reads it and the output cast back after the last one, keeping its
  // name.
  check_convert(Precision::kFp16, R"(
graph(%x: f32[2,4]) {
  %w: f32[4,3] = constant [0.5, -1, 0.25, 1.5, 0.1, -0.5, 2, 1, -1, 0.5, 0.5, 1]
  %b: f32[3] = constant [1, -2, 0.5]
  %big: f32[] = constant [1000000]
  %h: f32[2,3] = gemm(%x, %w, %b) {activation="relu", alpha=1.0, beta=1.0, trans_b=false}
  %w2: f32[3,2] = constant [1, -1, 0.5, 2, -0.25, 1]
  %y: f32[2,2] = gemm(%h, %w2) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  %z: f32[2,2] = minimum(%y, %big)
  return %z
})",
                R"(
graph(%x: f32[2,4]) {
  %w_f16: f16[4,3] = constant [0.5, -1, 0.25, 1.5, 0.0999755859375, -0.5, 2, 1, -1, 0.5, 0.5, 1]
  %b_f16: f16[3] = constant [1, -2, 0.5]
  %w2_f16: f16[3,2] = constant [1, -1, 0.5, 2, -0.25, 1]
  %big_f16: f16[] = constant [65504]
  %x_f16: f16[2,4] = cast(%x) {dtype=f16}
  %h: f16[2,3] = gemm(%x_f16, %w_f16, %b_f16) {activation="relu", alpha=1.0, beta=1.0, trans_b=false}
  %y: f16[2,2] = gemm(%h, %w2_f16) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  %z_f16: f16[2,2] = minimum(%y, %big_f16)
  %z: f32[2,2] = cast(%z_f16) {dtype=f32}
  return %z
})",
                kF16);
}

TEST_CASE("convert-precision keeps softmax in f32 between 16-bit gemms") {
  for (Precision p : {Precision::kFp16, Precision::kBf16}) {
    const std::string t = p == Precision::kFp16 ? "f16" : "bf16";
    check_convert(p, R"(
graph(%x: f32[2,4]) {
  %w: f32[4,4] = constant [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
  %y: f32[2,4] = gemm(%x, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  %s: f32[2,4] = softmax(%y) {dim=1}
  %o: f32[2,4] = gemm(%s, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %o
})",
                  R"(
graph(%x: f32[2,4]) {
  %w_)" + t + ": " + t +
                      R"([4,4] = constant [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
  %x_)" + t + ": " + t +
                      R"([2,4] = cast(%x) {dtype=)" + t + R"(}
  %y: )" + t + R"([2,4] = gemm(%x_)" +
                      t + ", %w_" + t +
                      R"() {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  %y_f32: f32[2,4] = cast(%y) {dtype=f32}
  %s: f32[2,4] = softmax(%y_f32) {dim=1}
  %s_)" + t + ": " + t +
                      R"([2,4] = cast(%s) {dtype=)" + t + R"(}
  %o_)" + t + ": " + t +
                      R"([2,4] = gemm(%s_)" + t + ", %w_" + t +
                      R"() {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  %o: f32[2,4] = cast(%o_)" +
                      t + R"() {dtype=f32}
  return %o
})",
                  p == Precision::kFp16 ? kF16 : kBf16);
  }
}

TEST_CASE("convert-precision: an f16 softmax over logits beyond f16's range does not overflow") {
  const std::string text = R"(
graph(%x: f32[2,4096]) {
  %s: f32[2,4096] = softmax(%x) {dim=1}
  %l: f32[2,4096] = log_softmax(%x) {dim=1}
  return %s, %l
})";
  const ir::Graph before = test::parse(text);
  const ir::Graph after = convert(text, Precision::kFp16);
  CHECK(ir::print_graph(after) == ir::print_graph(before));  // the island: nothing to convert
  ir::Tensor x = ir::Tensor::zeros(before.type(before.inputs()[0]));
  for (int64_t i = 0; i < x.numel(); ++i) x.set(i, 70000.0 - static_cast<double>(i % 97));
  auto want = reference::evaluate(before, {x});
  auto got = reference::evaluate(after, {x});
  REQUIRE(want.has_value());
  REQUIRE(got.has_value());
  for (size_t o = 0; o < 2; ++o) {
    for (int64_t i = 0; i < (*got)[o].numel(); ++i) REQUIRE(std::isfinite((*got)[o].get(i)));
    CHECK(test::compare_close((*got)[o], (*want)[o], 1e-6, 1e-6).empty());
  }
}

TEST_CASE(
    "convert-precision: a 16-bit layer_norm and rms_norm over a 4096-long row stay accurate") {
  // Rows far from zero (10 +- 2): the statistics are computed in f32/f64 from the 16-bit values,
  // so the only error is the input's and output's rounding.
  const std::string text = R"(
graph(%x: f32[3,4096]) {
  %off: f32[] = constant [10]
  %y: f32[3,4096] = add(%x, %off)
  %n: f32[3,4096] = layer_norm(%y) {eps=1e-05, normalized_dims=1}
  %r: f32[3,4096] = rms_norm(%y) {eps=1e-05, normalized_dims=1}
  return %n, %r
})";
  for (Precision p : {Precision::kFp16, Precision::kBf16}) {
    const ir::Graph before = test::parse(text);
    const ir::Graph after = convert(text, p);
    const std::string printed = ir::print_graph(after);
    CHECK(printed.find(p == Precision::kFp16 ? "f16[3,4096] = layer_norm"
                                             : "bf16[3,4096] = layer_norm") != std::string::npos);
    const std::vector<ir::Tensor> inputs = {test::random_tensor(before.type(0), 11)};
    auto want = reference::evaluate(before, inputs);
    auto got = reference::evaluate(after, inputs);
    REQUIRE(want.has_value());
    REQUIRE(got.has_value());
    for (size_t o = 0; o < 2; ++o) {
      double err = 0, norm = 0;
      for (int64_t i = 0; i < (*want)[o].numel(); ++i) {
        const double d = (*got)[o].get(i) - (*want)[o].get(i);
        err += d * d;
        norm += (*want)[o].get(i) * (*want)[o].get(i);
      }
      const double rel_l2 = std::sqrt(err / norm);
      INFO("output " << o << " rel L2 " << rel_l2);
      // layer_norm: the input's rounding at 10 +- 2 (f16 ulp 2^-7) over a standard deviation
      // of 1.15; rms_norm's outputs are near 1, rounded once
      CHECK(rel_l2 < (p == Precision::kFp16 ? 3e-3 : 2e-2));
    }
  }
}

TEST_CASE("convert-precision keeps what follows the model's own f32 upcast in f32") {
  // A model already in f16 that computes a scaling in f32 on purpose (Llama's RMSNorm upcast):
  // nothing changes, and the f32 weight stays f32.
  const std::string text = R"(
graph(%x: f16[2,8]) {
  %w: f32[8] = constant [1, 2, 3, 4, 5, 6, 7, 8]
  %u: f32[2,8] = cast(%x) {dtype=f32}
  %m: f32[2,8] = mul(%u, %w)
  %q: f32[2,8] = mul(%m, %m)
  %d: f16[2,8] = cast(%q) {dtype=f16}
  %r: f16[2,8] = relu(%d)
  return %r
})";
  check_convert(Precision::kFp16, text, text, test::kBitExact);
  check_convert(Precision::kBf16, text, text, test::kBitExact);
}

TEST_CASE("convert-precision leaves integers alone and casts them to the 16-bit type directly") {
  check_convert(Precision::kBf16, R"(
graph(%x: f32[2,4], %i: i64[2,4]) {
  %c: f32[2,4] = cast(%i) {dtype=f32}
  %a: f32[2,4] = add(%x, %c)
  %j: i64[2,4] = add(%i, %i)
  %g: bool[2,4] = gt(%x, %c)
  return %a, %j, %g
})",
                R"(
graph(%x: f32[2,4], %i: i64[2,4]) {
  %c: bf16[2,4] = cast(%i) {dtype=bf16}
  %x_bf16: bf16[2,4] = cast(%x) {dtype=bf16}
  %a_bf16: bf16[2,4] = add(%x_bf16, %c)
  %a: f32[2,4] = cast(%a_bf16) {dtype=f32}
  %j: i64[2,4] = add(%i, %i)
  %g: bool[2,4] = gt(%x_bf16, %c)
  return %a, %j, %g
})",
                // gt compares 16-bit values: random inputs never land within a rounding of %c
                kBf16);
}

TEST_CASE("convert-precision computes a rotary embedding's angles from positions in f32") {
  // transformers' rotary embedding: positions cast to f32, times inv_freq (the K = 1 matmul,
  // canonicalized to a mul), repeated by cat, then cos and sin; the cos scales x. The angles stay
  // f32 (inv_freq too), cos and sin compute in f32 and are read in f16. The mask's cast, which
  // leads to no sin or cos, goes to f16 directly as before.
  const std::string text = R"(
graph(%x: f32[1,4,8], %pos: i64[1,1,4], %keep: i64[1,4,8]) {
  %inv_freq: f32[1,4,1] = constant [1, 0.1, 0.01, 0.001]
  %p: f32[1,1,4] = cast(%pos) {dtype=f32}
  %freqs: f32[1,4,4] = mul(%inv_freq, %p)
  %t: f32[1,4,4] = permute(%freqs) {dims=[0, 2, 1]}
  %emb: f32[1,4,8] = cat(%t, %t) {dim=2}
  %cos: f32[1,4,8] = cos(%emb)
  %sin: f32[1,4,8] = sin(%emb)
  %m: f32[1,4,8] = cast(%keep) {dtype=f32}
  %xc: f32[1,4,8] = mul(%x, %cos)
  %y: f32[1,4,8] = add(%xc, %sin)
  %z: f32[1,4,8] = mul(%y, %m)
  return %z
})";
  check_convert(Precision::kFp16, text, R"(
graph(%x: f32[1,4,8], %pos: i64[1,1,4], %keep: i64[1,4,8]) {
  %inv_freq: f32[1,4,1] = constant [1, 0.1, 0.01, 0.001]
  %p: f32[1,1,4] = cast(%pos) {dtype=f32}
  %freqs: f32[1,4,4] = mul(%inv_freq, %p)
  %t: f32[1,4,4] = permute(%freqs) {dims=[0, 2, 1]}
  %emb: f32[1,4,8] = cat(%t, %t) {dim=2}
  %cos: f32[1,4,8] = cos(%emb)
  %sin: f32[1,4,8] = sin(%emb)
  %m: f16[1,4,8] = cast(%keep) {dtype=f16}
  %x_f16: f16[1,4,8] = cast(%x) {dtype=f16}
  %cos_f16: f16[1,4,8] = cast(%cos) {dtype=f16}
  %xc: f16[1,4,8] = mul(%x_f16, %cos_f16)
  %sin_f16: f16[1,4,8] = cast(%sin) {dtype=f16}
  %y: f16[1,4,8] = add(%xc, %sin_f16)
  %z_f16: f16[1,4,8] = mul(%y, %m)
  %z: f32[1,4,8] = cast(%z_f16) {dtype=f32}
  return %z
})",
                kF16);

  // At position 1000 the f32 angles keep cos and sin within f16's rounding of the f32 graph's;
  // angles computed in f16 (positions cast to f16 first) are off by up to 0.25 radians.
  const ir::Graph before = test::parse(text);
  const ir::Graph after = convert(text, Precision::kFp16);
  ir::Tensor x = ir::Tensor::zeros({ir::DType::kF32, {1, 4, 8}});
  ir::Tensor pos = ir::Tensor::zeros({ir::DType::kI64, {1, 1, 4}});
  ir::Tensor keep = ir::Tensor::zeros({ir::DType::kI64, {1, 4, 8}});
  for (int64_t i = 0; i < 32; ++i) {
    x.set(i, 1.0);
    keep.set(i, 1.0);
  }
  for (int64_t i = 0; i < 4; ++i) pos.set(i, static_cast<double>(997 + i));
  test::check_same_outputs(before, after, {x, pos, keep}, {2e-3, 2e-3});
}

TEST_CASE("convert-precision's casts keep the source line of the node that needs them") {
  const ir::Graph graph = convert(R"(
graph(%x: f32[2,4]) {
  %w: f32[4,4] = constant [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
  %y: f32[2,4] = gemm(%x, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=false} loc("m.py":3)
  %s: f32[2,4] = softmax(%y) {dim=1} loc("m.py":4)
  return %s
})",
                                  Precision::kFp16);
  const std::string text = ir::print_graph(graph);
  INFO(text);
  CHECK(text.find("cast(%x) {dtype=f16} loc(\"m.py\":3)") != std::string::npos);
  CHECK(text.find("cast(%y) {dtype=f32} loc(\"m.py\":4)") != std::string::npos);
}

TEST_CASE("convert-precision keeps exp, pow, sum and what reads them in f32 for f16 only") {
  const std::string text = R"(
graph(%x: f32[2,4]) {
  %c: f32[4] = constant [1, 2, 3, 4]
  %p: f32[2,4] = pow(%x, %c)
  %m: f32[2,4] = mul(%x, %c)
  %a: f32[2,4] = add(%p, %m)
  %e: f32[2,4] = exp(%a)
  %s: f32[2,1] = sum(%e) {dims=[1], keepdim=true}
  %l: f32[2,1] = log(%s)
  %t: f32[2,1] = tanh(%l)
  return %t
})";
  // f16: pow's, sum's and exp's results can exceed 65504, and so can the add reading pow's; log
  // brings the values back into range, so tanh runs in f16. The constant stays f32 for pow and
  // is converted for the mul.
  check_convert(Precision::kFp16, text, R"(
graph(%x: f32[2,4]) {
  %c: f32[4] = constant [1, 2, 3, 4]
  %c_f16: f16[4] = constant [1, 2, 3, 4]
  %p: f32[2,4] = pow(%x, %c)
  %x_f16: f16[2,4] = cast(%x) {dtype=f16}
  %m: f16[2,4] = mul(%x_f16, %c_f16)
  %m_f32: f32[2,4] = cast(%m) {dtype=f32}
  %a: f32[2,4] = add(%p, %m_f32)
  %e: f32[2,4] = exp(%a)
  %s: f32[2,1] = sum(%e) {dims=[1], keepdim=true}
  %l: f32[2,1] = log(%s)
  %l_f16: f16[2,1] = cast(%l) {dtype=f16}
  %t_f16: f16[2,1] = tanh(%l_f16)
  %t: f32[2,1] = cast(%t_f16) {dtype=f32}
  return %t
})",
                kF16);
  // bf16 has f32's range: everything runs in bf16.
  check_convert(Precision::kBf16, text, R"(
graph(%x: f32[2,4]) {
  %c_bf16: bf16[4] = constant [1, 2, 3, 4]
  %x_bf16: bf16[2,4] = cast(%x) {dtype=bf16}
  %p: bf16[2,4] = pow(%x_bf16, %c_bf16)
  %m: bf16[2,4] = mul(%x_bf16, %c_bf16)
  %a: bf16[2,4] = add(%p, %m)
  %e: bf16[2,4] = exp(%a)
  %s: bf16[2,1] = sum(%e) {dims=[1], keepdim=true}
  %l: bf16[2,1] = log(%s)
  %t_bf16: bf16[2,1] = tanh(%l)
  %t: f32[2,1] = cast(%t_bf16) {dtype=f32}
  return %t
})",
                kBf16);
}

TEST_CASE("convert-precision in the default pipeline: converted weights fold, casts fuse") {
  std::string text = "graph(%x: f32[4,8]) {\n  %w: f32[8,8] = constant [";
  for (int i = 0; i < 64; ++i) text += (i ? ", " : "") + std::to_string((i % 7) * 0.25 - 0.75);
  text += R"(]
  %y: f32[4,8] = gemm(%x, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  %r: f32[4,8] = relu(%y)
  %z: f32[4,8] = sigmoid(%r)
  return %z
})";
  ir::Graph converted = test::parse(text);
  passes::PipelineOptions options;
  options.pass_options.target.precision = Precision::kFp16;
  REQUIRE(passes::run_default_pipeline(converted, options).is_ok());
  int64_t constant_bytes = 0;
  for (ir::ValueId c : converted.constants()) constant_bytes += converted.type(c).size_bytes();
  CHECK(constant_bytes == 64 * 2);  // the f32 weight is gone: half the bytes
  const std::string printed = ir::print_graph(converted);
  INFO(printed);
  // relu went into the gemm; sigmoid and the cast back to f32 are one fused kernel
  CHECK(printed.find("f16[4,8] = gemm(") != std::string::npos);
  CHECK(printed.find("activation=\"relu\"") != std::string::npos);
  CHECK(printed.find("expr=\"sigmoid($0); cast[f32](#0)\"") != std::string::npos);
}

TEST_CASE("convert-precision keeps a fused node in f32 and says so in a note") {
  // Run after fuse-elementwise (by --passes), a fused body is not converted: the node stays f32
  // (its operands and results keep their types) and the note names it for -v.
  const std::string text = R"ir(
graph(%x: f32[2,4]) {
  %y: f32[2,4] = fused_elementwise(%x) {expr="sigmoid($0); mul($0, #0)"} loc("model.py":3)
  return %y
})ir";
  ir::Graph graph = test::parse(text);
  passes::PipelineOptions options;
  options.pass_options.target.precision = Precision::kFp16;
  std::vector<std::string> notes;
  options.pass_options.note = [&](std::string_view message) { notes.emplace_back(message); };
  REQUIRE(passes::run_passes(graph, {"convert-precision"}, options).is_ok());
  CHECK(ir::print_graph(graph) == ir::print_graph(test::parse(text)));
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("fused_elementwise 'y' at model.py:3 stays f32") != std::string::npos);
}

}  // namespace
}  // namespace inferno

namespace inferno {
namespace {

TEST_CASE("convert-precision with --io-precision compute: 16-bit inputs and outputs, no casts") {
  // The f32 input is f16 itself (the softmax reading it gets a cast up); the gemm's output is
  // returned in f16 with no cast back; the softmax output is cast down and the cast keeps the
  // output's name; the integer input and output are unchanged.
  const std::string text = R"(
graph(%x: f32[2,4], %i: i64[2,4]) {
  %w: f32[4,4] = constant [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
  %y: f32[2,4] = gemm(%x, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  %s: f32[2,4] = softmax(%x) {dim=1}
  %c: f32[2,4] = cast(%i) {dtype=f32}
  %a: f32[2,4] = add(%y, %c)
  %j: i64[2,4] = add(%i, %i)
  return %a, %s, %j
})";
  const ir::Graph after = convert(text, Precision::kFp16, passes::IoPrecision::kCompute);
  CHECK(ir::print_graph(after) == ir::print_graph(test::parse(R"(
graph(%x: f16[2,4], %i: i64[2,4]) {
  %w_f16: f16[4,4] = constant [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
  %y: f16[2,4] = gemm(%x, %w_f16) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  %x_f32: f32[2,4] = cast(%x) {dtype=f32}
  %s_f32: f32[2,4] = softmax(%x_f32) {dim=1}
  %c: f16[2,4] = cast(%i) {dtype=f16}
  %a: f16[2,4] = add(%y, %c)
  %j: i64[2,4] = add(%i, %i)
  %s: f16[2,4] = cast(%s_f32) {dtype=f16}
  return %a, %s, %j
})")));
  // The same in model io has a cast at each f32 boundary; bf16 works alike.
  const ir::Graph model_io = convert(text, Precision::kFp16);
  CHECK(model_io.type(model_io.inputs()[0]).dtype == ir::DType::kF32);
  CHECK(model_io.type(model_io.outputs()[0]).dtype == ir::DType::kF32);
  const ir::Graph bf16 = convert(text, Precision::kBf16, passes::IoPrecision::kCompute);
  CHECK(bf16.type(bf16.inputs()[0]).dtype == ir::DType::kBF16);
  CHECK(bf16.type(bf16.inputs()[1]).dtype == ir::DType::kI64);
  for (ir::ValueId out : bf16.outputs()) CHECK(bf16.type(out).dtype != ir::DType::kF32);
  int casts = 0;
  for (const ir::Node& node : bf16.nodes()) casts += node.op == ir::OpKind::kCast ? 1 : 0;
  CHECK(casts == 3);  // x up for the softmax, i to bf16, softmax's result down: none at the gemm
  // fp32 and tf32: compute io changes nothing.
  for (Precision p : {Precision::kFp32, Precision::kTf32}) {
    CHECK(ir::print_graph(convert(text, p, passes::IoPrecision::kCompute)) ==
          ir::print_graph(test::parse(text)));
  }
}

TEST_CASE("convert-precision, compute io: an input returned as it is and an output read again") {
  // %x is an output too (it stays the 16-bit input); %h is an output and read by the next gemm
  // (one f16 value serves both).
  const ir::Graph after = convert(R"(
graph(%x: f32[2,2]) {
  %w: f32[2,2] = constant [1, 2, 3, 4]
  %h: f32[2,2] = gemm(%x, %w) {activation="relu", alpha=1.0, beta=1.0, trans_b=false}
  %o: f32[2,2] = gemm(%h, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %o, %h, %x
})",
                                  Precision::kBf16, passes::IoPrecision::kCompute);
  CHECK(ir::print_graph(after) == ir::print_graph(test::parse(R"(
graph(%x: bf16[2,2]) {
  %w_bf16: bf16[2,2] = constant [1, 2, 3, 4]
  %h: bf16[2,2] = gemm(%x, %w_bf16) {activation="relu", alpha=1.0, beta=1.0, trans_b=false}
  %o: bf16[2,2] = gemm(%h, %w_bf16) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %o, %h, %x
})")));
}

}  // namespace
}  // namespace inferno
