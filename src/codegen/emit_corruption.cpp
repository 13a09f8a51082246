#include "codegen/emit_corruption.h"

namespace inferno::codegen {

Expected<int32_t> find_corrupted_node(const ir::Graph& graph, const ViewPlan& views,
                                      const std::string& name) {
  for (int32_t n = 0; n < static_cast<int32_t>(graph.nodes().size()); ++n) {
    const ir::Node& node = graph.nodes()[static_cast<size_t>(n)];
    if (graph.node_name(node) != name) continue;
    if (views.aliases_input(n) || graph.type(node.outputs[0]).numel() == 0) {
      return invalid_input("--corrupt-node: no kernel writes the output of %" + name +
                           " (a view of its input, or no elements)");
    }
    return n;
  }
  return invalid_input("--corrupt-node: the optimized graph has no node %" + name);
}

void emit_corruption(EmitContext& ctx, int32_t node_index) {
  const ir::Node& node = ctx.graph.nodes()[static_cast<size_t>(node_index)];
  const ir::DType dtype = ctx.graph.type(node.outputs[0]).dtype;
  const bool boolean = dtype == ir::DType::kBool;
  const std::string byte = std::to_string(boolean ? 0 : ir::dtype_size(dtype) - 1);
  SourceWriter& k = ctx.out.kernels;
  k.line("// Testing only (infernoc verify --corrupt-node): flips bits of one byte on the device.");
  k.open("__global__ void inferno_test_flip_bits(unsigned char* byte, unsigned char mask)");
  k.line("*byte ^= mask;");
  k.close();
  k.line("");
  SourceWriter& run = ctx.out.run;
  run.line("// Testing only: the output of this node deliberately corrupted (--corrupt-node).");
  run.line("inferno_test_flip_bits<<<1, 1, 0, stream>>>(reinterpret_cast<unsigned char*>(" +
           ctx.pointer(node.outputs[0]) + ") + " + byte + ", " + (boolean ? "0x01" : "0x40") +
           ");");
  run.line("MODEL_CHECK_LAUNCH(" + ctx.label(node) + ");");
}

}  // namespace inferno::codegen
