// Naming what a new user brings instead of a model infernoc reads (ONNX), and the names given to
// TorchScript's numbered outputs. The CLI tests check the messages end to end.
#include <cstddef>
#include <string>
#include <vector>

#include "frontend/foreign_format.h"
#include "frontend/output_names.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "support/catch.h"

namespace inferno::frontend {
namespace {

bool onnx(std::vector<int> bytes) {
  std::vector<std::byte> head;
  for (int b : bytes) head.push_back(static_cast<std::byte>(b));
  return looks_like_onnx(head);
}

TEST_CASE("an ONNX ModelProto is recognized by its first fields", "[frontend]") {
  CHECK(onnx({0x08, 0x08, 0x12, 0x07}));        // ir_version 8, producer_name
  CHECK(onnx({0x08, 0x03, 0x3a, 0x80}));        // ir_version 3, graph
  CHECK(onnx({0x08, 0x07, 0x42, 0x04}));        // ir_version 7, opset_import
  CHECK_FALSE(onnx({0x08, 0x08}));              // too short
  CHECK_FALSE(onnx({0x50, 0x4b, 0x03, 0x04}));  // a zip
  CHECK_FALSE(onnx({0x08, 0x00, 0x12}));        // ir_version 0
  CHECK_FALSE(onnx({0x08, 0x08, 0x10}));        // not a ModelProto field after it
  CHECK_FALSE(onnx({0x93, 0x4e, 0x55, 0x4d}));  // a .npy
}

TEST_CASE("outputs are named output<i> or by their keys, once and never inputs", "[frontend]") {
  Expected<ir::Graph> graph = ir::parse_graph(R"(graph(%x: f32[4], %output1: f32[4]) {
  %829: f32[4] = relu(%x)
  %830: f32[4] = neg(%x)
  %831: f32[4] = exp(%x)
  return %829, %x, %830, %829, %831
}
)");
  REQUIRE(graph.has_value());
  const std::vector<std::string> notes = name_outputs(*graph, {"", "", "", "", "aux"});
  CHECK(notes ==
        std::vector<std::string>{"output0 (was %829)", "output2 (was %830)", "aux (was %831)"});
  CHECK(ir::print_graph(*graph).find("return %output0, %x, %output2, %output0, %aux") !=
        std::string::npos);
  // A name the graph already uses is made unique.
  Expected<ir::Graph> taken = ir::parse_graph(R"(graph(%output0: f32[4]) {
  %1: f32[4] = relu(%output0)
  return %1
}
)");
  REQUIRE(taken.has_value());
  CHECK(name_outputs(*taken, {}) == std::vector<std::string>{"output0_1 (was %1)"});
}

}  // namespace
}  // namespace inferno::frontend
