// Every op of ir/ops.def, on every dtype its shape rule accepts, either lowers or fails with an
// unsupported Status that names the op and the node. Plus the unsupported cases that must not
// become wrong answers, and the escaping of model-provided strings.
#include <string>

#include "codegen/codegen.h"
#include "codegen_samples.h"
#include "ir/builder.h"
#include "ir/parser.h"
#include "passes/legalize.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

codegen::CodegenOptions options() {
  codegen::CodegenOptions o;
  o.source_model_hash = "0";
  o.cuda_version = "13.0";
  return o;
}

// The graph as the CLI hands it to codegen: legalized (linear, addmm, matmul become gemm).
ir::Graph parse(const std::string& text) {
  auto graph = ir::parse_graph(text);
  INFO((graph ? "" : graph.status().to_string()));
  REQUIRE(graph.has_value());
  REQUIRE(passes::legalize(*graph, {}).is_ok());
  return std::move(*graph);
}

std::string generate_cu(const std::string& text) {
  auto generated = codegen::generate(parse(text), options());
  INFO((generated ? "" : generated.status().to_string()));
  REQUIRE(generated.has_value());
  return generated->cuda_source;
}

int count(const std::string& text, const std::string& part) {
  int n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// run()'s body (run_steps, which run() calls without a profiler's hook).
std::string run_body(const std::string& cu) {
  const size_t begin = cu.find("int32_t run_steps(");
  REQUIRE(begin != std::string::npos);
  return cu.substr(begin, cu.find("\n}\n", begin) - begin);
}

}  // namespace

TEST_CASE("every op lowers or fails as unsupported, naming op and node", "[codegen]") {
  int lowered = 0, refused = 0;
  for (const ir::OpKind op : test::all_op_kinds()) {
    for (const ir::DType dtype : ir::kAllDTypes) {
      for (int variant = 0; variant < test::op_sample_variants(op); ++variant) {
        ir::Graph graph;
        const ir::ValueId x = graph.add_input("x", {dtype, {2, 3, 4}});
        auto y = test::add_op_sample(graph, op, x, variant);
        if (!y) continue;  // the shape rules refuse this dtype
        graph.set_outputs({*y});
        INFO(ir::op_name(op) << " on " << ir::dtype_name(dtype) << " (variant " << variant << ")");
        auto generated = codegen::generate(graph, options());
        if (generated) {
          ++lowered;
          CHECK(!generated->cuda_source.empty());
          continue;
        }
        ++refused;
        const Status& status = generated.status();
        INFO(status.to_string());
        CHECK(status.code() == ErrorCode::kUnsupported);
        CHECK(status.message().find(std::string(ir::op_name(op)) + ":") == 0);
        CHECK(status.node() == graph.node_name(graph.nodes().back()));
      }
    }
  }
  CHECK(lowered > 100);
  CHECK(refused > 0);
}

TEST_CASE("what codegen refuses instead of computing wrongly", "[codegen]") {
  auto refuse = [](const std::string& text, const std::string& expected) {
    auto generated = codegen::generate(parse(text), options());
    REQUIRE(!generated.has_value());
    INFO(generated.status().to_string());
    CHECK(generated.status().code() == ErrorCode::kUnsupported);
    CHECK(generated.status().to_string().find(expected) != std::string::npos);
  };
  refuse("graph(%a: i32[2,3], %b: i32[3,4]) {\n  %m: i32[2,4] = matmul(%a, %b)\n  return %m\n}",
         "gemm: integer GEMMs are not supported (i32) (node 'm')");
  refuse(
      "graph(%a: f32[2,1,4,3], %b: f32[1,5,3,2]) {\n  %m: f32[2,5,4,2] = matmul(%a, %b)\n  return "
      "%m\n}",
      "gemm: batch dims [2,1] and [1,5] broadcast in a way a strided batched GEMM cannot "
      "express");
  refuse("graph(%a: i64[2,3]) {\n  %s: i64[2] = sum(%a) {dims=[1], keepdim=false}\n  return %s\n}",
         "sum: integer and bool reductions are not supported");
  refuse(
      "graph(%a: f32[2,0], %b: f32[0,3]) {\n  %m: f32[2,3] = matmul(%a, %b) loc(\"m.py\":7)\n  "
      "return %m\n}",
      "(node 'm' at m.py:7)");
  const std::string gemm = " {activation=\"none\", alpha=1.0, beta=1.0, trans_b=false}";
  refuse("graph(%a: i64[2,3], %b: i64[3,4]) {\n  %m: i64[2,4] = gemm(%a, %b)" + gemm +
             "\n  return %m\n}",
         "gemm: integer GEMMs are not supported (i64) (node 'm')");
  refuse(
      "graph(%a: f32[2,1,4,3], %b: f32[1,5,3,2]) {\n  %m: f32[2,5,4,2] = gemm(%a, %b)" + gemm +
          "\n  return %m\n}",
      "gemm: batch dims [2,1] and [1,5] broadcast in a way a strided batched GEMM cannot express");
  refuse(
      "graph(%q: f32[1,1,2,300]) {\n  %a: f32[1,1,2,300] = attention(%q, %q, %q) {scale=0.5}\n  "
      "return %a\n}",
      "attention: head dims up to 256 are supported, got 300 (q, k) and 300 (v) (node 'a')");
}

TEST_CASE("model strings reach model.cu only escaped", "[codegen]") {
  // A loc file name can hold anything: newlines, backslashes, non-ASCII, comment terminators.
  ir::Graph graph;
  const ir::ValueId x = graph.add_input("x.in", {ir::DType::kF32, {4}});
  auto y = ir::build_value(graph, ir::OpKind::kRelu, {x}, {}, "y.out",
                           SourceLocation{"evil\n#error boom\\\n*/ \"\xc3\xa9\".py", 3});
  REQUIRE(y.has_value());
  graph.set_outputs({*y});
  codegen::CodegenOptions o = options();
  o.source_model_hash = "ab\"\n#error";
  o.cuda_version = "13.0\\";
  auto generated = codegen::generate(graph, o);
  REQUIRE(generated.has_value());
  const std::string& cu = generated->cuda_source;
  // Bytes outside printable ASCII and '\\' become '?', the second '?' of a pair '.' (no trigraph).
  CHECK(cu.find("// %y.out = relu(%x.in) at evil?#error boom?.*/ \"?.\".py:3\n") !=
        std::string::npos);
  CHECK(cu.find("{\"x.in\", INFERNO_DTYPE_F32, 1, kInput0Shape}") != std::string::npos);
  CHECK(cu.find("\"ab\\\"\\012#error\"") != std::string::npos);  // the hash, as a C string literal
  CHECK(cu.find("\"13.0\\\\\"") != std::string::npos);
  // Identifiers come from value names with '.' mapped to '_'.
  CHECK(cu.find("v_x_in") != std::string::npos);
  CHECK(cu.find("v_y_out") != std::string::npos);
  for (size_t at = cu.find('\n'); at != std::string::npos; at = cu.find('\n', at + 1)) {
    CHECK(cu.compare(at + 1, 6, "#error") != 0);  // no model text starts a line
  }
}

TEST_CASE("a model with dynamic dims exports their table, names escaped", "[codegen]") {
  ir::Graph graph;
  const ir::ValueId x = graph.add_input("x", {ir::DType::kF32, {4, 3}});
  auto y = ir::build_value(graph, ir::OpKind::kRelu, {x}, {}, "y", {});
  REQUIRE(y.has_value());
  graph.set_outputs({*y});
  codegen::CodegenOptions o = options();
  auto plain = codegen::generate(graph, o);
  REQUIRE(plain.has_value());
  CHECK(plain->cuda_source.find("inferno_model_describe_dims") == std::string::npos);
  CHECK(plain->exports_map.find("inferno_model_describe_dims") == std::string::npos);
  // Kept: a plain symbol and a printable name with a quote and a backslash; dropped (a reader
  // would refuse them): a name with a newline, an over-long one, one no input has.
  o.dynamic_dims = {{"s77", 1, 64, {{0, 0}}},
                    {"b\"\\#error", 2, -1, {{0, 1}}},
                    {"c\n#error", 1, 2, {{0, 1}}},
                    {std::string(200, 's'), 1, 2, {{0, 1}}},
                    {"s9", 1, 2, {}}};
  auto generated = codegen::generate(graph, o);
  REQUIRE(generated.has_value());
  const std::string& cu = generated->cuda_source;
  CHECK(cu.find("{\"s77\", 1, 64},") != std::string::npos);
  CHECK(cu.find("{\"b\\\"\\\\#error\", 2, -1},") != std::string::npos);
  CHECK(cu.find("c\\012") == std::string::npos);
  CHECK(cu.find("ssssssss") == std::string::npos);
  CHECK(cu.find("\"s9\"") == std::string::npos);
  CHECK(cu.find("const inferno_model_dim_use kDimUses[] = {{0, 0, 0}, {0, 1, 1}};") !=
        std::string::npos);
  CHECK(cu.find("sizeof(inferno_model_dims), 2, kDims, 2, kDimUses, -1};") != std::string::npos);
  CHECK(cu.find("const inferno_model_dims* inferno_model_describe_dims() {") != std::string::npos);
  CHECK(generated->exports_map.find("inferno_model_describe_dims;") != std::string::npos);
  for (size_t at = cu.find('\n'); at != std::string::npos; at = cu.find('\n', at + 1)) {
    CHECK(cu.compare(at + 1, 6, "#error") != 0);
  }
}

TEST_CASE("run() declares only the locals its code uses, whatever the values are called",
          "[codegen]") {
  // Names that spell run()'s own locals appear in strings and comments, never as code.
  auto generated = codegen::generate(parse("graph(%arena: f32[4]) {\n  %weights: f32[4] = "
                                           "relu(%arena)\n  %state: f32[4] = neg(%weights)\n"
                                           "  return %state\n}"),
                                     options());
  REQUIRE(generated.has_value());
  const std::string& cu = generated->cuda_source;
  CHECK(cu.find("const unsigned char* const weights =") == std::string::npos);
  // The session is read for its dependent-launch choice (the kernels' launches), once.
  CHECK(count(cu, "const State* const state =") == 1);
  CHECK(cu.find("const bool dependent_launch = state->dependent_launch && hook == nullptr;") !=
        std::string::npos);
  CHECK(cu.find("float* const v_weights = reinterpret_cast<float*>(arena + 0);") !=
        std::string::npos);
  CHECK(cu.find("unsigned char* const arena =") != std::string::npos);
}

// A chain of `n` unfused elementwise nodes (n kernels, n steps) on `shape`.
std::string chain_graph(int n, const std::string& shape) {
  std::string text = "graph(%x: f32[" + shape + "]) {\n  %v0: f32[" + shape + "] = relu(%x)\n";
  for (int i = 1; i < n; ++i) {
    text += "  %v" + std::to_string(i) + ": f32[" + shape + "] = " + (i % 2 ? "neg" : "relu") +
            "(%v" + std::to_string(i - 1) + ")\n";
  }
  return text + "  return %v" + std::to_string(n - 1) + "\n}";
}

TEST_CASE("a long run() is split into parts, each with its own locals", "[codegen]") {
  // 100 kernels: parts of 48, 48 and 4 steps.
  auto generated = codegen::generate(parse(chain_graph(100, "64")), options());
  REQUIRE(generated.has_value());
  const std::string& cu = generated->cuda_source;
  CHECK(generated->num_parts == 3);
  // Declared before the anonymous namespace, defined after it, each under its own #if.
  CHECK(count(cu, "MODEL_RUN_PART int32_t run_steps_part") == 6);
  CHECK(count(cu, "run_steps_part2(state_ptr, args, hook, user, error, error_size)") == 1);
  const size_t part1 = cu.find("MODEL_RUN_PART int32_t run_steps_part1([[maybe_unused]]");
  const size_t part2 = cu.find("MODEL_RUN_PART int32_t run_steps_part2([[maybe_unused]]");
  REQUIRE(part1 != std::string::npos);
  REQUIRE(part2 != std::string::npos);
  CHECK(cu.find("namespace {") < cu.find("}  // namespace\n"));
  CHECK(cu.find("}  // namespace\n") < cu.find("#if MODEL_PART_HERE(0)\nMODEL_RUN_PART"));
  CHECK(cu.rfind("#if MODEL_PART_HERE(1)\n", part1) != std::string::npos);
  const std::string second = cu.substr(part1, part2 - part1);
  // Steps 48 to 95, in order; their values' pointers are declared here, the others' are not.
  CHECK(count(second, ", 0);") == 48);
  CHECK(second.find("MODEL_PROFILE_STEP(48, 0);") < second.find("MODEL_PROFILE_STEP(95, 0);"));
  CHECK(second.find("v_v48 =") != std::string::npos);
  CHECK(second.find("v_v20 =") == std::string::npos);
  CHECK(second.find("const bool dependent_launch = state->dependent_launch && hook == nullptr;") !=
        std::string::npos);
  // Each node's kernel is compiled with the part that launches it: node 50's in part 1.
  const size_t kernel50 = cu.find("__global__ void k50_");
  REQUIRE(kernel50 != std::string::npos);
  CHECK(cu.rfind("#if MODEL_PART_HERE(", kernel50) == cu.rfind("#if MODEL_PART_HERE(1)", kernel50));
  CHECK(cu.find("#endif", kernel50) < cu.find("__global__ void k96_"));
  // The weights, the session, the descriptors and the entry points are the main object's.
  CHECK(cu.find("#if INFERNO_MODEL_MAIN\nextern \"C\"") != std::string::npos);
  CHECK(cu.find("#if INFERNO_MODEL_MAIN\n// session_create and session_destroy") !=
        std::string::npos);
  // A short run() stays one function, with no parts and nothing under their #ifs.
  auto small = codegen::generate(parse(chain_graph(1, "4")), options());
  REQUIRE(small.has_value());
  CHECK(small->num_parts == 0);
  CHECK(small->cuda_source.find("run_steps_part") == std::string::npos);
  CHECK(small->cuda_source.find("MODEL_PART_HERE") == std::string::npos);
  CHECK(small->cuda_source.find("#if INFERNO_MODEL_MAIN\n") == std::string::npos);
}

TEST_CASE("the parts of several variants are numbered across them", "[codegen]") {
  const ir::Graph model = parse(chain_graph(60, "64"));
  const ir::Graph variant = parse(chain_graph(60, "32"));
  auto generated = codegen::generate_variants({&model, &variant}, options());
  INFO((generated ? "" : generated.status().to_string()));
  REQUIRE(generated.has_value());
  const std::string& cu = generated->cuda_source;
  CHECK(generated->num_parts == 4);  // two of 48 + 12 steps each
  for (int k = 0; k < 4; ++k) {
    CHECK(count(cu, "#if MODEL_PART_HERE(" + std::to_string(k) + ")\nMODEL_RUN_PART") == 1);
  }
  // The model's parts come first (0 and 1), then the variant's; each looks its names up in its
  // variant's namespace.
  const size_t part0 = cu.find("MODEL_RUN_PART int32_t run_steps_part0([[maybe_unused]]");
  const size_t part2 = cu.find("MODEL_RUN_PART int32_t run_steps_part2([[maybe_unused]]");
  REQUIRE(part0 != std::string::npos);
  REQUIRE(part2 != std::string::npos);
  CHECK(cu.find("using namespace v0;", part0) < cu.find("run_steps_part1([[maybe_unused]]"));
  CHECK(cu.find("using namespace v1;", part2) < cu.find("run_steps_part3([[maybe_unused]]"));
  CHECK(cu.find("using namespace v1;") > part2);
  CHECK(cu.find("#if INFERNO_MODEL_MAIN\n// The model's other entry points") != std::string::npos);
}

TEST_CASE("GEMM data and compute types follow the dtype and the tf32 option", "[codegen]") {
  auto spec_line = [](const std::string& dtype, bool tf32) {
    codegen::CodegenOptions o = options();
    o.target.precision = tf32 ? target::Precision::kTf32 : target::Precision::kFp32;
    auto generated = codegen::generate(
        parse("graph(%a: " + dtype + "[12,3], %b: " + dtype + "[3,4]) {\n  %m: " + dtype +
              "[12,4] = matmul(%a, %b)\n  return %m\n}"),
        o);
    REQUIRE(generated.has_value());
    const std::string& cu = generated->cuda_source;
    const size_t at = cu.find("{\"%m\", ");
    REQUIRE(at != std::string::npos);
    return cu.substr(at, cu.find('\n', at) - at);
  };
  CHECK(spec_line("f32", false) ==
        "{\"%m\", CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_N,");
  CHECK(spec_line("f32", true) ==
        "{\"%m\", CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F, CUBLAS_OP_N,");
  CHECK(spec_line("f16", true) ==
        "{\"%m\", CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_N,");
  CHECK(spec_line("bf16", false) ==
        "{\"%m\", CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_N,");
  CHECK(spec_line("f64", true) ==
        "{\"%m\", CUDA_R_64F, CUBLAS_COMPUTE_64F, CUDA_R_64F, CUBLAS_OP_N,");
}

TEST_CASE("codegen options are checked", "[codegen]") {
  const ir::Graph graph = parse("graph(%x: f32[4]) {\n  %y: f32[4] = relu(%x)\n  return %y\n}");
  codegen::CodegenOptions o = options();
  o.target.sm_archs = {};
  CHECK(codegen::generate(graph, o).status().code() == ErrorCode::kInvalidInput);
  o = options();
  o.external_weights_file = "../w.bin";
  CHECK(codegen::generate(graph, o).status().code() == ErrorCode::kInvalidInput);
  o.external_weights_file = "w.bin";
  CHECK(codegen::generate(graph, o).has_value());
}

}  // namespace inferno

namespace inferno {

TEST_CASE("x @ W then ReLU is one cuBLASLt call and nothing else", "[codegen]") {
  const std::string cu = generate_cu(
      "graph(%x: f32[16,16], %w: f32[16,32]) {\n"
      "  %y: f32[16,32] = gemm(%x, %w) {activation=\"relu\", alpha=1.0, beta=1.0, trans_b=false}\n "
      " "
      "return %y\n}");
  const std::string body = run_body(cu);
  CHECK(count(body, "MODEL_CHECK_CUBLAS(run_gemm(") == 1);
  CHECK(count(body, "MODEL_CHECK_") == 1);  // no launch, copy or kernel besides it
  CHECK(count(body, "MODEL_LAUNCH(") == 0);
  CHECK(count(cu, "__global__") == 0);
  CHECK(cu.find("/* epilogue */ CUBLASLT_EPILOGUE_RELU, /* bias */ -1,") != std::string::npos);
  CHECK(cu.find("//    epilogue: relu (cuBLASLt)\n") != std::string::npos);
}

TEST_CASE("gemm epilogues: what cuBLASLt does, what is copied, what the in-place kernel does",
          "[codegen]") {
  const std::string inputs =
      "%x: f32[16,8], %w: f32[8,6], %wt: f32[6,8], %r: f32[16,6], %col: f32[16,1]";
  const std::string bias = "  %b: f32[6] = constant [1, 2, 3, 4, 5, 6]\n";
  auto gemm = [&](const std::string& args, const std::string& attrs,
                  const std::string& dtype = "f32", const std::string& extra_inputs = "") {
    std::string text = "graph(" + (dtype == "f32" ? inputs : extra_inputs) + ") {\n" +
                       (dtype == "f32" ? bias : "") + "  %y: " + dtype + "[16,6] = gemm(" + args +
                       ") {" + attrs + "}\n  return %y\n}";
    return generate_cu(text);
  };
  SECTION("trans_b, a constant row bias and relu: RELU_BIAS, one call") {
    const std::string cu =
        gemm("%x, %wt, %b", "activation=\"relu\", alpha=1.0, beta=1.0, trans_b=true");
    CHECK(cu.find("CUBLAS_OP_T,") != std::string::npos);
    CHECK(cu.find("/* epilogue */ CUBLASLT_EPILOGUE_RELU_BIAS, /* bias */ 0,") !=
          std::string::npos);
    CHECK(cu.find("//    epilogue: + %b (cuBLASLt bias), relu (cuBLASLt)\n") != std::string::npos);
    CHECK(count(run_body(cu), "MODEL_CHECK_") == 1);
    CHECK(count(run_body(cu), "MODEL_LAUNCH(") == 0);
  }
  SECTION("a bias scaled by beta is no epilogue bias: copied, then read as C with beta") {
    const std::string cu =
        gemm("%x, %w, %b", "activation=\"none\", alpha=1.0, beta=0.5, trans_b=false");
    CHECK(cu.find("/* epilogue */ CUBLASLT_EPILOGUE_DEFAULT, /* bias */ -1,") != std::string::npos);
    CHECK(cu.find("/* alpha, beta */ 1.0, 0.5,") != std::string::npos);
    CHECK(
        cu.find(
            "strided_copy<float>(/* in */ v_b, /* out */ v_y, /* rank */ 2, /* out_shape */ shape, "
            "/* in_strides */ strides, /* numel */ 96, stream)") != std::string::npos);
    CHECK(cu.find("v_w, v_x, v_y, v_y, workspace") != std::string::npos);
  }
  SECTION("a full-shape residual is cuBLASLt's separate C matrix: no copy") {
    const std::string cu =
        gemm("%x, %w, %b, %r", "activation=\"none\", alpha=2.0, beta=1.0, trans_b=false");
    CHECK(cu.find("//    epilogue: + %b (cuBLASLt bias), + %r (C matrix)\n") != std::string::npos);
    CHECK(cu.find("/* alpha, beta */ 2.0, 1.0,") != std::string::npos);
    CHECK(cu.find("v_w, v_x, v_r, v_y, workspace") != std::string::npos);
    CHECK(cu.find("bad_alignment(\"%y\", \"%r\", 16") !=
          std::string::npos);  // a caller's buffer as C
    CHECK(cu.find("strided_copy") == std::string::npos);
    CHECK(count(run_body(cu), "MODEL_CHECK_") == 1);
    CHECK(count(run_body(cu), "MODEL_LAUNCH(") == 0);
  }
  SECTION("gelu is never cuBLASLt's GELU (its docs do not say which GELU): an in-place kernel") {
    for (const std::string activation : {"gelu", "gelu_tanh"}) {
      INFO(activation);
      const std::string cu = gemm(
          "%x, %w, %b", "activation=\"" + activation + "\", alpha=1.0, beta=1.0, trans_b=false");
      CHECK(cu.find("CUBLASLT_EPILOGUE_GELU") == std::string::npos);
      CHECK(cu.find("/* epilogue */ CUBLASLT_EPILOGUE_BIAS,") != std::string::npos);
      const std::string kernel = "k0_gemm_epilogue_" + activation + "_f32_16x6";
      CHECK(cu.find("__global__ void " + kernel + "(float* out) {") != std::string::npos);
      // The activation is its op's expression from ops.def.
      CHECK(cu.find(activation == "gelu"
                        ? "inferno::ew::erf(a * float(0.70710678118654752440))"
                        : "inferno::ew::tanh(float(0.79788456080286535588)") != std::string::npos);
      CHECK(cu.find("MODEL_LAUNCH(" + kernel + ", 1, 256, \"%y\", /* out */ v_y);") !=
            std::string::npos);
      CHECK(count(run_body(cu), "MODEL_CHECK_") == 1);  // cuBLASLt's
      CHECK(count(run_body(cu), "MODEL_LAUNCH(") == 1);
    }
  }
  SECTION("with C taken, a second addend goes to the kernel, and relu after it") {
    const std::string cu =
        gemm("%x, %w, %col, %r", "activation=\"relu\", alpha=1.0, beta=-2.0, trans_b=false");
    CHECK(cu.find("//    epilogue: + %r (C matrix), + -2.0 * %col, relu (in-place kernel "
                  "k0_gemm_epilogue_add_relu_f32_16x6)") != std::string::npos);
    CHECK(cu.find("/* epilogue */ CUBLASLT_EPILOGUE_DEFAULT,") != std::string::npos);
    CHECK(cu.find("const float a = out[i] + -2.0f * addend[i / 6];") != std::string::npos);
  }
  SECTION("beta 0 drops c, as PyTorch's addmm does") {
    const std::string cu =
        gemm("%x, %w, %col", "activation=\"none\", alpha=1.0, beta=0.0, trans_b=false");
    CHECK(cu.find("/* alpha, beta */ 1.0, 0.0,") != std::string::npos);
    CHECK(cu.find("strided_copy") == std::string::npos);
    CHECK(cu.find("//    epilogue:") == std::string::npos);
  }
  SECTION("f64: no cuBLASLt epilogues") {
    const std::string cu =
        gemm("%x, %w, %b", "activation=\"relu\", alpha=1.0, beta=1.0, trans_b=false", "f64",
             "%x: f64[16,8], %w: f64[8,6], %b: f64[6]");
    CHECK(cu.find("/* epilogue */ CUBLASLT_EPILOGUE_DEFAULT, /* bias */ -1,") != std::string::npos);
    CHECK(cu.find("strided_copy<double>(/* in */ v_b, /* out */ v_y") != std::string::npos);
    CHECK(cu.find("out[i] = a < double(0) ? double(0) : a;") != std::string::npos);
  }
  SECTION("batched trans_b: strided batches") {
    const std::string cu = generate_cu(
        "graph(%x: f16[3,4,8], %w: f16[3,6,8]) {\n  %y: f16[3,4,6] = gemm(%x, %w) "
        "{activation=\"none\", alpha=1.0, "
        "beta=1.0, trans_b=true}\n  return %y\n}");
    CHECK(cu.find("{\"%y\", CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_T,") !=
          std::string::npos);
    CHECK(cu.find("/* A */ 8, 6, 8, /* B */ 8, 4, 8, /* D */ 6, 4, 6,") != std::string::npos);
    CHECK(cu.find("/* batch */ 3, 48, 32, 24,") != std::string::npos);
  }
}

TEST_CASE("decode-shaped gemms (M <= 8) take the GEMV kernel with the whole epilogue in it",
          "[codegen]") {
  auto gemm = [](const std::string& dtype, int m, const std::string& args,
                 const std::string& attrs) {
    const std::string d = dtype, rows = std::to_string(m);
    return generate_cu("graph(%x: " + d + "[" + rows + ",8], %w: " + d + "[8,6], %wt: " + d +
                       "[6,8], %r: " + d + "[" + rows + ",6], %row: " + d + "[6], %col: " + d +
                       "[" + rows + ",1]) {\n  %y: " + d + "[" + rows + ",6] = gemm(" + args +
                       ") {" + attrs + "}\n  return %y\n}");
  };
  SECTION("[K, N] weight, a bias, a scaled residual and gelu: one kernel, no cuBLASLt") {
    const std::string cu = gemm("f16", 3, "%x, %w, %row, %r",
                                "activation=\"gelu\", alpha=0.5, beta=2.0, trans_b=false");
    const std::string body = run_body(cu);
    CHECK(count(body, "MODEL_LAUNCH(") == 1);
    CHECK(count(body, "run_gemm(") == 0);
    CHECK(cu.find("__global__ void __launch_bounds__(inferno::kernels::gemv_kn_threads<__half>(6, "
                  "3)) k0_gemv_kn_f16_3x8x6(const __half* x, const __half* w, const __half* row, "
                  "const __half* full, __half* out) {") != std::string::npos);
    CHECK(cu.find("GemvEpilogue<__half> epilogue{0.5f, row, 2.0f, full, 1.0f};") !=
          std::string::npos);
    CHECK(cu.find("inferno::kernels::gemv_kn<__half, 3, inferno::kernels::gemv_pack<__half>(6), "
                  "inferno::kernels::gemv_kn_tx<__half>(6), "
                  "inferno::kernels::gemv_kn_threads<__half>(6, 3)>(x, w, 6, 8, out, epilogue, "
                  "[](float a) { return ") != std::string::npos);
    CHECK(cu.find("inferno::ew::erf(a * float(0.70710678118654752440))") != std::string::npos);
    CHECK(
        body.find("MODEL_LAUNCH(k0_gemv_kn_f16_3x8x6, inferno::kernels::gemv_kn_blocks<__half>(6), "
                  "inferno::kernels::gemv_kn_threads<__half>(6, 3), \"%y\", /* x */ v_x, "
                  "/* w */ v_w, "
                  "/* row */ v_row, /* full */ v_r, /* out */ v_y);") != std::string::npos);
    // Caller buffers the kernel reads in packs are checked as for cuBLASLt.
    CHECK(body.find("bad_alignment(\"%y\", \"%x\", 16") != std::string::npos);
    CHECK(body.find("bad_alignment(\"%y\", \"%r\", 16") == std::string::npos);
    CHECK(cu.find("#include \"kernels/gemv.cuh\"") != std::string::npos);
  }
  SECTION("[N, K] weight (trans_b), f32, relu, no addend") {
    const std::string cu =
        gemm("f32", 8, "%x, %wt", "activation=\"relu\", alpha=1.0, beta=1.0, trans_b=true");
    CHECK(cu.find("k0_gemv_nk_f32_8x8x6(const float* x, const float* w, float* out)") !=
          std::string::npos);
    CHECK(cu.find("GemvEpilogue<float> epilogue{1.0f, nullptr, 1.0f, nullptr, 1.0f};") !=
          std::string::npos);
    // Lanes, loads and blocks of the plain [N, K] GEMV, whose long rows may take several warps.
    CHECK(cu.find("inferno::kernels::gemv_nk<float, 8, inferno::kernels::gemv_pack<float>(8), "
                  "inferno::kernels::gemv_nk_split_lanes<float>(6, 8), "
                  "inferno::kernels::gemv_nk_split_unroll<float>(6, 8)>") != std::string::npos);
    CHECK(cu.find("gemv_nk_split_blocks<float>(6, 8), inferno::kernels::kGemvNkThreads") !=
          std::string::npos);
    CHECK(count(run_body(cu), "run_gemm(") == 0);
  }
  SECTION("M = 1: two row vectors fill the bias and the residual slots") {
    const std::string cu = gemm("bf16", 1, "%x, %w, %row, %row",
                                "activation=\"gelu_tanh\", alpha=1.0, beta=-1.0, trans_b=false");
    CHECK(cu.find("GemvEpilogue<__nv_bfloat16> epilogue{1.0f, row, -1.0f, full, 1.0f};") !=
          std::string::npos);
    CHECK(count(run_body(cu), "run_gemm(") == 0);
  }
  SECTION("what the GEMV cannot take keeps cuBLASLt") {
    // Nine rows; f64; a [M, 1] column addend; a scalar addend; a strided batch.
    CHECK(count(run_body(gemm("f32", 9, "%x, %w",
                              "activation=\"none\", alpha=1.0, beta=1.0, "
                              "trans_b=false")),
                "run_gemm(") == 1);
    CHECK(count(run_body(gemm("f64", 2, "%x, %w",
                              "activation=\"none\", alpha=1.0, beta=1.0, "
                              "trans_b=false")),
                "run_gemm(") == 1);
    CHECK(count(run_body(gemm("f32", 4, "%x, %w, %col",
                              "activation=\"none\", alpha=1.0, beta=1.0, trans_b=false")),
                "run_gemm(") == 1);
    const std::string batched = generate_cu(
        "graph(%x: f16[3,2,8], %w: f16[3,8,6]) {\n  %y: f16[3,2,6] = gemm(%x, %w) "
        "{activation=\"none\", alpha=1.0, beta=1.0, trans_b=false}\n  return %y\n}");
    CHECK(count(run_body(batched), "run_gemm(") == 1);
    CHECK(batched.find("gemv") == std::string::npos);
  }
  SECTION("a residual the output overwrites in place is read before it is written") {
    // %d dies at the gemm: the output may take its buffer (gemm_in_place_inputs).
    const std::string cu = generate_cu(
        "graph(%x: f32[2,8], %w: f32[8,6], %r: f32[2,6]) {\n  %d: f32[2,6] = neg(%r)\n"
        "  %y: f32[2,6] = gemm(%x, %w, %d) {activation=\"none\", alpha=1.0, beta=1.0, "
        "trans_b=false}\n  return %y\n}");
    CHECK(cu.find("k1_gemv_kn_f32_2x8x6") != std::string::npos);
  }
}

TEST_CASE("each GEMV asks L2 for the next GEMV's weight, the last for the first's", "[codegen]") {
  const std::string ones = "1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0";
  const std::string weights = "  %w1: f16[4,8] = constant[" + ones + ", " + ones + ", " + ones +
                              ", " + ones + "]\n  %w2: f16[8,4] = constant[" + ones + ", " + ones +
                              ", " + ones + ", " + ones + "]\n";
  const std::string gemm = " = gemm(%s) {activation=\"none\", alpha=1.0, beta=1.0, trans_b=true}\n";
  const auto product = [&](const std::string& out, const std::string& operands) {
    std::string line = gemm;
    line.replace(line.find("%s"), 2, operands);
    return "  " + out + line;
  };
  SECTION("two GEMVs of stored weights; a cuBLASLt GEMM and a GEMV of an input weight between") {
    const std::string cu =
        generate_cu("graph(%x: f16[1,8], %y: f16[16,4], %v: f16[4,4]) {\n" + weights +
                    product("%a: f16[1,4]", "%x, %w1") + product("%big: f16[16,4]", "%y, %v") +
                    product("%c: f16[1,4]", "%a, %v") + product("%b: f16[1,8]", "%c, %w2") +
                    "  return %b, %big\n}");
    const std::string body = run_body(cu);
    CHECK(count(body, "run_gemm(") == 1);
    CHECK(count(body, "/* next_weight */") == 2);
    CHECK(body.find("/* out */ v_a, /* next_weight */ v_w2, /* next_bytes */ "
                    "inferno::kernels::l2_prefetch_bytes(64));") != std::string::npos);
    CHECK(body.find("/* out */ v_b, /* next_weight */ v_w1, /* next_bytes */ "
                    "inferno::kernels::l2_prefetch_bytes(64));") != std::string::npos);
    CHECK(body.find("/* out */ v_c);") != std::string::npos);  // %v is no constant: no prefetch
    CHECK(count(cu, "out, epilogue, [](float a) { return a; }, {next_weight, next_bytes});") == 2);
    CHECK(count(cu, "Asks L2 for %w") == 2);
  }
  SECTION("one GEMV prefetches nothing: its next weight is its own") {
    const std::string cu = generate_cu("graph(%x: f16[1,8]) {\n" + weights +
                                       product("%a: f16[1,4]", "%x, %w1") + "  return %a\n}");
    CHECK(cu.find("next_weight") == std::string::npos);
    CHECK(cu.find("Asks L2") == std::string::npos);
  }
}

TEST_CASE("a decode step's attention passes the session's dependent-launch flag", "[codegen]") {
  const auto attention = [](int64_t rows) {
    const std::string shape = "f16[1,2," + std::to_string(rows) + ",4]";
    return generate_cu("graph(%q: " + shape +
                       ", %k: f16[1,2,6,4], %v: f16[1,2,6,4]) {\n  %o: " + shape +
                       " = attention(%q, %k, %v) {causal=false, kv_groups=1, mask=\"none\", "
                       "scale=0.5}\n  return %o\n}");
  };
  SECTION("a few query rows take the decode kernel: the flag goes with them") {
    CHECK(attention(1).find("stream, inferno::kernels::AttentionDecodeLaunch{dependent_launch})), "
                            "\"%o\");") != std::string::npos);
    CHECK(attention(4).find("AttentionDecodeLaunch{dependent_launch}") != std::string::npos);
  }
  SECTION("more rows take the tiled kernels: no flag") {
    CHECK(attention(5).find("AttentionDecodeLaunch") == std::string::npos);
  }
}

TEST_CASE("linear, addmm and matmul lower through legalize, with the same epilogue rules",
          "[codegen]") {
  const std::string linear = generate_cu(
      "graph(%x: f32[2,5,8]) {\n  %w: f32[2,8] = constant [1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, "
      "6, 7, 8]\n"
      "  %b: f32[2] = constant [1, 2]\n  %y: f32[2,5,2] = linear(%x, %w, %b)\n  return %y\n}");
  CHECK(linear.find("CUBLAS_OP_T,") != std::string::npos);
  CHECK(linear.find("/* A */ 8, 2, 8, /* B */ 8, 10, 8, /* D */ 2, 10, 2,") != std::string::npos);
  CHECK(linear.find("/* epilogue */ CUBLASLT_EPILOGUE_BIAS,") != std::string::npos);
  const std::string addmm = generate_cu(
      "graph(%c: f32[12,6], %a: f32[12,8], %b: f32[8,6]) {\n  %y: f32[12,6] = addmm(%c, %a, %b) "
      "{alpha=0.5, beta=3.0}\n"
      "  return %y\n}");
  CHECK(addmm.find("//    epilogue: + 3.0 * %c (C matrix)\n") != std::string::npos);
  CHECK(addmm.find("/* alpha, beta */ 0.5, 3.0,") != std::string::npos);
  CHECK(addmm.find("v_b, v_a, v_c, v_y, workspace") != std::string::npos);
}

TEST_CASE("a fused node: one kernel, each input read once, each step rounded to its dtype",
          "[codegen]") {
  const std::string cu = generate_cu(
      "graph(%x: f16[4,8], %r: bf16[8]) {\n  %s: f32[] = constant [0.5]\n"
      "  %y: bf16[4,8] = fused_elementwise(%x, %r, %s) {expr=\"sigmoid($0); mul($0, #0); "
      "cast[bf16](#1); add(#2, $1); "
      "mul(#3, $2)\"}\n  return %y\n}");
  CHECK(count(cu, "__global__") == 1);
  CHECK(cu.find("__global__ void k0_fused_sigmoid_mul_cast_bf16_add_mul_bf16_4x8(const __half* "
                "in0, const __nv_bfloat16* in1, __nv_bfloat16* out) {") != std::string::npos);
  CHECK(cu.find("// expr: sigmoid($0); mul($0, #0); cast[bf16](#1); add(#2, $1); mul(#3, $2)\n") !=
        std::string::npos);
  // Each input once, broadcast by index arithmetic; the scalar is a literal, not in the weights.
  CHECK(count(cu, "in0[") == 1);
  CHECK(cu.find("const float x1 = __bfloat162float(in1[i % 8]);  // %r") != std::string::npos);
  CHECK(cu.find("constexpr uint64_t kWeightsBytes = 0;") != std::string::npos);
  // One line per step, its ops.def expression in float; f16 steps round through __half as the
  // unfused kernels store and load.
  CHECK(cu.find("const float s0 = __half2float(__float2half_rn(float(1) / (float(1) + "
                "inferno::ew::exp(-x0))));  // #0 = sigmoid($0) -> f16") != std::string::npos);
  CHECK(cu.find("const float s1 = __half2float(__float2half_rn(x0 * s0));") != std::string::npos);
  CHECK(cu.find("const float s2 = __bfloat162float(__float2bfloat16_rn(s1));") !=
        std::string::npos);
  // The scalar is a literal; a rank-0 f32 operand does not widen a bf16 tensor (PyTorch's
  // promotion): the last step is bf16.
  CHECK(cu.find("const float s4 = __bfloat162float(__float2bfloat16_rn(s3 * 0.5f));  // #4 = "
                "mul(#3, $2) -> bf16") != std::string::npos);
  CHECK(cu.find("out[i] = __float2bfloat16_rn(s4);") != std::string::npos);
}

TEST_CASE("fused kernel names stay short, and fused nodes write over dying inputs", "[codegen]") {
  std::string expr = "neg($0)";
  for (int k = 1; k < 30; ++k)
    expr += std::string(k % 2 ? "; abs(#" : "; neg(#") + std::to_string(k - 1) + ")";
  const std::string cu = generate_cu(
      "graph(%x: f32[64]) {\n  %a: f32[64] = relu(%x)\n  %y: f32[64] = "
      "fused_elementwise(%a) {expr=\"" +
      expr +
      "\"}\n  %z: f32[64] = exp(%y)\n"
      "  return %z\n}");
  const size_t at = cu.find("__global__ void k1_fused_");
  REQUIRE(at != std::string::npos);
  const std::string name = cu.substr(at + 16, cu.find('(', at) - at - 16);
  CHECK(name.size() < 80);
  CHECK(name.find("_more_f32_64") != std::string::npos);
  // %a dies at the fused node, same shape: %y takes its bytes.
  CHECK(cu.find("float* const v_a = reinterpret_cast<float*>(arena + 0);") != std::string::npos);
  CHECK(cu.find("float* const v_y = reinterpret_cast<float*>(arena + 0);") != std::string::npos);
}

}  // namespace inferno
