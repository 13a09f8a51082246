#include "reference/node_check.h"

#include <cmath>
#include <cstdio>

#include "reference/interpreter.h"

namespace inferno::reference {
namespace {

bool close(double expected, double actual, const Tolerance& tolerance) {
  if (std::isnan(expected) || std::isnan(actual)) return std::isnan(expected) && std::isnan(actual);
  if (std::isinf(expected) || std::isinf(actual)) return expected == actual;
  return std::fabs(actual - expected) <= tolerance.atol + tolerance.rtol * std::fabs(expected);
}

std::string number(double value, int digits = 9) {
  char text[40];
  std::snprintf(text, sizeof text, "%.*g", digits, value);
  return text;
}

// The first flat index from `from` on where `actual` is out of `tolerance` plus the per-element
// `extra_atol` (empty: none), or nullopt.
std::optional<int64_t> first_difference_from(const ir::Tensor& expected, const ir::Tensor& actual,
                                             const Tolerance& tolerance,
                                             const std::vector<double>& extra_atol, int64_t from) {
  for (int64_t i = from; i < expected.numel(); ++i) {
    Tolerance here = tolerance;
    if (!extra_atol.empty()) here.atol += extra_atol[static_cast<size_t>(i)];
    if (!close(expected.get(i), actual.get(i), here)) return i;
  }
  return std::nullopt;
}

// "[1, 3]": a flat index as coordinates of `shape`.
std::string coordinates(const ir::Shape& shape, int64_t index) {
  std::vector<int64_t> at(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    at[d] = shape[d] > 0 ? index % shape[d] : 0;
    index = shape[d] > 0 ? index / shape[d] : 0;
  }
  std::string text = "[";
  for (size_t d = 0; d < at.size(); ++d) text += (d ? ", " : "") + std::to_string(at[d]);
  return text + "]";
}

}  // namespace

Tolerance default_tolerance(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::kF32:
      return {1.3e-6, 1e-5};
    case ir::DType::kF16:
      return {1e-3, 1e-5};
    case ir::DType::kBF16:
      return {1.6e-2, 1e-5};
    case ir::DType::kF64:
      return {1e-7, 1e-7};
    default:
      return {0, 0};  // integers and bool: exact
  }
}

std::optional<int64_t> first_difference(const ir::Tensor& expected, const ir::Tensor& actual,
                                        const Tolerance& tolerance) {
  return first_difference_from(expected, actual, tolerance, {}, 0);
}

Expected<NodeCheck> check_nodes(const ir::Graph& graph, const std::vector<ir::Tensor>& inputs,
                                const ObservedFn& observed, const AllowanceOptions& options) {
  if (inputs.size() != graph.inputs().size()) {
    return invalid_input("verify: the graph takes " + std::to_string(graph.inputs().size()) +
                         " inputs, got " + std::to_string(inputs.size()));
  }
  // value -> the tensor its readers get: an input, a constant, an observed output, or the
  // reference's own result where nothing was observed.
  std::vector<const ir::Tensor*> value_of(static_cast<size_t>(graph.num_values()), nullptr);
  std::vector<ir::Tensor> computed(graph.nodes().size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::ValueId v = graph.inputs()[i];
    if (inputs[i].type != graph.type(v))
      return invalid_input("verify: input %" + graph.name(v) + " has type " +
                           inputs[i].type.to_string() + ", expected " + graph.type(v).to_string());
    value_of[static_cast<size_t>(v)] = &inputs[i];
  }
  for (const ir::ValueId v : graph.constants()) {
    if (graph.value(v).constant == nullptr)
      return invalid_input("verify: constant %" + graph.name(v) + " has no data (elided)");
    value_of[static_cast<size_t>(v)] = graph.value(v).constant.get();
  }
  NodeCheck check;
  for (int32_t n = 0; n < static_cast<int32_t>(graph.nodes().size()); ++n) {
    const ir::Node& node = graph.nodes()[static_cast<size_t>(n)];
    std::vector<const ir::Tensor*> args;
    for (const ir::ValueId v : node.inputs) args.push_back(value_of[static_cast<size_t>(v)]);
    INFERNO_ASSIGN_OR_RETURN(std::vector<ir::Tensor> outputs, evaluate_node(graph, node, args));
    if (outputs.size() != 1)
      return unsupported("verify: nodes with several outputs", graph.node_name(node), node.loc);
    ir::Tensor& expected = computed[static_cast<size_t>(n)] = std::move(outputs.front());
    const ir::Tensor* actual = observed(n);
    const auto out = static_cast<size_t>(node.outputs[0]);
    value_of[out] = &expected;
    if (actual == nullptr) continue;
    if (actual->type != expected.type) {
      return invalid_input("verify: the device's %" + graph.node_name(node) + " is " +
                           actual->type.to_string() + ", expected " + expected.type.to_string());
    }
    const Tolerance tolerance = default_tolerance(expected.type.dtype);
    ++check.nodes_compared;
    std::optional<int64_t> at = first_difference(expected, *actual, tolerance);
    if (at) {
      // Only now the allowance (it may cost another evaluation of the node); the elements before
      // `at` are within the dtype's tolerance alone, so the search goes on from there.
      const RoundingAllowance allowance = rounding_allowance(graph, node, args, expected, options);
      at = first_difference_from(expected, *actual, tolerance, allowance.atol, *at);
      if (at) {
        Tolerance applied = tolerance;
        if (!allowance.atol.empty()) applied.atol += allowance.atol[static_cast<size_t>(*at)];
        check.mismatch =
            NodeMismatch{n, *at, expected.get(*at), actual->get(*at), applied, allowance.what};
        return check;
      }
    }
    check.values_compared += expected.numel();
    value_of[out] = actual;  // readers are judged on what the device gave them
  }
  return check;
}

std::string describe_check(const ir::Graph& graph, const NodeCheck& check) {
  if (!check.mismatch) {
    return "all " + std::to_string(check.values_compared) + " values match (" +
           std::to_string(check.nodes_compared) + " nodes)";
  }
  const NodeMismatch& m = *check.mismatch;
  const ir::Node& node = graph.nodes().at(static_cast<size_t>(m.node));
  const ir::TensorType& type = graph.type(node.outputs[0]);
  std::string text = "%" + graph.node_name(node) + " (" + std::string(ir::op_name(node.op)) + ")";
  if (!node.loc.empty()) text += " at " + node.loc.to_string();
  const std::string applied = m.tolerance_for.empty() ? "" : " for " + m.tolerance_for;
  // Tolerances in two digits: "atol 0.00031", and torch.testing's "rtol 1.3e-06" as it is.
  return text + ": element " + coordinates(type.shape, m.index) + " is " + number(m.actual) +
         ", expected " + number(m.expected) + " (" + std::string(ir::dtype_name(type.dtype)) +
         " tolerance" + applied + ": rtol " + number(m.tolerance.rtol, 2) + ", atol " +
         number(m.tolerance.atol, 2) + ")";
}

}  // namespace inferno::reference
