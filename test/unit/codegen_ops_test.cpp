// Every op of ir/ops.def, on every dtype its shape rule accepts, either lowers or fails with an
// unsupported Status that names the op and the node. Plus the unsupported cases that must not
// become wrong answers, and the escaping of model-provided strings.
#include <string>

#include "codegen/codegen.h"
#include "codegen_samples.h"
#include "ir/builder.h"
#include "ir/parser.h"
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

ir::Graph parse(const std::string& text) {
  auto graph = ir::parse_graph(text);
  INFO((graph ? "" : graph.status().to_string()));
  REQUIRE(graph.has_value());
  return std::move(*graph);
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
         "matmul: integer GEMMs are not supported (i32) (node 'm')");
  refuse("graph(%a: f32[2,1,4,3], %b: f32[1,5,3,2]) {\n  %m: f32[2,5,4,2] = matmul(%a, %b)\n  return %m\n}",
         "matmul: batch dims [2,1] and [1,5] broadcast in a way a strided batched GEMM cannot express");
  refuse("graph(%a: i64[2,3]) {\n  %s: i64[2] = sum(%a) {dims=[1], keepdim=false}\n  return %s\n}",
         "sum: integer and bool reductions are not supported");
  refuse("graph(%a: f32[2,0], %b: f32[0,3]) {\n  %m: f32[2,3] = matmul(%a, %b) loc(\"m.py\":7)\n  return %m\n}",
         "(node 'm' at m.py:7)");
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
  CHECK(cu.find("// %y.out = relu(%x.in) at evil?#error boom??*/ \"??\".py:3\n") != std::string::npos);
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

TEST_CASE("run() declares only the locals its code uses, whatever the values are called", "[codegen]") {
  // Names that spell run()'s own locals appear in strings and comments, never as code.
  auto generated = codegen::generate(
      parse("graph(%arena: f32[4]) {\n  %weights: f32[4] = relu(%arena)\n  %state: f32[4] = neg(%weights)\n"
            "  return %state\n}"),
      options());
  REQUIRE(generated.has_value());
  const std::string& cu = generated->cuda_source;
  CHECK(cu.find("const unsigned char* const weights =") == std::string::npos);
  CHECK(cu.find("const State* const state =") == std::string::npos);
  CHECK(cu.find("float* const v_weights = reinterpret_cast<float*>(arena + 0);") != std::string::npos);
  CHECK(cu.find("unsigned char* const arena =") != std::string::npos);
}

TEST_CASE("GEMM data and compute types follow the dtype and the tf32 option", "[codegen]") {
  auto spec_line = [](const std::string& dtype, bool tf32) {
    codegen::CodegenOptions o = options();
    o.tf32 = tf32;
    auto generated = codegen::generate(parse("graph(%a: " + dtype + "[2,3], %b: " + dtype + "[3,4]) {\n  %m: " +
                                             dtype + "[2,4] = matmul(%a, %b)\n  return %m\n}"),
                                       o);
    REQUIRE(generated.has_value());
    const std::string& cu = generated->cuda_source;
    const size_t at = cu.find("{\"%m\", ");
    REQUIRE(at != std::string::npos);
    return cu.substr(at, cu.find('\n', at) - at);
  };
  CHECK(spec_line("f32", false) == "{\"%m\", CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_N,");
  CHECK(spec_line("f32", true) == "{\"%m\", CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F, CUBLAS_OP_N,");
  CHECK(spec_line("f16", true) == "{\"%m\", CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_N,");
  CHECK(spec_line("bf16", false) == "{\"%m\", CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F, CUBLAS_OP_N,");
  CHECK(spec_line("f64", true) == "{\"%m\", CUDA_R_64F, CUBLAS_COMPUTE_64F, CUDA_R_64F, CUBLAS_OP_N,");
}

TEST_CASE("codegen options are checked", "[codegen]") {
  const ir::Graph graph = parse("graph(%x: f32[4]) {\n  %y: f32[4] = relu(%x)\n  return %y\n}");
  codegen::CodegenOptions o = options();
  o.sm_archs = {};
  CHECK(codegen::generate(graph, o).status().code() == ErrorCode::kInvalidInput);
  o = options();
  o.external_weights_file = "../w.bin";
  CHECK(codegen::generate(graph, o).status().code() == ErrorCode::kInvalidInput);
  o.external_weights_file = "w.bin";
  CHECK(codegen::generate(graph, o).has_value());
}

}  // namespace inferno
