// slice lowers to one strided copy from an offset source pointer: the view's strides are the
// source's times the steps, the offset the source index of the first element. (The kitchen-sink
// nvcc test compiles a slice on every dtype; the GPU op tests run it.)
#include <string>

#include "codegen/codegen.h"
#include "codegen/strided_view.h"
#include "ir/parser.h"
#include "passes/legalize.h"
#include "support/catch.h"

namespace inferno {
namespace {

std::string generate_cu(const std::string& text) {
  auto graph = ir::parse_graph(text);
  INFO((graph ? "" : graph.status().to_string()));
  REQUIRE(graph.has_value());
  REQUIRE(passes::legalize(*graph, {}).is_ok());
  codegen::CodegenOptions options;
  options.source_model_hash = "0";
  options.cuda_version = "13.0";
  auto generated = codegen::generate(*graph, options);
  INFO((generated ? "" : generated.status().to_string()));
  REQUIRE(generated.has_value());
  return generated->cuda_source;
}

}  // namespace

TEST_CASE("slice views: strides times steps, from the offset of the starts", "[codegen]") {
  const ir::Shape in = {2, 6, 5};
  const codegen::StridedView view = codegen::slice_view(in, {2, 2, 2}, {1, 2, 3});
  CHECK(view.shape == ir::Shape{2, 2, 2});
  CHECK(view.strides == std::vector<int64_t>{30, 10, 3});
  CHECK(codegen::slice_offset(in, {0, 1, 2}) == 7);
  CHECK(codegen::slice_offset(in, {1, 0, 0}) == 30);
  // A piece of whole rows reads one contiguous run.
  const codegen::StridedView rows =
      codegen::coalesce(codegen::slice_view(in, {1, 3, 5}, {1, 1, 1}));
  CHECK(codegen::is_contiguous(rows));
}

TEST_CASE("a slice is one strided copy from an offset pointer", "[codegen]") {
  const std::string cu = generate_cu(R"(graph(%x: f32[2,6,5]) {
  %a: f32[2,3,5] = slice(%x) {starts=[0, 3, 0], ends=[2, 6, 5], steps=[1, 1, 1]}
  %b: f32[2,2,2] = slice(%x) {starts=[0, 1, 2], ends=[2, 6, 5], steps=[1, 3, 2]}
  %c: f32[2,6,5] = slice(%x) {starts=[0, 0, 0], ends=[2, 6, 5], steps=[1, 1, 1]}
  return %a, %b, %c
})");
  CHECK(cu.find("strided_copy<float>(/* in */ (v_x + 15)") != std::string::npos);
  CHECK(cu.find("strided_copy<float>(/* in */ (v_x + 7)") != std::string::npos);
  // b's view [2,2,2] strides [30,15,2] coalesces: its two outer dims step evenly, 15 apart.
  CHECK(cu.find("const int64_t shape[] = {4, 2};") != std::string::npos);
  CHECK(cu.find("const int64_t strides[] = {15, 2};") != std::string::npos);
  CHECK(cu.find("strided_copy<float>(/* in */ v_x,") != std::string::npos);  // all of x
}

}  // namespace inferno
