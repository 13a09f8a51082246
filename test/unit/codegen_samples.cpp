#include "codegen_samples.h"

#include <string>

#include "codegen/codegen.h"
#include "ir/builder.h"
#include "support/check.h"
#include "support/test_support.h"

namespace inferno::test {
namespace {

using ir::OpKind;

ir::ValueId constant(ir::Graph& graph, const std::string& name, ir::DType dtype, ir::Shape shape,
                     uint64_t seed) {
  return graph.add_constant(name, random_tensor({dtype, std::move(shape)}, seed));
}

ir::Attributes attrs(std::initializer_list<std::pair<std::string, ir::AttrValue>> entries) {
  ir::Attributes a;
  for (const auto& [name, value] : entries) a.set(name, value);
  return a;
}

ir::Attributes gemm_attrs(bool trans_b, double alpha, double beta, const std::string& activation) {
  return attrs(
      {{"trans_b", trans_b}, {"alpha", alpha}, {"beta", beta}, {"activation", activation}});
}

// Each variant takes another route through the GEMM epilogue (codegen/emit_gemm.h).
Expected<ir::ValueId> add_gemm_sample(ir::Graph& graph, ir::ValueId x, int variant,
                                      const std::string& tag, uint64_t seed) {
  const ir::DType dtype = graph.type(x).dtype;
  auto c = [&](const std::string& name, ir::Shape shape, uint64_t s) {
    return constant(graph, tag + name, dtype, shape, s);
  };
  switch (variant) {
    case 0:  // the plain product
      return ir::build_value(graph, OpKind::kGemm, {x, c("_b", {4, 5}, seed)},
                             gemm_attrs(false, 1.0, 1.0, "none"), tag);
    case 1:  // trans_b, a row bias and relu: cuBLASLt's RELU_BIAS epilogue
      return ir::build_value(graph, OpKind::kGemm,
                             {x, c("_b", {5, 4}, seed), c("_c", {5}, seed + 1)},
                             gemm_attrs(true, 1.0, 1.0, "relu"), tag);
    case 2:  // batched; a broadcast c and a full-shape residual d, then gelu: C, kernel addend,
             // kernel gelu
      return ir::build_value(
          graph, OpKind::kGemm,
          {x, c("_b", {2, 4, 5}, seed), c("_c", {3, 1}, seed + 1), c("_d", {2, 3, 5}, seed + 2)},
          gemm_attrs(false, 0.5, 2.0, "gelu"), tag);
    case 3:  // a full-shape c scaled by beta, read as a separate C matrix; gelu_tanh in the kernel
      return ir::build_value(graph, OpKind::kGemm,
                             {x, c("_b", {5, 4}, seed), c("_c", {2, 3, 5}, seed + 1)},
                             gemm_attrs(true, 1.0, -1.5, "gelu_tanh"), tag);
    default:  // a scalar c, broadcast-copied into the output, and relu
      return ir::build_value(graph, OpKind::kGemm,
                             {x, c("_b", {4, 5}, seed), c("_c", {}, seed + 1)},
                             gemm_attrs(false, 2.0, 1.0, "relu"), tag);
  }
}

// Fused bodies: silu as torch.export spells it; broadcast and scalar operands; f16/bf16 steps.
Expected<ir::ValueId> add_fused_sample(ir::Graph& graph, ir::ValueId x, int variant,
                                       const std::string& tag, uint64_t seed) {
  const ir::DType dtype = graph.type(x).dtype;
  switch (variant) {
    case 0:
      return ir::build_value(graph, OpKind::kFusedElementwise, {x},
                             attrs({{"expr", std::string("sigmoid($0); mul($0, #0)")}}), tag);
    case 1:
      return ir::build_value(
          graph, OpKind::kFusedElementwise,
          {x, constant(graph, tag + "_row", dtype, {4}, seed),
           constant(graph, tag + "_s", dtype, {}, seed + 1)},
          attrs({{"expr", std::string("add($0, $1); mul(#0, $2); gelu_tanh(#1)")}}), tag);
    default:
      return ir::build_value(
          graph, OpKind::kFusedElementwise,
          {x, constant(graph, tag + "_h", ir::DType::kF16, {3, 1}, seed),
           constant(graph, tag + "_r", ir::DType::kBF16, {4}, seed + 1)},
          attrs({{"expr", std::string("cast[f16]($0); mul(#0, $1); cast[bf16](#1); add(#2, $2)")}}),
          tag);
  }
}

}  // namespace

std::vector<OpKind> all_op_kinds() {
  std::vector<OpKind> ops;
  for (int i = 0; i < ir::kNumOpKinds; ++i) ops.push_back(static_cast<OpKind>(i));
  return ops;
}

int op_sample_variants(OpKind op) {
  switch (op) {
    case OpKind::kGelu:
      return 2;
    case OpKind::kCast:
      return static_cast<int>(std::size(ir::kAllDTypes));
    case OpKind::kMatMul:
      return 3;
    case OpKind::kSum:
      return 2;
    case OpKind::kAddMM:
      return 2;
    case OpKind::kGemm:
      return 5;
    case OpKind::kNormGemm:
      return 2;
    case OpKind::kFusedElementwise:
      return 3;
    case OpKind::kConv2d:
      return 2;
    case OpKind::kConvTranspose2d:
      return 2;
    case OpKind::kLayerNorm:
      return 2;
    case OpKind::kRmsNorm:
      return 2;
    case OpKind::kGroupNorm:
      return 2;
    case OpKind::kAttention:
      return 3;
    case OpKind::kRotary:
      return 2;
    default:
      return 1;
  }
}

Expected<ir::ValueId> add_op_sample(ir::Graph& graph, OpKind op, ir::ValueId x, int variant) {
  const ir::DType dtype = graph.type(x).dtype;
  const std::string tag = std::string(ir::op_name(op)) + "_" + std::string(ir::dtype_name(dtype)) +
                          "_" + std::to_string(variant);
  const auto seed = static_cast<uint64_t>(graph.num_values());
  switch (op) {
    case OpKind::kLinear:
      return ir::build_value(graph, op,
                             {x, constant(graph, tag + "_w", dtype, {5, 4}, seed),
                              constant(graph, tag + "_b", dtype, {5}, seed + 1)},
                             {}, tag);
    case OpKind::kMatMul:
      switch (variant) {
        case 0:
          return ir::build_value(graph, op, {x, constant(graph, tag + "_m", dtype, {4, 5}, seed)},
                                 {}, tag);
        case 1:
          return ir::build_value(graph, op,
                                 {x, constant(graph, tag + "_m", dtype, {2, 4, 5}, seed)}, {}, tag);
        default:
          return ir::build_value(graph, op, {constant(graph, tag + "_m", dtype, {5, 3}, seed), x},
                                 {}, tag);
      }
    case OpKind::kAddMM:  // a column bias scaled by beta (copied), or a row bias (the epilogue)
      return ir::build_value(
          graph, op,
          {constant(graph, tag + "_bias", dtype, variant ? ir::Shape{4} : ir::Shape{3, 1}, seed),
           constant(graph, tag + "_a", dtype, {3, 2}, seed + 1),
           constant(graph, tag + "_b", dtype, {2, 4}, seed + 2)},
          attrs({{"alpha", 0.5}, {"beta", variant ? 1.0 : 2.0}}), tag);
    case OpKind::kGemm:
      return add_gemm_sample(graph, x, variant, tag, seed);
    case OpKind::kNormGemm: {  // the GEMV with x's 6 rows normalized first
      // layer_norm with a bias addend and gelu_tanh, or rms_norm alone.
      std::vector<ir::ValueId> in = {x, constant(graph, tag + "_b", dtype, {5, 4}, seed),
                                     constant(graph, tag + "_g", dtype, {4}, seed + 1)};
      if (variant == 0) {
        in.push_back(constant(graph, tag + "_beta", dtype, {4}, seed + 2));
        in.push_back(constant(graph, tag + "_c", dtype, {5}, seed + 3));
      }
      ir::Attributes a = gemm_attrs(true, 1.0, 1.0, variant == 0 ? "gelu_tanh" : "none");
      a.set("norm", std::string(variant == 0 ? "layer_norm" : "rms_norm"));
      a.set("eps", 1e-5);
      return ir::build_value(graph, op, std::move(in), std::move(a), tag);
    }
    case OpKind::kFusedElementwise:
      return add_fused_sample(graph, x, variant, tag, seed);
    case OpKind::kReshape:
      return ir::build_value(graph, op, {x}, attrs({{"shape", ir::IntList{6, 4}}}), tag);
    case OpKind::kTranspose:
      return ir::build_value(graph, op, {x}, attrs({{"dim0", int64_t{0}}, {"dim1", int64_t{2}}}),
                             tag);
    case OpKind::kPermute:
      return ir::build_value(graph, op, {x}, attrs({{"dims", ir::IntList{2, 0, 1}}}), tag);
    case OpKind::kExpand:
      return ir::build_value(graph, op, {x}, attrs({{"shape", ir::IntList{2, 2, 3, 4}}}), tag);
    case OpKind::kSlice:  // from an offset, a step in the innermost dim
      return ir::build_value(graph, op, {x},
                             attrs({{"starts", ir::IntList{1, 0, 1}},
                                    {"ends", ir::IntList{2, 3, 4}},
                                    {"steps", ir::IntList{1, 2, 2}}}),
                             tag);
    case OpKind::kCast:
      return ir::build_value(graph, op, {x}, attrs({{"dtype", ir::kAllDTypes[variant]}}), tag);
    case OpKind::kAdd:
    case OpKind::kSub:
    case OpKind::kMul:
    case OpKind::kDiv: {  // broadcast a row, then a scalar (an inlined literal)
      INFERNO_ASSIGN_OR_RETURN(
          const ir::ValueId row,
          ir::build_value(graph, op, {x, constant(graph, tag + "_row", dtype, {4}, seed)}, {},
                          tag));
      return ir::build_value(graph, op, {constant(graph, tag + "_s", dtype, {}, seed + 1), row}, {},
                             tag + "_scalar");
    }
    case OpKind::kSum:
      return ir::build_value(graph, op, {x},
                             attrs({{"dims", variant ? ir::IntList{0, 2} : ir::IntList{1}},
                                    {"keepdim", variant == 0}}),
                             tag);
    case OpKind::kMean:
      return ir::build_value(graph, op, {x}, attrs({{"dims", ir::IntList{}}, {"keepdim", false}}),
                             tag);
    case OpKind::kSoftmax:
      return ir::build_value(graph, op, {x}, attrs({{"dim", int64_t{1}}}), tag);
    case OpKind::kLogSoftmax:
      return ir::build_value(graph, op, {x}, attrs({{"dim", int64_t{2}}}), tag);
    case OpKind::kCumsum:
      return ir::build_value(graph, op, {x}, attrs({{"dim", int64_t{1}}}), tag);
    case OpKind::kReduceMax:  // dims that are not adjacent
      return ir::build_value(graph, op, {x},
                             attrs({{"dims", ir::IntList{0, 2}}, {"keepdim", true}}), tag);
    case OpKind::kReduceMin:
      return ir::build_value(graph, op, {x}, attrs({{"dims", ir::IntList{}}, {"keepdim", false}}),
                             tag);
    case OpKind::kArgMax:
      return ir::build_value(graph, op, {x}, attrs({{"dim", int64_t{2}}, {"keepdim", false}}), tag);
    case OpKind::kArgMin:
      return ir::build_value(graph, op, {x}, attrs({{"dim", int64_t{0}}, {"keepdim", true}}), tag);
    case OpKind::kMaxPool2d:  // x as [C, H, W]: padding, a stride per dim, dilation, ceil_mode
      return ir::build_value(graph, op, {x},
                             attrs({{"kernel", ir::IntList{2, 2}},
                                    {"stride", ir::IntList{1, 2}},
                                    {"padding", ir::IntList{1, 1}},
                                    {"dilation", ir::IntList{1, 2}},
                                    {"ceil_mode", true}}),
                             tag);
    case OpKind::kAvgPool2d:
      return ir::build_value(graph, op, {x},
                             attrs({{"kernel", ir::IntList{3, 2}},
                                    {"stride", ir::IntList{2, 1}},
                                    {"padding", ir::IntList{1, 1}},
                                    {"ceil_mode", true},
                                    {"count_include_pad", false},
                                    {"divisor_override", int64_t{0}}}),
                             tag);
    case OpKind::kAdaptiveAvgPool2d:
    case OpKind::kAdaptiveMaxPool2d:
      return ir::build_value(graph, op, {x}, attrs({{"output_size", ir::IntList{2, 3}}}), tag);
    case OpKind::kUpsampleNearest2d:  // x as [1, 2, 3, 4]
    case OpKind::kUpsampleBilinear2d: {
      INFERNO_ASSIGN_OR_RETURN(
          const ir::ValueId nchw,
          ir::build_value(graph, OpKind::kReshape, {x}, attrs({{"shape", ir::IntList{1, 2, 3, 4}}}),
                          tag + "_nchw"));
      ir::Attributes a =
          attrs({{"output_size", ir::IntList{5, 8}}, {"scale_h", 0.0}, {"scale_w", 2.0}});
      if (op == OpKind::kUpsampleBilinear2d) a.set("align_corners", false);
      return ir::build_value(graph, op, {nchw}, a, tag);
    }
    case OpKind::kCat:  // x with itself and a constant along dim 1
      return ir::build_value(graph, op, {x, constant(graph, tag + "_c", dtype, {2, 1, 4}, seed), x},
                             attrs({{"dim", int64_t{1}}}), tag);
    case OpKind::kIndexSelect: {  // dim 1 of x by a [2, 3] index, negative and in range
      ir::Tensor ids = ir::Tensor::zeros({ir::DType::kI64, {2, 3}});
      const double values[] = {1, 0, -1, 2, 2, -3};
      for (int64_t k = 0; k < 6; ++k) ids.set(k, values[k]);
      return ir::build_value(graph, op, {x, graph.add_constant(tag + "_ids", std::move(ids))},
                             attrs({{"dim", int64_t{1}}}), tag);
    }
    case OpKind::kIndexCopy: {  // rows 2 and 0 (as -3) of x's dim 1 replaced
      ir::Tensor ids = ir::Tensor::zeros({ir::DType::kI64, {2}});
      ids.set(0, 2);
      ids.set(1, -3);
      return ir::build_value(graph, op,
                             {x, graph.add_constant(tag + "_ids", std::move(ids)),
                              constant(graph, tag + "_source", dtype, {2, 2, 4}, seed)},
                             attrs({{"dim", int64_t{1}}}), tag);
    }
    case OpKind::kConstantPad:  // pads dims 0 and 2, crops dim 1
      return ir::build_value(
          graph, op, {x, constant(graph, tag + "_fill", dtype, {}, seed)},
          attrs({{"before", ir::IntList{1, -1, 2}}, {"after", ir::IntList{0, 0, 1}}}), tag);
    case OpKind::kConv2d: {  // x as [1, 2, 3, 4]; 0: 3x3, padding 1, bias; 1: depthwise 2x2,
                             // stride (2, 1), dilation (1, 2), asymmetric padding, no bias
      auto x4 = ir::build_value(graph, OpKind::kReshape, {x},
                                attrs({{"shape", ir::IntList{1, 2, 3, 4}}}), tag + "_x4");
      if (!x4) return x4;
      if (variant == 0) {
        return ir::build_value(graph, op,
                               {*x4, constant(graph, tag + "_w", dtype, {4, 2, 3, 3}, seed),
                                constant(graph, tag + "_b", dtype, {4}, seed + 1)},
                               attrs({{"stride", ir::IntList{1, 1}},
                                      {"padding", ir::IntList{1, 1, 1, 1}},
                                      {"dilation", ir::IntList{1, 1}},
                                      {"groups", int64_t{1}}}),
                               tag);
      }
      return ir::build_value(graph, op,
                             {*x4, constant(graph, tag + "_w", dtype, {2, 1, 2, 2}, seed)},
                             attrs({{"stride", ir::IntList{2, 1}},
                                    {"padding", ir::IntList{0, 1, 1, 0}},
                                    {"dilation", ir::IntList{1, 2}},
                                    {"groups", int64_t{2}}}),
                             tag);
    }
    case OpKind::kConvTranspose2d: {  // x as [1, 2, 3, 4]; 0: stride 2, output_padding, bias;
                                      // 1: dilation, padding, no bias
      auto x4 = ir::build_value(graph, OpKind::kReshape, {x},
                                attrs({{"shape", ir::IntList{1, 2, 3, 4}}}), tag + "_x4");
      if (!x4) return x4;
      std::vector<ir::ValueId> in = {*x4, constant(graph, tag + "_w", dtype, {2, 3, 3, 2}, seed)};
      if (variant == 0) in.push_back(constant(graph, tag + "_b", dtype, {3}, seed + 1));
      return ir::build_value(graph, op, in,
                             attrs({{"stride", ir::IntList{2, 2}},
                                    {"padding", ir::IntList{variant, 1}},
                                    {"output_padding", ir::IntList{1, 0}},
                                    {"dilation", ir::IntList{1, variant + 1}},
                                    {"groups", int64_t{1}}}),
                             tag);
    }
    case OpKind::kLayerNorm: {  // 0: over the last dim, weight and bias; 1: the last two, none
      ir::Attributes a = attrs({{"normalized_dims", int64_t{variant + 1}}, {"eps", 1e-5}});
      if (variant == 1) return ir::build_value(graph, op, {x}, a, tag);
      return ir::build_value(graph, op,
                             {x, constant(graph, tag + "_w", dtype, {4}, seed),
                              constant(graph, tag + "_b", dtype, {4}, seed + 1)},
                             a, tag);
    }
    case OpKind::kRmsNorm: {  // 0: over the last dim with a weight; 1: the last two, none
      ir::Attributes a = attrs({{"normalized_dims", int64_t{variant + 1}}, {"eps", 1e-6}});
      if (variant == 1) return ir::build_value(graph, op, {x}, a, tag);
      return ir::build_value(graph, op, {x, constant(graph, tag + "_w", dtype, {4}, seed)}, a, tag);
    }
    case OpKind::kGroupNorm: {  // x as [N, C, L]; 0: a group per channel, weight and bias; 1: one
                                // group, none
      ir::Attributes a = attrs({{"groups", int64_t{variant == 0 ? 3 : 1}}, {"eps", 1e-3}});
      if (variant == 1) return ir::build_value(graph, op, {x}, a, tag);
      return ir::build_value(graph, op,
                             {x, constant(graph, tag + "_w", dtype, {3}, seed),
                              constant(graph, tag + "_b", dtype, {3}, seed + 1)},
                             a, tag);
    }
    case OpKind::kAttention: {  // x as q [1, 2, 3, 4] or [2, 1, 3, 4]; 0: GQA (two query heads on
                                // one kv head), causal, Dv 6; 1: self-attention on x with a bool
                                // [3, 3] mask, its row 1 all false; 2: an additive [1, 2, 1, 5]
      auto q = ir::build_value(
          graph, OpKind::kReshape, {x},
          attrs({{"shape", variant == 1 ? ir::IntList{2, 1, 3, 4} : ir::IntList{1, 2, 3, 4}}}),
          tag + "_q");
      if (!q) return q;
      ir::Attributes a = attrs({{"scale", 0.5}});
      if (variant == 0) {
        a.set("causal", true);
        a.set("kv_groups", int64_t{2});
        return ir::build_value(graph, op,
                               {*q, constant(graph, tag + "_k", dtype, {1, 1, 5, 4}, seed),
                                constant(graph, tag + "_v", dtype, {1, 1, 5, 6}, seed + 1)},
                               a, tag);
      }
      if (variant == 1) {
        ir::Tensor keep = ir::Tensor::zeros({ir::DType::kBool, {3, 3}});
        const double bits[] = {1, 0, 1, 0, 0, 0, 0, 1, 1};
        for (int64_t k = 0; k < 9; ++k) keep.set(k, bits[k]);
        a.set("mask", std::string("bool"));
        return ir::build_value(
            graph, op, {*q, *q, *q, graph.add_constant(tag + "_mask", std::move(keep))}, a, tag);
      }
      a.set("mask", std::string("additive"));
      return ir::build_value(graph, op,
                             {*q, constant(graph, tag + "_k", dtype, {1, 2, 5, 4}, seed),
                              constant(graph, tag + "_v", dtype, {1, 2, 5, 4}, seed + 1),
                              constant(graph, tag + "_mask", dtype, {1, 2, 1, 5}, seed + 2)},
                             a, tag);
    }
    case OpKind::kRotary: {  // 0: all 4 of x's last dim, cos and sin [3, 4] broadcast over the
                             // batch; 1: partial, the first 2, cos and sin [2, 1, 2]
      const ir::Shape table = variant == 0 ? ir::Shape{3, 4} : ir::Shape{2, 1, 2};
      return ir::build_value(graph, op,
                             {x, constant(graph, tag + "_cos", dtype, table, seed),
                              constant(graph, tag + "_sin", dtype, table, seed + 1)},
                             attrs({{"rotary_dim", int64_t{variant == 0 ? 4 : 2}}}), tag);
    }
    default: {  // other elementwise ops: x, then rank-0 constants (literals) for the rest
      std::vector<ir::ValueId> operands = {x};
      for (int k = 1; k < ir::op_min_inputs(op); ++k) {
        operands.push_back(constant(graph, tag + "_p" + std::to_string(k), dtype, {},
                                    seed + static_cast<uint64_t>(k)));
      }
      return ir::build_value(graph, op, std::move(operands), {}, tag);
    }
  }
}

ir::Graph kitchen_sink_graph(std::vector<std::string>* labels) {
  ir::Graph graph;
  const ir::ValueId x = graph.add_input("x", {ir::DType::kF32, {2, 3, 4}});
  std::vector<ir::ValueId> outputs;
  for (const ir::DType dtype : ir::kAllDTypes) {
    ir::ValueId xd = x;
    if (dtype != ir::DType::kF32) {
      ir::Attributes to;
      to.set("dtype", dtype);
      auto cast =
          ir::build_value(graph, OpKind::kCast, {x}, to, "x_" + std::string(ir::dtype_name(dtype)));
      INFERNO_CHECK(cast.has_value(), "kitchen sink: cast failed");
      xd = *cast;
    }
    for (const OpKind op : all_op_kinds()) {
      for (int variant = 0; variant < op_sample_variants(op); ++variant) {
        // Only what codegen lowers on its own.
        ir::Graph single;
        const ir::ValueId sx = single.add_input("x", {dtype, {2, 3, 4}});
        auto sy = add_op_sample(single, op, sx, variant);
        if (!sy) continue;
        single.set_outputs({*sy});
        if (!codegen::generate(single, {}).has_value()) continue;

        auto y = add_op_sample(graph, op, xd, variant);
        INFERNO_CHECK(y.has_value(), "kitchen sink: a sample failed to build twice");
        ir::ValueId out = *y;
        if (graph.type(out).dtype != ir::DType::kF64) {
          ir::Attributes to;
          to.set("dtype", ir::DType::kF64);
          auto cast = ir::build_value(graph, OpKind::kCast, {out}, to, graph.name(out) + "_f64");
          INFERNO_CHECK(cast.has_value(), "kitchen sink: cast failed");
          out = *cast;
        }
        outputs.push_back(out);
        if (labels != nullptr) {
          labels->push_back(std::string(ir::op_name(op)) + "/" +
                            std::string(ir::dtype_name(dtype)) + "/" + std::to_string(variant));
        }
      }
    }
  }
  graph.set_outputs(outputs);
  return graph;
}

}  // namespace inferno::test
