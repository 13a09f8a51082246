// Graphviz export. DOT ids are derived from positions (v<value id> for graph inputs and
// constants, n<index> for nodes, out<index> for graph outputs), never from model-provided names,
// so the output is deterministic and ids need no quoting. Labels are built as plain lines of
// printable text (strings from the model go through quote_string first) and then escaped once for
// a DOT double-quoted string; characters that are special in record or HTML labels are written
// as character entities so no label can change the graph's structure.
#include "ir/dot.h"

#include <string_view>
#include <vector>

#include "ir/text_format.h"

namespace inferno::ir {
namespace {

constexpr size_t kMaxAttrLabel = 64;

/// `lines` as the contents of a DOT double-quoted string, lines separated by "\n".
std::string dot_label(const std::vector<std::string>& lines) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i) out += "\\n";
    for (char c : lines[i]) {
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '{': out += "&#123;"; break;
        case '}': out += "&#125;"; break;
        case '|': out += "&#124;"; break;
        default: {  // labels are printable already; never let a control byte through
          const auto byte = static_cast<unsigned char>(c);
          out += byte < 0x20 || byte == 0x7f ? '?' : c;
        }
      }
    }
  }
  return out;
}

std::string typed_name(const Graph& graph, ValueId id) {
  return "%" + graph.name(id) + ": " + graph.type(id).to_string();
}

/// Node lines: op, one per output, attributes (shortened, without braces), source location.
std::vector<std::string> node_lines(const Graph& graph, const Node& node) {
  std::vector<std::string> lines = {std::string(op_name(node.op))};
  for (ValueId out : node.outputs) lines.push_back(typed_name(graph, out));
  if (!node.attrs.empty()) {
    std::string attrs = format_attributes(node.attrs);
    attrs = attrs.substr(1, attrs.size() - 2);  // without the braces
    if (attrs.size() > kMaxAttrLabel) attrs = attrs.substr(0, kMaxAttrLabel - 3) + "...";
    lines.push_back(attrs);
  }
  const std::string loc = format_loc(node.loc);
  if (!loc.empty()) lines.push_back(loc.substr(1));  // drop the leading space
  return lines;
}

class DotWriter {
 public:
  explicit DotWriter(const Graph& graph) : graph_(graph), producer_(static_cast<size_t>(graph.num_values())) {}

  std::string write() {
    out_ = "digraph G {\n  rankdir=TB;\n  node [fontname=\"monospace\"];\n";
    for (ValueId v : graph_.inputs()) declare_value(v, "shape=ellipse");
    for (ValueId v : graph_.constants()) declare_value(v, "shape=ellipse, style=filled, fillcolor=lightgrey");
    const std::vector<Node>& nodes = graph_.nodes();
    for (size_t i = 0; i < nodes.size(); ++i) write_node(i, nodes[i]);
    for (size_t i = 0; i < graph_.outputs().size(); ++i) {
      const std::string id = "out" + std::to_string(i);
      out_ += "  " + id + " [shape=doubleoctagon, label=\"output " + std::to_string(i) + "\"];\n";
      edge(graph_.outputs()[i], id);
    }
    return out_ + "}\n";
  }

 private:
  /// Where an edge from value `v` starts, and whether to label it with the value's name.
  struct Producer {
    std::string dot_id;
    bool multi_output = false;
  };

  void declare_value(ValueId v, const char* style) {
    producer_[v] = {"v" + std::to_string(v), false};
    out_ += "  v" + std::to_string(v) + " [" + style + ", label=\"" +
            dot_label({"%" + graph_.name(v), graph_.type(v).to_string()}) + "\"];\n";
  }

  void write_node(size_t index, const Node& node) {
    const std::string id = "n" + std::to_string(index);
    out_ += "  " + id + " [shape=box, label=\"" + dot_label(node_lines(graph_, node)) + "\"];\n";
    for (ValueId in : node.inputs) edge(in, id);
    for (ValueId out : node.outputs) producer_[out] = {id, node.outputs.size() > 1};
  }

  void edge(ValueId from, const std::string& to) {
    const bool known = from >= 0 && from < graph_.num_values() && !producer_[from].dot_id.empty();
    if (!known) return;  // an undefined value (the verifier reports it); nothing to draw from
    const Producer& p = producer_[from];
    out_ += "  " + p.dot_id + " -> " + to;
    if (p.multi_output) out_ += " [label=\"" + dot_label({"%" + graph_.name(from)}) + "\"]";
    out_ += ";\n";
  }

  const Graph& graph_;
  std::vector<Producer> producer_;
  std::string out_;
};

}  // namespace

std::string graph_to_dot(const Graph& graph) { return DotWriter(graph).write(); }

}  // namespace inferno::ir
