// What `infernoc verify` compiles: the graph with every value a kernel writes kept as an output
// (codegen/keep_intermediates.h), and the deliberately corrupted kernel that tests verify itself
// (CodegenOptions::corrupt_node, codegen/emit_corruption.h).
#include <set>
#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "codegen/keep_intermediates.h"
#include "ir/verifier.h"
#include "support/catch.h"
#include "support/test_support.h"

namespace inferno {
namespace {

using test::parse;

codegen::CodegenOptions options(const std::string& corrupt_node = "") {
  codegen::CodegenOptions o;
  o.source_model_hash = "0";
  o.cuda_version = "13.0";
  o.corrupt_node = corrupt_node;
  return o;
}

std::string generate_cu(const ir::Graph& graph, const std::string& corrupt_node = "") {
  auto generated = codegen::generate(graph, options(corrupt_node));
  INFO((generated ? "" : generated.status().to_string()));
  REQUIRE(generated.has_value());
  return generated->cuda_source;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::vector<std::string> output_names(const ir::Graph& graph) {
  std::vector<std::string> names;
  for (const ir::ValueId v : graph.outputs()) names.push_back(graph.name(v));
  return names;
}

// An MLP whose second output is also an intermediate, and whose reshape is a view (no kernel).
const char* const kMlp = R"(graph(%x: f32[2,3], %w: f32[3,4]) {
  %m: f32[2,4] = gemm(%x, %w) {activation="none", alpha=1.0, beta=1.0, trans_b=false}
  %r: f32[2,4] = relu(%m)
  %v: f32[8] = reshape(%r) {shape=[8]}
  %s: f32[8] = mul(%v, %v)
  %t: f32[8] = neg(%s)
  return %t, %s
})";

}  // namespace

TEST_CASE("keep_intermediates appends every kernel's output after the model's outputs",
          "[codegen]") {
  ir::Graph graph = parse(kMlp);
  const std::vector<int32_t> node_of_output = codegen::keep_intermediates(graph);
  // The model's outputs first, as they were; then m and r in node order; not the reshape %v (a
  // view of %r), nor %s again.
  CHECK(output_names(graph) == std::vector<std::string>{"t", "s", "m", "r"});
  CHECK(node_of_output == std::vector<int32_t>{4, 3, 0, 1});
  CHECK(ir::verify(graph).is_ok());
  // The kept graph compiles, each output described under its value's (unique) name.
  const std::string cu = generate_cu(graph);
  for (const char* name : {"t", "s", "m", "r"})
    CHECK(has(cu, "{\"" + std::string(name) + "\", INFERNO_DTYPE_F32"));
  const auto names = output_names(graph);
  CHECK(std::set<std::string>(names.begin(), names.end()).size() == names.size());
}

TEST_CASE("keep_intermediates leaves views out and changes nothing without nodes", "[codegen]") {
  SECTION("attention's views: only relu and attention are added") {
    ir::Graph graph = parse(test::gpt2_attention_layer());
    const std::vector<int32_t> node_of_output = codegen::keep_intermediates(graph);
    CHECK(output_names(graph) == std::vector<std::string>{"z", "qkv", "a"});
    CHECK(node_of_output == std::vector<int32_t>{13, 0, 10});
    // Attention's output is now read by the caller too: it writes it plainly, and the permute
    // after it becomes a copy.
    const std::string cu = generate_cu(graph);
    CHECK_FALSE(has(cu, "written in this layout by the producer of %a"));
  }
  SECTION("a value without elements is not kept") {
    ir::Graph graph = parse(R"(graph(%x: f32[0,4]) {
  %e: f32[0,4] = relu(%x)
  %n: f32[0,4] = neg(%e)
  return %n
})");
    CHECK(codegen::keep_intermediates(graph) == std::vector<int32_t>{1});
    CHECK(output_names(graph) == std::vector<std::string>{"n"});
  }
  SECTION("a graph without nodes: its output is its input, no kernel writes it") {
    ir::Graph graph = parse("graph(%x: f32[4]) {\n  return %x, %x\n}");
    CHECK(codegen::keep_intermediates(graph) == std::vector<int32_t>{-1, -1});
    CHECK(output_names(graph) == std::vector<std::string>{"x", "x"});
  }
}

TEST_CASE("corrupt_node flips a bit of exactly that node's output, and nothing otherwise",
          "[codegen]") {
  const ir::Graph graph = parse(kMlp);
  CHECK_FALSE(has(generate_cu(graph), "inferno_test_flip_bits"));
  const std::string cu = generate_cu(graph, "r");
  // In run(), after relu's kernel and before mul's: the high byte of element 0 of %r, an exponent
  // bit. (The kernels section, before run(), names the nodes too.)
  const size_t run = cu.find("int32_t run_steps(");
  const size_t relu = cu.find("// %r = relu(%m)", run);
  const size_t flip = cu.find("inferno_test_flip_bits<<<1, 1, 0, stream>>>(");
  const size_t mul = cu.find("// %s = mul(%v, %v)", run);
  REQUIRE(relu != std::string::npos);
  REQUIRE(flip != std::string::npos);
  CHECK(relu < flip);
  CHECK(flip < mul);
  CHECK(has(cu, "(reinterpret_cast<unsigned char*>(v_r) + 3, 0x40);"));
  CHECK(cu.find("inferno_test_flip_bits<<<", flip + 1) == std::string::npos);

  SECTION("a name no kernel writes is refused") {
    for (const char* name : {"v", "nosuch", "x"}) {
      auto generated = codegen::generate(graph, options(name));
      REQUIRE_FALSE(generated.has_value());
      CHECK(generated.status().code() == ErrorCode::kInvalidInput);
      CHECK(has(generated.status().message(), "--corrupt-node"));
    }
  }
}

}  // namespace inferno
