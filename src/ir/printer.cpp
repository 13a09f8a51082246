// Prints a graph in the IR text form (grammar in docs/ir.md): a header with the graph inputs, one
// line per constant, one line per node, then `return`. The leaf spellings (strings, attribute
// values, constant elements, locations) live in ir/text_format.cpp, shared with the parser and
// the DOT export.
#include "ir/printer.h"

#include "ir/text_format.h"

namespace inferno::ir {
namespace {

/// "%x: f32[4,16]"
std::string typed_name(const Graph& graph, ValueId id) {
  return "%" + graph.name(id) + ": " + graph.type(id).to_string();
}

/// "%a, %b"
std::string value_list(const Graph& graph, const std::vector<ValueId>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size(); ++i) out += (i ? ", %" : "%") + graph.name(ids[i]);
  return out;
}

bool elided(const Value& value, const PrintOptions& options) {
  return value.constant == nullptr ||
         (options.max_constant_elements >= 0 && value.type.numel() > options.max_constant_elements);
}

void print_elements(const Tensor& tensor, std::string& out) {
  out += "[";
  for (int64_t i = 0; i < tensor.numel(); ++i) {
    if (i) out += ", ";
    out += format_element(tensor, i);
  }
  out += "]\n";
}

void print_constant(const Graph& graph, ValueId id, const PrintOptions& options, std::string& out) {
  const Value& value = graph.value(id);
  out += "  " + typed_name(graph, id) + " = constant ";
  if (elided(value, options)) {
    out += "<elided>\n";
    return;
  }
  print_elements(*value.constant, out);
}

// "state %k: f32[2,4] = zeros" or "= constant [...]" (the initial value).
void print_state(const Graph& graph, size_t i, const PrintOptions& options, std::string& out) {
  const ValueId id = graph.state_value(i);
  const std::shared_ptr<const Tensor>& initial = graph.state(i).initial;
  out += "  state " + typed_name(graph, id) + " = ";
  if (!initial) {
    out += "zeros\n";
  } else if (options.max_constant_elements >= 0 &&
             graph.type(id).numel() > options.max_constant_elements) {
    out += "constant <elided>\n";
  } else {
    out += "constant ";
    print_elements(*initial, out);
  }
}

void print_node(const Graph& graph, const Node& node, std::string& out) {
  out += "  ";
  for (size_t i = 0; i < node.outputs.size(); ++i)
    out += (i ? ", " : "") + typed_name(graph, node.outputs[i]);
  out += " = " + std::string(op_name(node.op)) + "(" + value_list(graph, node.inputs) + ")";
  if (!node.attrs.empty()) out += " " + format_attributes(node.attrs);
  out += format_loc(node.loc) + "\n";
}

}  // namespace

std::string print_graph(const Graph& graph, const PrintOptions& options) {
  std::string out = "graph(";
  for (size_t i = 0; i < graph.num_user_inputs(); ++i)
    out += (i ? ", " : "") + typed_name(graph, graph.inputs()[i]);
  out += ") {\n";
  for (size_t i = 0; i < graph.num_states(); ++i) print_state(graph, i, options, out);
  for (ValueId id : graph.constants()) print_constant(graph, id, options, out);
  for (const Node& node : graph.nodes()) print_node(graph, node, out);
  out += "  return";
  const auto user_outputs = static_cast<std::ptrdiff_t>(graph.num_user_outputs());
  const std::vector<ValueId> returned(graph.outputs().begin(),
                                      graph.outputs().begin() + user_outputs);
  const std::vector<ValueId> updates(graph.outputs().begin() + user_outputs, graph.outputs().end());
  if (!returned.empty()) out += " " + value_list(graph, returned);
  if (!updates.empty()) out += " updates " + value_list(graph, updates);
  return out + "\n}\n";
}

}  // namespace inferno::ir
