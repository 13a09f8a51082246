// The reference interpreter's driver: evaluate() walks the graph's nodes in (topological) order
// keeping a table from value to tensor, and frees each intermediate after its last use;
// evaluate_node() checks sizes and attributes and dispatches one node to the kernel its op
// family registered (reference/kernels.h, one register_* per family file).
#include "reference/interpreter.h"

#include <optional>
#include <string>

#include "ir/attr_schema.h"
#include "reference/kernels.h"
#include "support/check.h"

namespace inferno::reference {
namespace {

using ir::OpKind;
using ir::Tensor;
using ir::TensorType;

/// Whether the type's byte size (and so every flat index into it) fits in int64.
/// The interpreter holds every tensor in host memory; beyond this a tensor is refused with a
/// message instead of failing an allocation (the IR itself bounds sizes, see checked_numel).
constexpr int64_t kMaxTensorBytes = int64_t{8} << 30;

bool size_fits(const TensorType& type) {
  const std::optional<int64_t> numel = ir::checked_numel(type.shape);
  return numel && *numel <= kMaxTensorBytes / ir::dtype_size(type.dtype);
}

const detail::KernelTable& kernel_table() {
  static const detail::KernelTable table = [] {
    detail::KernelTable t;
    detail::register_gemm_kernels(t);
    detail::register_layout_kernels(t);
    detail::register_elementwise_kernels(t);
    detail::register_fused_kernels(t);
    detail::register_reduction_kernels(t);
    detail::register_extrema_kernels(t);
    detail::register_conv_kernels(t);
    detail::register_pool_kernels(t);
    detail::register_join_kernels(t);
    detail::register_resize_kernels(t);
    detail::register_norm_kernels(t);
    detail::register_attention_kernels(t);
    detail::register_rotary_kernels(t);
    return t;
  }();
  return table;
}

}  // namespace

bool has_reference_kernel(ir::OpKind op) {
  return kernel_table().kernels[static_cast<size_t>(op)] != nullptr;
}

Expected<std::vector<Tensor>> evaluate_node(const ir::Graph& graph, const ir::Node& node,
                                            const std::vector<const Tensor*>& inputs) {
  const std::string& name = graph.node_name(node);
  INFERNO_CHECK(inputs.size() == node.inputs.size(),
                "node '" + name + "' got the wrong number of tensors");
  for (const std::vector<ir::ValueId>* values : {&node.inputs, &node.outputs}) {
    for (ir::ValueId v : *values) {
      if (!size_fits(graph.type(v))) {
        return invalid_input("%" + graph.name(v) + " of type " + graph.type(v).to_string() +
                                 " is too large to evaluate",
                             name, node.loc);
      }
    }
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorType& type = graph.type(node.inputs[i]);
    INFERNO_CHECK(inputs[i] != nullptr && inputs[i]->type == type &&
                      static_cast<int64_t>(inputs[i]->data.size()) == type.size_bytes(),
                  "node '" + name + "': input " + std::to_string(i) + " does not match its type " +
                      type.to_string());
  }
  INFERNO_CHECK(node.outputs.size() == 1, "node '" + name + "': every op has one output");
  // The graph may not have been verified: attributes are checked before a kernel reads them.
  if (Status s = ir::check_attributes(node.op, node.attrs); !s.is_ok()) {
    return Status(s.code(), s.message(), name, node.loc);
  }
  const detail::KernelFn kernel = kernel_table().kernels[static_cast<size_t>(node.op)];
  INFERNO_CHECK(kernel != nullptr,
                "no reference kernel for op '" + std::string(ir::op_name(node.op)) + "'");
  Expected<Tensor> result = kernel(node, inputs, graph.type(node.outputs[0]));
  if (!result) return Status(result.status().code(), result.status().message(), name, node.loc);
  std::vector<Tensor> results;
  results.push_back(std::move(result).value());
  return results;
}

Expected<std::vector<Tensor>> evaluate(const ir::Graph& graph, const std::vector<Tensor>& inputs) {
  if (inputs.size() != graph.inputs().size()) {
    return invalid_input("wrong number of inputs: the graph takes " +
                         std::to_string(graph.inputs().size()) + ", got " +
                         std::to_string(inputs.size()));
  }
  const auto num_values = static_cast<size_t>(graph.num_values());
  std::vector<const Tensor*> live(num_values, nullptr);  // value -> its tensor while it is live
  std::vector<Tensor> owned(num_values);                 // storage for node outputs
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::ValueId v = graph.inputs()[i];
    const TensorType& expected = graph.type(v);
    if (inputs[i].type != expected) {
      return invalid_input("input %" + graph.name(v) + " has type " + inputs[i].type.to_string() +
                           ", expected " + expected.to_string());
    }
    if (!size_fits(expected) ||
        static_cast<int64_t>(inputs[i].data.size()) != expected.size_bytes()) {
      return invalid_input("input %" + graph.name(v) + " has " +
                           std::to_string(inputs[i].data.size()) +
                           " bytes of data, which does not match its type " + expected.to_string());
    }
    live[static_cast<size_t>(v)] = &inputs[i];
  }
  for (ir::ValueId v : graph.constants()) {
    const ir::Value& value = graph.value(v);
    if (value.constant == nullptr) {
      return invalid_input("constant %" + value.name +
                           " has no data (elided); cannot evaluate the graph");
    }
    live[static_cast<size_t>(v)] = value.constant.get();
  }

  // last_use[v]: index of the last node reading v; graph outputs stay live to the end, and node
  // outputs nobody reads (-1) are freed right after they are made.
  const std::vector<ir::Node>& nodes = graph.nodes();
  std::vector<int64_t> last_use(num_values, -1);
  for (size_t n = 0; n < nodes.size(); ++n) {
    for (ir::ValueId v : nodes[n].inputs)
      last_use[static_cast<size_t>(v)] = static_cast<int64_t>(n);
  }
  for (ir::ValueId v : graph.outputs())
    last_use[static_cast<size_t>(v)] = static_cast<int64_t>(nodes.size());

  for (size_t n = 0; n < nodes.size(); ++n) {
    const ir::Node& node = nodes[n];
    std::vector<const Tensor*> args;
    for (ir::ValueId v : node.inputs) {
      INFERNO_CHECK(live[static_cast<size_t>(v)] != nullptr,
                    "%" + graph.name(v) + " is used before it is defined");
      args.push_back(live[static_cast<size_t>(v)]);
    }
    INFERNO_ASSIGN_OR_RETURN(std::vector<Tensor> results, evaluate_node(graph, node, args));
    for (size_t j = 0; j < node.outputs.size(); ++j) {
      const auto out = static_cast<size_t>(node.outputs[j]);
      owned[out] = std::move(results[j]);
      live[out] = &owned[out];
    }
    for (const std::vector<ir::ValueId>* values : {&node.inputs, &node.outputs}) {
      for (ir::ValueId v : *values) {
        const auto slot = static_cast<size_t>(v);
        if (graph.value(v).kind == ir::ValueKind::kNodeOutput &&
            last_use[slot] <= static_cast<int64_t>(n)) {
          owned[slot] = Tensor{};
          live[slot] = nullptr;
        }
      }
    }
  }

  std::vector<Tensor> outputs;
  for (ir::ValueId v : graph.outputs()) {
    INFERNO_CHECK(live[static_cast<size_t>(v)] != nullptr,
                  "graph output %" + graph.name(v) + " is not defined");
    outputs.push_back(*live[static_cast<size_t>(v)]);
  }
  return outputs;
}

std::vector<ir::Tensor> initial_states(const ir::Graph& graph) {
  std::vector<ir::Tensor> states;
  for (size_t i = 0; i < graph.num_states(); ++i) {
    const std::shared_ptr<const ir::Tensor>& initial = graph.state(i).initial;
    states.push_back(initial ? *initial : ir::Tensor::zeros(graph.type(graph.state_value(i))));
  }
  return states;
}

}  // namespace inferno::reference
