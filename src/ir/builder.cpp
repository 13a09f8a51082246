#include "ir/builder.h"

#include "ir/attr_schema.h"
#include "ir/fused_expr.h"
#include "ir/shape_rules.h"

namespace inferno::ir {

Expected<std::vector<ValueId>> build_node(Graph& graph, OpKind op, std::vector<ValueId> inputs,
                                          Attributes attrs, std::string_view name_hint,
                                          SourceLocation loc) {
  apply_attr_defaults(op, attrs);
  std::vector<TensorType> input_types;
  input_types.reserve(inputs.size());
  for (ValueId v : inputs) input_types.push_back(graph.type(v));
  if (Status s = parse_body_attributes(op, input_types, attrs); !s) {
    return Status(s.code(), s.message(), std::string(name_hint), loc);
  }
  Expected<std::vector<TensorType>> types = infer_output_types(op, input_types, attrs);
  if (!types) {
    return Status(types.status().code(), types.status().message(), std::string(name_hint), loc);
  }
  Node node{op, std::move(inputs), {}, std::move(attrs), std::move(loc)};
  for (TensorType& t : *types)
    node.outputs.push_back(graph.add_node_output(name_hint, std::move(t)));
  std::vector<ValueId> outputs = node.outputs;
  graph.append_node(std::move(node));
  return outputs;
}

Expected<ValueId> build_value(Graph& graph, OpKind op, std::vector<ValueId> inputs,
                              Attributes attrs, std::string_view name_hint, SourceLocation loc) {
  INFERNO_ASSIGN_OR_RETURN(
      std::vector<ValueId> outputs,
      build_node(graph, op, std::move(inputs), std::move(attrs), name_hint, std::move(loc)));
  return outputs.front();
}

ValueId add_scalar_constant(Graph& graph, double value, DType dtype, std::string_view name_hint) {
  Tensor t = Tensor::zeros({dtype, {}});
  t.set(0, value);
  return graph.add_constant(name_hint, std::move(t));
}

}  // namespace inferno::ir
