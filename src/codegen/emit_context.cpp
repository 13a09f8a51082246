#include "codegen/emit_context.h"

#include "ir/text_format.h"
#include "support/check.h"

namespace inferno::codegen {

EmitContext::EmitContext(const ir::Graph& g, const MemoryPlan& p, const ViewPlan& view_plan,
                         const WeightsLayout& w, const CodegenOptions& o, ModelSections& sections)
    : graph(g), plan(p), views(view_plan), weights(w), options(o), out(sections) {
  // Value names are unique, but mapping '.' to '_' and cutting long names could make two equal.
  std::set<std::string> taken;
  identifiers_.resize(static_cast<size_t>(graph.num_values()));
  for (ir::ValueId v = 0; v < graph.num_values(); ++v) {
    std::string id = value_identifier(graph.name(v));
    if (!taken.insert(id).second) {
      id += "_" + std::to_string(v);
      INFERNO_CHECK(taken.insert(id).second,
                    "codegen: cannot make a unique identifier for %" + graph.name(v));
    }
    identifiers_[static_cast<size_t>(v)] = std::move(id);
  }
}

std::string EmitContext::view_pointer(const ValueView& view) const {
  const std::string& base = pointer(view.source);
  return view.offset == 0 ? base : "(" + base + " + " + decimal(view.offset) + ")";
}

std::string EmitContext::describe(const ir::Node& node) const {
  std::string text;
  for (size_t i = 0; i < node.outputs.size(); ++i)
    text += (i ? ", %" : "%") + graph.name(node.outputs[i]);
  text += " = " + std::string(ir::op_name(node.op)) + "(";
  for (size_t i = 0; i < node.inputs.size(); ++i)
    text += (i ? ", %" : "%") + graph.name(node.inputs[i]);
  text += ")";
  const std::string attrs = ir::format_attributes(node.attrs);
  if (!attrs.empty()) text += " " + attrs;
  if (!node.loc.empty()) text += " at " + node.loc.to_string();
  return comment_text(text, 400);
}

std::string EmitContext::label(const ir::Node& node) const {
  return c_string_literal("%" + graph.node_name(node));
}

Status EmitContext::unsupported_node(const ir::Node& node, const std::string& what) const {
  return unsupported(std::string(ir::op_name(node.op)) + ": " + what, graph.node_name(node),
                     node.loc);
}

bool EmitContext::open_node(const ir::Node& node, const std::string& verb) {
  out.run.line("// " + describe(node));
  if (graph.type(node.outputs[0]).numel() > 0) return true;
  out.run.line("// (no elements: nothing to " + verb + ")");
  return false;
}

std::string EmitContext::scratch(int32_t node_index) const {
  const int32_t buffer = plan.scratch_buffer.at(static_cast<size_t>(node_index));
  INFERNO_CHECK(buffer >= 0, "codegen: node without a planned scratch buffer");
  return "arena + " + std::to_string(plan.buffers.at(static_cast<size_t>(buffer)).offset);
}

}  // namespace inferno::codegen
