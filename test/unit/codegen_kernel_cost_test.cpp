// The cost model (codegen/kernel_cost.h) against hand counts for each family, and the profile
// plan (codegen/profile_plan.h): one step per node that launches work, named by the kernels the
// generated model.cu launches.
#include <string>

#include "codegen/codegen.h"
#include "codegen/kernel_cost.h"
#include "codegen/profile_plan.h"
#include "codegen_samples.h"
#include "ir/parser.h"
#include "support/catch.h"
#include "support/test_support.h"
#include "target/target.h"

namespace inferno {
namespace {

using test::parse;

// The work of the graph's last node.
codegen::NodeWork last_node_work(const std::string& text) {
  const ir::Graph graph = parse(text);
  return codegen::node_work(graph, graph.nodes().back());
}

std::vector<codegen::KernelCost> plan_of(const std::string& text,
                                         target::Precision precision = target::Precision::kFp32) {
  const ir::Graph graph = parse(text);
  codegen::CodegenOptions options;
  options.source_model_hash = "0";
  options.cuda_version = "13.0";
  options.target.precision = precision;
  auto plan = codegen::profile_plan(graph, options);
  INFO((plan ? "" : plan.status().to_string()));
  REQUIRE(plan.has_value());
  return std::move(*plan);
}

}  // namespace

TEST_CASE("a GEMM costs 2 K FLOPs per output element and one per epilogue term", "[codegen]") {
  // [8, 16] @ [16, 32] + bias[32], relu: 8 * 32 outputs, each 2 * 16 FLOPs + bias + relu.
  const codegen::NodeWork work =
      last_node_work(R"(graph(%x: f32[8,16], %w: f32[16,32], %b: f32[32]) {
  %y: f32[8,32] = gemm(%x, %w, %b) {activation="relu", alpha=1.0, beta=1.0, trans_b=false}
  return %y
})");
  CHECK(work.flops == 8 * 32 * (2 * 16) + 8 * 32 * 2);
  CHECK(work.bytes_read == (8 * 16 + 16 * 32 + 32) * 4);
  CHECK(work.bytes_written == 8 * 32 * 4);
  // Batched, f16, the weight transposed, a residual, beta 0 dropping the bias term:
  // 3 * [5, 7] outputs of K = 6.
  const codegen::NodeWork batched =
      last_node_work(R"(graph(%x: f16[3,5,6], %w: f16[3,7,6], %b: f16[7], %r: f16[3,5,7]) {
  %y: f16[3,5,7] = gemm(%x, %w, %b, %r) {activation="none", alpha=1.0, beta=0.0, trans_b=true}
  return %y
})");
  CHECK(batched.flops == 3 * 5 * 7 * (2 * 6) + 3 * 5 * 7 * 1);
  CHECK(batched.bytes_read == (3 * 5 * 6 + 3 * 7 * 6 + 7 + 3 * 5 * 7) * 2);
}

TEST_CASE("a convolution costs 2 C/groups KH KW FLOPs per output element", "[codegen]") {
  // x[2, 4, 8, 8], w[6, 4, 3, 3], stride 1, pad 1: out [2, 6, 8, 8], bias and relu.
  const codegen::NodeWork work =
      last_node_work(R"(graph(%x: f32[2,4,8,8], %w: f32[6,4,3,3], %b: f32[6]) {
  %y: f32[2,6,8,8] = conv2d(%x, %w, %b) {activation="relu", dilation=[1, 1], groups=1, padding=[1, 1, 1, 1], stride=[1, 1]}
  return %y
})");
  const double outputs = 2 * 6 * 8 * 8;
  CHECK(work.flops == outputs * 2 * 4 * 3 * 3 + outputs * 2);
  CHECK(work.bytes_read == (2 * 4 * 8 * 8 + 6 * 4 * 3 * 3 + 6) * 4);
  CHECK(work.bytes_written == outputs * 4);
  // Depthwise: groups 4, w[4, 1, 3, 3]: 9 taps per output, no epilogue.
  const codegen::NodeWork depthwise = last_node_work(R"(graph(%x: f32[1,4,6,6], %w: f32[4,1,3,3]) {
  %y: f32[1,4,4,4] = conv2d(%x, %w) {dilation=[1, 1], groups=4, padding=[0, 0, 0, 0], stride=[1, 1]}
  return %y
})");
  CHECK(depthwise.flops == 1 * 4 * 4 * 4 * 2 * 9);
  // Transposed: each of x's 1 * 2 * 3 * 3 elements scatters into O * 2 * 2 = 5 * 4 outputs.
  const codegen::NodeWork transposed = last_node_work(R"(graph(%x: f32[1,2,3,3], %w: f32[2,5,2,2]) {
  %y: f32[1,5,6,6] = conv_transpose2d(%x, %w) {dilation=[1, 1], groups=1, output_padding=[0, 0], padding=[0, 0], stride=[2, 2]}
  return %y
})");
  CHECK(transposed.flops == 1 * 2 * 3 * 3 * 2 * 5 * 2 * 2);
}

TEST_CASE("attention costs 2 (D + Dv) FLOPs per kept query-key pair", "[codegen]") {
  // B 2, H 3, Sq 5, Skv 7, D 8, Dv 4: every pair.
  const std::string shapes = "%q: f32[2,3,5,8], %k: f32[2,3,7,8], %v: f32[2,3,7,4]";
  const codegen::NodeWork full = last_node_work("graph(" + shapes + R"() {
  %o: f32[2,3,5,4] = attention(%q, %k, %v) {causal=false, kv_groups=1, mask="none", scale=0.25}
  return %o
})");
  CHECK(full.flops == 2.0 * 3 * 5 * 7 * 2 * (8 + 4));
  CHECK(full.bytes_read == (2 * 3 * 5 * 8 + 2 * 3 * 7 * 8 + 2 * 3 * 7 * 4) * 4);
  CHECK(full.bytes_written == 2 * 3 * 5 * 4 * 4);
  // Causal, top-left aligned: query i sees min(i + 1, 7) keys: 1 + 2 + 3 + 4 + 5 = 15 pairs.
  const codegen::NodeWork causal = last_node_work("graph(" + shapes + R"() {
  %o: f32[2,3,5,4] = attention(%q, %k, %v) {causal=true, kv_groups=1, mask="none", scale=0.25}
  return %o
})");
  CHECK(causal.flops == 2.0 * 3 * 15 * 2 * (8 + 4));
  // More queries than keys: rows 0..2 see 1, 2, 3 keys, rows 3 and 4 all 3: 12 pairs.
  const codegen::NodeWork tall =
      last_node_work(R"(graph(%q: f32[1,1,5,2], %k: f32[1,1,3,2], %v: f32[1,1,3,2]) {
  %o: f32[1,1,5,2] = attention(%q, %k, %v) {causal=true, kv_groups=1, mask="none", scale=0.5}
  return %o
})");
  CHECK(tall.flops == 12 * 2 * (2 + 2));
}

TEST_CASE("norms and softmax cost a fixed count per element", "[codegen]") {
  const codegen::NodeWork layer_norm =
      last_node_work(R"(graph(%x: f32[4,10], %w: f32[10], %b: f32[10]) {
  %y: f32[4,10] = layer_norm(%x, %w, %b) {eps=1e-05, normalized_dims=1}
  return %y
})");
  CHECK(layer_norm.flops == 40 * (5 + 2));
  CHECK(layer_norm.bytes_read == (40 + 10 + 10) * 4);
  const codegen::NodeWork rms = last_node_work(R"(graph(%x: bf16[4,10], %w: bf16[10]) {
  %y: bf16[4,10] = rms_norm(%x, %w) {eps=1e-06, normalized_dims=1}
  return %y
})");
  CHECK(rms.flops == 40 * (3 + 1));
  CHECK(rms.bytes_read == (40 + 10) * 2);
  const codegen::NodeWork softmax = last_node_work(R"(graph(%x: f32[3,6]) {
  %y: f32[3,6] = softmax(%x) {dim=1}
  return %y
})");
  CHECK(softmax.flops == 18 * 5);
}

TEST_CASE("rotary costs 3 per rotated element and reads cos and sin once", "[codegen]") {
  // Partial: 6 of 10 rotated in each of 2 * 3 rows; cos and sin [3, 6] broadcast over the batch.
  const codegen::NodeWork rotary =
      last_node_work(R"(graph(%x: f16[2,3,10], %cos: f16[3,6], %sin: f16[3,6]) {
  %y: f16[2,3,10] = rotary(%x, %cos, %sin) {rotary_dim=6}
  return %y
})");
  CHECK(rotary.flops == 6 * 6 * 3);
  CHECK(rotary.bytes_read == (60 + 18 + 18) * 2);
  CHECK(rotary.bytes_written == 60 * 2);
}

TEST_CASE("elementwise ops cost 1 FLOP per element unless they do no arithmetic", "[codegen]") {
  // mul(x, x) reads x once; the broadcast bias is read once too.
  const codegen::NodeWork square = last_node_work(R"(graph(%x: f32[4,8]) {
  %y: f32[4,8] = mul(%x, %x)
  return %y
})");
  CHECK(square.flops == 32);
  CHECK(square.bytes_read == 32 * 4);
  CHECK(square.bytes_written == 32 * 4);
  const codegen::NodeWork cast = last_node_work(R"(graph(%x: f32[4,8]) {
  %y: f16[4,8] = cast(%x) {dtype=f16}
  return %y
})");
  CHECK(cast.flops == 0);
  CHECK(cast.bytes_read == 32 * 4);
  CHECK(cast.bytes_written == 32 * 2);
  // A fused body: each arithmetic step counts its own result's elements; the cast none.
  const codegen::NodeWork fused = last_node_work(R"ir(graph(%x: f32[4,8], %b: f32[8]) {
  %y: f16[4,8] = fused_elementwise(%x, %b) {expr="add($0, $1); relu(#0); cast[f16](#1)"}
  return %y
})ir");
  CHECK(fused.flops == 32 * 2);
  CHECK(fused.bytes_read == (32 + 8) * 4);
  CHECK(fused.bytes_written == 32 * 2);
}

TEST_CASE("gathers and slices read only what they copy", "[codegen]") {
  const codegen::NodeWork gather = last_node_work(R"(graph(%t: f32[100,16], %i: i64[3]) {
  %y: f32[3,16] = index_select(%t, %i) {dim=0}
  return %y
})");
  CHECK(gather.flops == 0);
  CHECK(gather.bytes_read == 3 * 16 * 4 + 3 * 8);
  CHECK(gather.bytes_written == 3 * 16 * 4);
  const codegen::NodeWork slice = last_node_work(R"(graph(%x: f32[10,16]) {
  %y: f32[2,16] = slice(%x) {ends=[4, 16], starts=[2, 0], steps=[1, 1]}
  return %y
})");
  CHECK(slice.bytes_read == 2 * 16 * 4);
}

TEST_CASE("launched_kernels names every launch of a node's statements", "[codegen]") {
  using codegen::launched_kernels;
  CHECK(launched_kernels("// %v = reshape(%x)\n// (a view: nothing to copy)\n").empty());
  CHECK(
      launched_kernels("  MODEL_CHECK_CUBLAS(run_gemm(state->lt, kGemms[2], a, b), \"%y\");\n"
                       "  k18_gemm_epilogue_gelu_tanh_f32_1x20x128<<<10, 256, 0, stream>>>(v_y);\n"
                       "  MODEL_CHECK_LAUNCH(\"%y\");\n") ==
      std::vector<std::string>{"cublasLt", "gemm_epilogue_gelu_tanh_f32_1x20x128"});
  CHECK(launched_kernels("MODEL_CHECK_CUDA((inferno::kernels::attention<__half, 64>(q, k), "
                         "stream)), \"%a\");") ==
        std::vector<std::string>{"attention<__half, 64>"});
}

TEST_CASE("launched_kernels reads no launch out of a name in a literal or comment", "[codegen]") {
  // A model's value name reaches an alignment error's message, a comment and (sanitized) an
  // identifier; the codegen fuzz target found a name holding "MODEL_CHECK_" taken for a launch.
  using codegen::launched_kernels;
  CHECK(launched_kernels("  if (misaligned(v_MODEL_CHECK_CUDA_, 16)) return "
                         "bad_alignment(\"MODEL_CHECK_CUDA(\");\n"
                         "  // %a<<<b>>> = MODEL_CHECK_LAUNCH(\n"
                         "  k3_relu_f32_16<<<1, 16, 0, stream>>>(v_x); /* <<< */\n"
                         "  MODEL_CHECK_LAUNCH(\"x<<<\\\"MODEL_CHECK_CUBLAS(run_gemm(\");\n") ==
        std::vector<std::string>{"relu_f32_16"});
}

TEST_CASE("the profile plan has one step per launching node, named by its kernels", "[codegen]") {
  // A decode-shaped GEMM (8 rows: the GEMV kernel, gelu fused), views attention reads in place,
  // attention, an elementwise op, and an output that is a graph input's copy.
  const std::vector<codegen::KernelCost> plan = plan_of(R"(graph(%x: f32[8,16], %w: f32[16,48]) {
  %qkv: f32[8,48] = gemm(%x, %w) {activation="gelu_tanh", alpha=1.0, beta=1.0, trans_b=false} loc("model.py":12)
  %qs: f32[8,16] = slice(%qkv) {ends=[8, 16], starts=[0, 0], steps=[1, 1]}
  %ks: f32[8,16] = slice(%qkv) {ends=[8, 32], starts=[0, 16], steps=[1, 1]}
  %vs: f32[8,16] = slice(%qkv) {ends=[8, 48], starts=[0, 32], steps=[1, 1]}
  %q: f32[1,1,8,16] = reshape(%qs) {shape=[1, 1, 8, 16]}
  %k: f32[1,1,8,16] = reshape(%ks) {shape=[1, 1, 8, 16]}
  %v: f32[1,1,8,16] = reshape(%vs) {shape=[1, 1, 8, 16]}
  %a: f32[1,1,8,16] = attention(%q, %k, %v) {causal=false, kv_groups=1, mask="none", scale=0.25} loc("model.py":20)
  %z: f32[1,1,8,16] = neg(%a)
  return %z, %x
})");
  REQUIRE(plan.size() == 4);
  CHECK(plan[0].node == 0);
  CHECK(plan[0].node_name == "qkv");
  CHECK(plan[0].op == "gemm");
  CHECK(plan[0].loc.to_string() == "model.py:12");
  CHECK(plan[0].kernels.size() == 1);
  CHECK(plan[0].choice == "gemv_kn_f32_8x16x48 (weight-streaming GEMV, FMA)");
  CHECK(plan[0].work.flops == 8 * 48 * 2 * 16 + 8 * 48);
  CHECK(plan[1].node == 7);
  CHECK(plan[1].op == "attention");
  CHECK(plan[1].choice == "attention<float, 32> (flash, FMA)");
  CHECK(plan[1].loc.to_string() == "model.py:20");
  CHECK(plan[2].op == "neg");
  CHECK(plan[3].node == -1);
  CHECK(plan[3].op == "copy");
  CHECK(plan[3].work.bytes_read == 8 * 16 * 4);
  const std::string text = codegen::profile_plan_to_string(plan);
  CHECK(text.find("%qkv") != std::string::npos);
  CHECK(text.find("model.py:20") != std::string::npos);
  CHECK(text.find("total: 4 launches") != std::string::npos);
  // A cuBLASLt GEMM with its in-place epilogue kernel (more than 8 rows): two launches.
  const std::vector<codegen::KernelCost> tall = plan_of(R"(graph(%x: f32[16,16], %w: f32[16,48]) {
  %y: f32[16,48] = gemm(%x, %w) {activation="gelu_tanh", alpha=1.0, beta=1.0, trans_b=false}
  return %y
})");
  REQUIRE(tall.size() == 1);
  CHECK(tall[0].kernels.size() == 2);
  CHECK(tall[0].choice == "cublasLt (no tensor cores) + gemm_epilogue_gelu_tanh_f32_16x48");
  // TF32 shows in the GEMM's choice.
  CHECK(plan_of(R"(graph(%x: f32[16,16], %w: f32[16,48]) {
  %y: f32[16,48] = gemm(%x, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  return %y
})",
                target::Precision::kTf32)
            .front()
            .choice == "cublasLt (tf32 tensor cores)");
}

TEST_CASE("attention with a few query rows is named as the decode kernel", "[codegen]") {
  auto choice = [](int64_t rows) {
    const std::string q = "f32[1,2," + std::to_string(rows) + ",16]";
    return plan_of("graph(%q: " + q + ", %k: f32[1,2,64,16], %v: f32[1,2,64,16]) {\n  %a: " + q +
                   " = attention(%q, %k, %v) {causal=false, kv_groups=1, mask=\"none\", "
                   "scale=0.25}\n  return %a\n}")
        .front()
        .choice;
  };
  CHECK(choice(1) == "attention<float, 32> (decode, split keys)");
  CHECK(choice(target::kAttentionLimits.decode_max_rows) ==
        "attention<float, 32> (decode, split keys)");
  CHECK(choice(target::kAttentionLimits.decode_max_rows + 1) ==
        "attention<float, 32> (flash, FMA)");
}

}  // namespace inferno

namespace inferno {

TEST_CASE("every lowering's launches are named in the kitchen sink's profile plan", "[codegen]") {
  // launched_kernels refuses (an internal error) a launch it cannot name or an unpaired check,
  // so a plan for the graph holding every op on every dtype covers every lowering's statements.
  const ir::Graph graph = test::kitchen_sink_graph();
  codegen::CodegenOptions options;
  options.source_model_hash = "0";
  options.cuda_version = "13.0";
  auto plan = codegen::profile_plan(graph, options);
  INFO((plan ? "" : plan.status().to_string()));
  REQUIRE(plan.has_value());
  CHECK(plan->size() > graph.nodes().size() / 2);
  for (const codegen::KernelCost& step : *plan) {
    CHECK_FALSE(step.kernels.empty());
    for (const std::string& kernel : step.kernels) CHECK_FALSE(kernel.empty());
  }
}

}  // namespace inferno
