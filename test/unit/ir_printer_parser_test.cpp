// Round trips through the IR text form: hand-built graphs covering every op, every attribute type
// and every dtype's constant data print, parse back and print to the same text, with bit-exact
// constant data. The printed kitchen-sink graph is also checked against a reviewed golden file.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <set>

#include "ir/builder.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/text_format.h"
#include "support/catch.h"
#include "support/half.h"
#include "support/test_support.h"

namespace inferno::ir {
namespace {

TensorType t(DType dtype, Shape shape) { return {dtype, std::move(shape)}; }

/// A constant whose elements are given as raw bits (low bytes of each entry).
Tensor from_bits(DType dtype, Shape shape, const std::vector<uint64_t>& bits) {
  Tensor tensor = Tensor::zeros({dtype, std::move(shape)});
  REQUIRE(static_cast<int64_t>(bits.size()) == tensor.numel());
  const auto size = static_cast<size_t>(dtype_size(dtype));
  for (size_t i = 0; i < bits.size(); ++i)
    std::memcpy(tensor.data.data() + i * size, &bits[i], size);
  return tensor;
}

uint64_t f32_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
uint64_t f64_bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

ValueId add(Graph& g, OpKind op, std::vector<ValueId> inputs, Attributes attrs,
            std::string_view name, SourceLocation loc = {}) {
  Expected<ValueId> v =
      build_value(g, op, std::move(inputs), std::move(attrs), name, std::move(loc));
  INFO(name << ": " << (v ? "" : v.status().to_string()));
  REQUIRE(v.has_value());
  return *v;
}

Attributes attrs(std::initializer_list<std::pair<const char*, AttrValue>> entries) {
  Attributes a;
  for (const auto& [name, value] : entries) a.set(name, value);
  return a;
}

/// Constants of every dtype, with the values that are hard to print: signed zeros, infinities,
/// NaNs with and without payloads, subnormals, extremes.
void add_special_constants(Graph& g) {
  constexpr float kF32Max = std::numeric_limits<float>::max();
  g.add_constant("c_f32", from_bits(DType::kF32, {3, 4},
                                    {f32_bits(0.1f), f32_bits(-2.5f), f32_bits(-0.0f),
                                     f32_bits(1.0f), 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000,
                                     0x7fc00001, 0x7f800001, 0x00000001, f32_bits(kF32Max)}));
  g.add_constant("c_f64",
                 from_bits(DType::kF64, {6},
                           {f64_bits(0.1), f64_bits(-0.0), 0x1, 0x7ff8000000000000,
                            0x7ff0000000000001, f64_bits(std::numeric_limits<double>::max())}));
  g.add_constant(
      "c_f16", from_bits(DType::kF16, {9},
                         {0x3c00, 0x0001, 0x7bff, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7d01, 0x2e66}));
  g.add_constant("c_bf16", from_bits(DType::kBF16, {7},
                                     {0x3f80, 0x3dcd, 0x0001, 0x8000, 0x7f80, 0x7fc0, 0xffc1}));
  g.add_constant("c_i64", from_bits(DType::kI64, {4},
                                    {0x8000000000000000, 0x7fffffffffffffff, 0, ~uint64_t{0}}));
  g.add_constant("c_i32", from_bits(DType::kI32, {2, 2}, {0x80000000, 0x7fffffff, 7, 0xfffffffe}));
  g.add_constant("c_bool", from_bits(DType::kBool, {2}, {1, 0}));
  g.add_constant("c_scalar", from_bits(DType::kF32, {}, {f32_bits(3.5f)}));
  g.add_constant("c_empty", from_bits(DType::kF32, {0, 3}, {}));
  g.add_constant("c_elided", t(DType::kF32, {1024, 1024}), nullptr);
}

/// One graph that uses every op in ops.def, every attribute type and every dtype.
Graph kitchen_sink() {
  Graph g;
  const ValueId x = g.add_input("x", t(DType::kF32, {2, 4}));
  const ValueId i = g.add_input("i", t(DType::kI32, {2}));
  const ValueId w = g.add_constant("fc1.weight", test::random_tensor(t(DType::kF32, {3, 4}), 1));
  const ValueId b = g.add_constant("fc1.bias", test::random_tensor(t(DType::kF32, {3}), 2));
  const ValueId row = g.add_constant("row", test::random_tensor(t(DType::kF32, {1, 4}), 3));
  add_special_constants(g);

  const ValueId lin = add(g, OpKind::kLinear, {x, w, b}, {}, "linear", {"model.py", 12});
  add(g, OpKind::kLinear, {x, w}, {}, "linear_nobias", {"model.py", 0});
  const ValueId wt =
      add(g, OpKind::kTranspose, {w}, attrs({{"dim0", int64_t{0}}, {"dim1", int64_t{1}}}), "wt");
  const ValueId mm = add(g, OpKind::kMatMul, {x, wt}, {}, "mm");
  add(g, OpKind::kAddMM, {b, x, wt}, attrs({{"alpha", 1.0}, {"beta", 0.5}}), "addmm");
  add(g, OpKind::kGemm, {x, w, b},
      attrs(
          {{"trans_b", true}, {"alpha", 1.0}, {"beta", 1.0}, {"activation", std::string("relu")}}),
      "gemm");
  add(g, OpKind::kGemm, {x, wt, b, lin},
      attrs({{"trans_b", false},
             {"alpha", 0.5},
             {"beta", 0.0},
             {"activation", std::string("gelu_tanh")}}),
      "gemm_residual");
  const ValueId gamma = g.add_constant("gamma", test::random_tensor(t(DType::kF32, {4}), 4));
  add(g, OpKind::kNormGemm, {x, w, gamma, gamma, b},
      attrs({{"trans_b", true},
             {"alpha", 1.0},
             {"beta", 1.0},
             {"activation", std::string("none")},
             {"norm", std::string("layer_norm")},
             {"eps", 1e-5}}),
      "norm_gemm");
  add(g, OpKind::kReshape, {x}, attrs({{"shape", IntList{4, 2}}}), "reshaped");
  add(g, OpKind::kPermute, {x}, attrs({{"dims", IntList{1, 0}}}), "permuted");
  add(g, OpKind::kExpand, {row}, attrs({{"shape", IntList{2, 4}}}), "expanded");
  add(g, OpKind::kSlice, {x},
      attrs({{"starts", IntList{1, 0}}, {"ends", IntList{2, 4}}, {"steps", IntList{1, 3}}}),
      "sliced");
  // Every elementwise op of the table, on as many operands as it takes.
  for (const OpKind op : all_op_kinds()) {
    if (!op_has_trait(op, kElementwise) || op == OpKind::kCast) continue;
    const ValueId operand = op_dtype_class(op) == DTypeClass::kInteger ? i : mm;
    add(g, op, std::vector<ValueId>(static_cast<size_t>(op_min_inputs(op)), operand), {},
        op_name(op));
  }
  const ValueId gelu = add(g, OpKind::kGeluTanh, {lin}, {}, "g");
  const ValueId half = add(g, OpKind::kCast, {gelu}, attrs({{"dtype", DType::kF16}}), "c");
  add(g, OpKind::kAdd, {lin, mm}, {}, "sum_ab");
  add(g, OpKind::kFusedElementwise, {lin, half, b},
      attrs({{"expr", std::string("cast[f32]($1); add($0, #0); gelu(#1); mul(#2, $2)")}}), "fused");
  add(g, OpKind::kSub, {lin, b}, {}, "diff");
  add(g, OpKind::kMul, {half, g.find_value("c_scalar")}, {}, "scaled");
  const ValueId ratio = add(g, OpKind::kDiv, {i, i}, {}, "ratio");
  add(g, OpKind::kSum, {lin}, attrs({{"dims", IntList{1}}, {"keepdim", true}}), "s");
  add(g, OpKind::kMean, {lin}, attrs({{"dims", IntList{}}, {"keepdim", false}}), "m");
  add(g, OpKind::kSoftmax, {lin}, attrs({{"dim", int64_t{1}}}), "sm");
  add(g, OpKind::kLogSoftmax, {lin}, attrs({{"dim", int64_t{0}}}), "lsm");
  add(g, OpKind::kCumsum, {i}, attrs({{"dim", int64_t{0}}}), "running");
  add(g, OpKind::kReduceMax, {lin}, attrs({{"dims", IntList{0}}, {"keepdim", false}}), "top");
  add(g, OpKind::kReduceMin, {i}, attrs({{"dims", IntList{}}, {"keepdim", true}}), "bottom");
  add(g, OpKind::kArgMax, {lin}, attrs({{"dim", int64_t{1}}, {"keepdim", true}}), "top_at");
  add(g, OpKind::kArgMin, {lin}, attrs({{"dim", int64_t{0}}, {"keepdim", false}}), "bottom_at");
  // Pooling over x as [C, H, W].
  const ValueId chw = add(g, OpKind::kReshape, {x}, attrs({{"shape", IntList{1, 2, 4}}}), "chw");
  add(g, OpKind::kMaxPool2d, {chw},
      attrs({{"kernel", IntList{2, 2}},
             {"stride", IntList{1, 2}},
             {"padding", IntList{1, 0}},
             {"dilation", IntList{1, 1}},
             {"ceil_mode", true}}),
      "maxpool");
  add(g, OpKind::kAvgPool2d, {chw},
      attrs({{"kernel", IntList{2, 3}},
             {"stride", IntList{1, 1}},
             {"padding", IntList{1, 1}},
             {"ceil_mode", false},
             {"count_include_pad", false},
             {"divisor_override", int64_t{-3}}}),
      "avgpool");
  add(g, OpKind::kAdaptiveAvgPool2d, {chw}, attrs({{"output_size", IntList{3, 3}}}),
      "adaptive_avg");
  add(g, OpKind::kAdaptiveMaxPool2d, {chw}, attrs({{"output_size", IntList{1, 2}}}),
      "adaptive_max");
  add(g, OpKind::kCat, {x, row, x}, attrs({{"dim", int64_t{0}}}), "joined");
  const ValueId small_nchw =
      add(g, OpKind::kReshape, {x}, attrs({{"shape", IntList{1, 1, 2, 4}}}), "small_nchw");
  add(g, OpKind::kUpsampleNearest2d, {small_nchw},
      attrs({{"output_size", IntList{4, 8}}, {"scale_h", 2.0}, {"scale_w", 0.0}}), "nearest");
  add(g, OpKind::kUpsampleBilinear2d, {small_nchw},
      attrs({{"output_size", IntList{3, 5}},
             {"align_corners", true},
             {"scale_h", 0.0},
             {"scale_w", 1.25}}),
      "bilinear");
  add(g, OpKind::kConstantPad, {x, g.find_value("c_scalar")},
      attrs({{"before", IntList{1, -1}}, {"after", IntList{0, 2}}}), "padded");
  // A depthwise conv2d over x as [1, 2, 2, 2], x as its weights too, asymmetric padding.
  const ValueId nchw =
      add(g, OpKind::kReshape, {x}, attrs({{"shape", IntList{1, 2, 2, 2}}}), "nchw");
  const ValueId oihw =
      add(g, OpKind::kReshape, {x}, attrs({{"shape", IntList{2, 1, 2, 2}}}), "oihw");
  add(g, OpKind::kConv2d, {nchw, oihw},
      attrs({{"stride", IntList{1, 1}},
             {"padding", IntList{1, 0, 0, 1}},
             {"dilation", IntList{1, 1}},
             {"groups", int64_t{2}}}),
      "conv");
  add(g, OpKind::kConvTranspose2d, {nchw, oihw},
      attrs({{"stride", IntList{2, 1}},
             {"padding", IntList{1, 0}},
             {"output_padding", IntList{1, 0}},
             {"dilation", IntList{1, 1}},
             {"groups", int64_t{2}}}),
      "conv_t");
  // Normalization over x's last dim (weight and bias: row) and x as [N, C, L] in two groups.
  const ValueId row4 = add(g, OpKind::kReshape, {row}, attrs({{"shape", IntList{4}}}), "row4");
  add(g, OpKind::kLayerNorm, {x, row4, row4},
      attrs({{"normalized_dims", int64_t{1}}, {"eps", 1e-5}}), "layer_norm");
  const ValueId picked =
      add(g, OpKind::kIndexSelect, {x, i}, attrs({{"dim", int64_t{0}}}), "index_select");
  add(g, OpKind::kIndexCopy, {x, i, picked}, attrs({{"dim", int64_t{0}}}), "index_copy");
  add(g, OpKind::kRmsNorm, {x, row4}, attrs({{"normalized_dims", int64_t{1}}, {"eps", 1e-6}}),
      "rms_norm");
  const ValueId ncl = add(g, OpKind::kReshape, {x}, attrs({{"shape", IntList{1, 4, 2}}}), "ncl");
  add(g, OpKind::kGroupNorm, {ncl}, attrs({{"groups", int64_t{2}}, {"eps", 0.001}}), "group_norm");
  // attention: x as q [1, 2, 1, 4] over x as k and v [1, 1, 2, 4] (two query heads per kv head),
  // causal, a bool mask [2] broadcast over the scores [1, 2, 1, 2].
  const ValueId q4 = add(g, OpKind::kReshape, {x}, attrs({{"shape", IntList{1, 2, 1, 4}}}), "q4");
  const ValueId kv4 = add(g, OpKind::kReshape, {x}, attrs({{"shape", IntList{1, 1, 2, 4}}}), "kv4");
  add(g, OpKind::kAttention, {q4, kv4, kv4, g.find_value("c_bool")},
      attrs({{"scale", 0.5},
             {"causal", true},
             {"mask", std::string("bool")},
             {"kv_groups", int64_t{2}}}),
      "attention");
  // rotary: x [2, 4] rotating its first two elements, cos and sin a [1, 2] row broadcast.
  const ValueId half_row =
      add(g, OpKind::kSlice, {row},
          attrs({{"starts", IntList{0, 0}}, {"ends", IntList{1, 2}}, {"steps", IntList{1, 1}}}),
          "half_row");
  add(g, OpKind::kRotary, {x, half_row, half_row}, attrs({{"rotary_dim", int64_t{2}}}), "rotary");
  // Float attribute values of every spelling (the schemas refuse attributes an op does not
  // take, so odd values sit in gemm's alpha and beta), and an odd source location.
  add(g, OpKind::kGemm, {x, w, b},
      attrs({{"trans_b", true},
             {"alpha", -std::numeric_limits<double>::infinity()},
             {"beta", std::nan("")},
             {"activation", std::string("none")}}),
      "odd_floats", {"dir/\"weird\"\\file\n.py", 7});
  add(g, OpKind::kGemm, {x, w, b},
      attrs({{"trans_b", true},
             {"alpha", -1.5e-300},
             {"beta", -0.0},
             {"activation", std::string("none")}}),
      "small_floats");
  g.set_outputs({gelu, half, ratio, x});
  return g;
}

Graph parse_ok(const std::string& text) {
  Expected<Graph> g = parse_graph(text);
  INFO(text);
  INFO((g ? std::string() : g.status().message()));
  REQUIRE(g.has_value());
  return std::move(g).value();
}

/// Every constant of `a` has a namesake in `b` with the same type and the same bytes.
void require_same_constants(const Graph& a, const Graph& b) {
  REQUIRE(a.constants().size() == b.constants().size());
  for (ValueId id : a.constants()) {
    const ValueId other = b.find_value(a.name(id));
    INFO("constant %" << a.name(id));
    REQUIRE(other != kNoValue);
    REQUIRE(a.type(id) == b.type(other));
    const auto& x = a.value(id).constant;
    const auto& y = b.value(other).constant;
    REQUIRE((x == nullptr) == (y == nullptr));
    if (x) CHECK(x->data == y->data);
  }
}

TEST_CASE("kitchen sink graph covers every op") {
  const Graph g = kitchen_sink();
  std::set<OpKind> used;
  for (const Node& node : g.nodes()) used.insert(node.op);
  for (int k = 0; k < kNumOpKinds; ++k) {
    INFO(op_name(static_cast<OpKind>(k)));
    CHECK(used.contains(static_cast<OpKind>(k)));
  }
}

TEST_CASE("kitchen sink round-trips exactly, with bit-exact constants") {
  const Graph original = kitchen_sink();
  const std::string text = print_graph(original);
  const Graph parsed = parse_ok(text);
  CHECK(print_graph(parsed) == text);
  require_same_constants(original, parsed);
  REQUIRE(parsed.nodes().size() == original.nodes().size());
  for (size_t k = 0; k < parsed.nodes().size(); ++k) {
    CHECK(parsed.nodes()[k].attrs.entries().size() == original.nodes()[k].attrs.entries().size());
    CHECK(parsed.nodes()[k].loc == original.nodes()[k].loc);
  }
}

TEST_CASE("kitchen sink prints as the golden file") {
  const std::string path = test::golden_path("ir/kitchen_sink.ir");
  if (std::getenv("INFERNO_UPDATE_GOLDEN") != nullptr)
    std::ofstream(path, std::ios::binary) << print_graph(kitchen_sink());
  const std::string golden = test::read_text_file(path);
  CHECK(print_graph(kitchen_sink()) == golden);
  CHECK(print_graph(parse_ok(golden)) == golden);
}

TEST_CASE("every f16 and bf16 bit pattern and random f32/f64 patterns round-trip bit-exactly") {
  Graph g;
  std::vector<uint64_t> all16(65536), random32(20000), random64(20000);
  for (size_t k = 0; k < all16.size(); ++k) all16[k] = k;
  uint64_t state = 12345;
  for (size_t k = 0; k < random64.size(); ++k) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    random64[k] = state ^ (state >> 29);
    random32[k] = random64[k] >> 32;
  }
  g.add_constant("h", from_bits(DType::kF16, {65536}, all16));
  g.add_constant("b", from_bits(DType::kBF16, {65536}, all16));
  g.add_constant("f", from_bits(DType::kF32, {20000}, random32));
  g.add_constant("d", from_bits(DType::kF64, {20000}, random64));
  const Graph parsed = parse_ok(print_graph(g));
  require_same_constants(g, parsed);
}

TEST_CASE("printer layout follows the documented format") {
  Graph g;
  const ValueId x = g.add_input("x", t(DType::kF32, {4, 2}));
  Tensor w = Tensor::zeros(t(DType::kF32, {3, 2}));
  for (int k = 0; k < 6; ++k) w.set(k, k - 2.5);
  const ValueId wv = g.add_constant("fc1.weight", std::move(w));
  const ValueId lin = add(g, OpKind::kLinear, {x, wv}, {}, "linear", {"model.py", 12});
  const ValueId s =
      add(g, OpKind::kSum, {lin}, attrs({{"dims", IntList{1}}, {"keepdim", true}}), "s");
  add(g, OpKind::kAddMM, {lin, lin, g.add_constant("eye", Tensor::zeros(t(DType::kF32, {3, 3})))},
      attrs({{"alpha", 1.0}, {"beta", 0.25}}), "am");
  g.set_outputs({s, lin});
  const std::string expected =
      "graph(%x: f32[4,2]) {\n"
      "  %fc1.weight: f32[3,2] = constant [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5]\n"
      "  %eye: f32[3,3] = constant <elided>\n"
      "  %linear: f32[4,3] = linear(%x, %fc1.weight) loc(\"model.py\":12)\n"
      "  %s: f32[4,1] = sum(%linear) {dims=[1], keepdim=true}\n"
      "  %am: f32[4,3] = addmm(%linear, %linear, %eye) {alpha=1.0, beta=0.25}\n"
      "  return %s, %linear\n"
      "}\n";
  CHECK(print_graph(g, {.max_constant_elements = 6}) == expected);
}

TEST_CASE("elided constants parse back without data") {
  Graph g;
  const ValueId c = g.add_constant("big", test::random_tensor(t(DType::kF16, {4, 4}), 7));
  g.set_outputs({c});
  const std::string elided = print_graph(g, {.max_constant_elements = 15});
  CHECK(elided.find("%big: f16[4,4] = constant <elided>") != std::string::npos);
  const Graph parsed = parse_ok(elided);
  CHECK(parsed.value(parsed.find_value("big")).constant == nullptr);
  CHECK(print_graph(parsed) == elided);
  CHECK(print_graph(g, {.max_constant_elements = 16}).find("<elided>") == std::string::npos);
}

TEST_CASE("empty graph and graph without outputs") {
  CHECK(print_graph(Graph{}) == "graph() {\n  return\n}\n");
  CHECK(print_graph(parse_ok("graph() { return }")) == "graph() {\n  return\n}\n");
}

TEST_CASE("attribute floats never read back as ints") {
  struct Case {
    double value;
    const char* text;
  };
  const Case cases[] = {{1.0, "1.0"},
                        {-0.0, "-0.0"},
                        {100.0, "100.0"},
                        {0.1, "0.1"},
                        {1e300, "1e+300"},
                        {2.5e-7, "2.5e-07"},
                        {std::numeric_limits<double>::infinity(), "inf"},
                        {-std::numeric_limits<double>::infinity(), "-inf"},
                        {std::nan(""), "nan"}};
  for (const Case& c : cases) {
    INFO(c.text);
    CHECK(format_attr_float(c.value) == c.text);
  }
}

TEST_CASE("constant elements use the dtype's spelling") {
  struct Case {
    DType dtype;
    uint64_t bits;
    const char* text;
  };
  const Case cases[] = {
      {DType::kF32, f32_bits(0.1f), "0.100000001"},
      {DType::kF32, f32_bits(1.0f), "1"},
      {DType::kF32, f32_bits(-0.0f), "-0"},
      {DType::kF32, 0xff800000, "-inf"},
      {DType::kF32, 0x7fc00000, "nan"},
      {DType::kF32, 0xffc00000, "-nan"},
      {DType::kF32, 0x7f800001, "nan(0x7f800001)"},
      {DType::kF32, 0x1, "1.40129846e-45"},
      {DType::kF64, f64_bits(0.1), "0.10000000000000001"},
      {DType::kF16, 0x2e66, "0.0999755859"},
      {DType::kF16, 0x0001, "5.96046448e-08"},
      {DType::kF16, 0xfe01, "nan(0xfe01)"},
      {DType::kBF16, 0x3dcd, "0.100097656"},
      {DType::kI64, 0x8000000000000000, "-9223372036854775808"},
      {DType::kI32, 0xffffffff, "-1"},
      {DType::kBool, 1, "true"},
      {DType::kBool, 0, "false"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    CHECK(format_element(from_bits(c.dtype, {}, {c.bits}), 0) == c.text);
  }
}

TEST_CASE("strings and locations are escaped") {
  CHECK(quote_string("plain.py") == "\"plain.py\"");
  CHECK(quote_string("a\"b\\c\n\t\x01\x7f\xff") == "\"a\\\"b\\\\c\\n\\t\\x01\\x7f\\xff\"");
  CHECK(format_loc({"m.py", 3}) == " loc(\"m.py\":3)");
  CHECK(format_loc({"m.py", 0}) == " loc(\"m.py\")");
  CHECK(format_loc({}).empty());
  const Graph g = parse_ok(
      "graph(%x: f32[2]) {\n  %y: f32[2] = relu(%x) loc(\"a\\\"b\\n\\x3cx\\x3E\":4)\n  return "
      "%y\n}\n");
  CHECK(g.nodes()[0].loc == SourceLocation{"a\"b\n<x>", 4});
}

TEST_CASE("parser accepts comments, free whitespace and hand-written spellings") {
  const Graph g = parse_ok(
      "// a comment\n"
      "graph ( %x : f16 [ 2 , 2 ] ) {   // trailing comment\n"
      "  %k: f16[2] = constant [1e0, -inf]  \n"
      "  %h: f16[4] = constant [0.333333343, 65504, 1E-2, nan]\n"
      "  %y: f16[2,2] = add(%x,\n %k)\n"
      "  %z: f16[2,2] = gelu(%y) %w: f32[2,2] = cast(%z) {dtype=f32}\n"
      "  return %w, %h }");
  CHECK(g.nodes().size() == 3);
  const Tensor& k = *g.value(g.find_value("k")).constant;
  CHECK(k.get(0) == 1.0);
  CHECK(k.get(1) == -std::numeric_limits<double>::infinity());
  const Tensor& h = *g.value(g.find_value("h")).constant;
  CHECK(h.get(0) == half_bits_to_float(float_to_half_bits(0.333333343f)));
  CHECK(h.get(1) == 65504.0);
  CHECK(h.get(2) == half_bits_to_float(float_to_half_bits(0.01f)));
  CHECK(std::isnan(h.get(3)));
}

TEST_CASE("constants may appear between nodes, and printing moves them up") {
  const Graph g = parse_ok(
      "graph(%x: f32[2]) {\n"
      "  %y: f32[2] = relu(%x)\n"
      "  %k: f32[2] = constant [1, 2]\n"
      "  %z: f32[2] = add(%y, %k)\n"
      "  return %z\n"
      "}\n");
  const std::string text = print_graph(g);
  CHECK(text.find("%k: f32[2] = constant [1, 2]\n  %y") != std::string::npos);
  CHECK(print_graph(parse_ok(text)) == text);
}

TEST_CASE("states print and parse back: their initial values, and updates after return") {
  const std::string text = R"(graph(%ids: i64[1]) {
  state %cache: f32[4,2] = zeros
  state %count: i64[] = constant [7]
  %row: f32[1,2] = constant [1, 2]
  %cache_1: f32[4,2] = index_copy(%cache, %ids, %row) {dim=0}
  return %cache_1 updates %cache_1, %count
}
)";
  Expected<Graph> graph = parse_graph(text);
  INFO((graph ? std::string() : graph.status().to_string()));
  REQUIRE(graph.has_value());
  CHECK(graph->num_states() == 2);
  CHECK(graph->num_user_inputs() == 1);
  CHECK(graph->num_user_outputs() == 1);
  CHECK(graph->state(0).initial == nullptr);
  REQUIRE(graph->state(1).initial != nullptr);
  CHECK(graph->state(1).initial->get(0) == 7);
  CHECK(graph->name(graph->state_update(0)) == "cache_1");
  CHECK(print_graph(*graph) == text);
}

TEST_CASE("a state's update must be there and have the state's type") {
  const std::string missing = R"(graph() {
  state %s: f32[2] = zeros
  return
}
)";
  CHECK_FALSE(parse_graph(missing).has_value());
  const std::string mistyped = R"(graph() {
  state %s: f32[2] = zeros
  %t: f32[1] = constant [1]
  return updates %t
}
)";
  const Expected<Graph> graph = parse_graph(mistyped);
  REQUIRE_FALSE(graph.has_value());
  CHECK(graph.status().message().find("update of state %s") != std::string::npos);
}

}  // namespace
}  // namespace inferno::ir
