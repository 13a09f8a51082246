// The reference interpreter's driver: evaluate() walks the graph's nodes in (topological) order
// keeping a table from value to tensor, and frees each intermediate after its last use;
// evaluate_node() checks sizes and dispatches one node to its kernel (reference/kernels.h).
#include "reference/interpreter.h"

#include <optional>
#include <string>

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

/// The switch covers every op in ops.def: a new op without a case here is a -Wswitch error.
/// Only a fused body can fail here: the graph may not have been verified, and its text is input.
Expected<Tensor> run_kernel(const ir::Node& node, const std::vector<const Tensor*>& in,
                            const TensorType& out) {
  using namespace detail;
  const ir::Attributes& attrs = node.attrs;
  switch (node.op) {
    case OpKind::kLinear:
      return linear(*in[0], *in[1], in.size() > 2 ? in[2] : nullptr, out);
    case OpKind::kMatMul:
      return matmul(*in[0], *in[1], out);
    case OpKind::kAddMM:
      return addmm(*in[0], *in[1], *in[2], attrs.get_float("alpha"), attrs.get_float("beta"), out);
    case OpKind::kGemm:
      return gemm(*in[0], *in[1], in.size() > 2 ? in[2] : nullptr, in.size() > 3 ? in[3] : nullptr,
                  attrs, out);
    case OpKind::kReshape:
      return reshape(*in[0], out);
    case OpKind::kTranspose:
      return transpose(*in[0], attrs.get_int("dim0"), attrs.get_int("dim1"), out);
    case OpKind::kPermute:
      return permute(*in[0], attrs.get_ints("dims"), out);
    case OpKind::kExpand:
      return expand(*in[0], out);
    case OpKind::kRelu:
    case OpKind::kGelu:
    case OpKind::kSilu:
    case OpKind::kSigmoid:
    case OpKind::kTanh:
    case OpKind::kExp:
    case OpKind::kAbs:
    case OpKind::kNeg:
    case OpKind::kCast:
      return unary(node.op, attrs, *in[0], out);
    case OpKind::kAdd:
    case OpKind::kSub:
    case OpKind::kMul:
    case OpKind::kDiv:
      return binary(node.op, *in[0], *in[1], out);
    case OpKind::kSum:
      return sum_or_mean(*in[0], attrs.get_ints("dims"), /*mean=*/false, out);
    case OpKind::kMean:
      return sum_or_mean(*in[0], attrs.get_ints("dims"), /*mean=*/true, out);
    case OpKind::kSoftmax:
      return softmax(*in[0], attrs.get_int("dim"), /*log=*/false, out);
    case OpKind::kLogSoftmax:
      return softmax(*in[0], attrs.get_int("dim"), /*log=*/true, out);
    case OpKind::kFusedElementwise: {
      std::vector<TensorType> types;
      for (const Tensor* t : in) types.push_back(t->type);
      if (!attrs.has_typed<std::string>("expr"))
        return invalid_input("fused_elementwise: needs attribute 'expr' of type string");
      Expected<ir::FusedExpr> expr = ir::parse_fused_expr(attrs.get_string("expr"), types);
      if (!expr) return invalid_input("fused_elementwise: " + expr.status().message());
      if (expr->result() != out) {
        return invalid_input("fused_elementwise: the body produces " + expr->result().to_string() +
                             ", not " + out.to_string());
      }
      return fused_elementwise(*expr, in, out);
    }
  }
  INFERNO_CHECK(false, "no reference kernel for op '" + std::string(ir::op_name(node.op)) + "'");
  return Tensor{};
}

}  // namespace

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
  Expected<Tensor> result = run_kernel(node, inputs, graph.type(node.outputs[0]));
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

}  // namespace inferno::reference
