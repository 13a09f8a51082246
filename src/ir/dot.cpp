// Graphviz export. DOT ids are derived from positions (v<value id> for graph inputs and
// constants, n<index> for nodes, out<index> for graph outputs), never from model-provided names,
// so the output is deterministic and ids need no quoting. Labels are built as plain lines of
// printable text (strings from the model go through quote_string first) and then escaped once for
// a DOT double-quoted string; characters that are special in record or HTML labels are written
// as character entities so no label can change the graph's structure. A fused node lists its
// body one step per line.
#include "ir/dot.h"

#include <algorithm>
#include <string_view>
#include <variant>
#include <vector>

#include "ir/fused_expr.h"
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
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '&':
          out += "&amp;";
          break;
        case '<':
          out += "&lt;";
          break;
        case '>':
          out += "&gt;";
          break;
        case '{':
          out += "&#123;";
          break;
        case '}':
          out += "&#125;";
          break;
        case '|':
          out += "&#124;";
          break;
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

/// `s` cut to `max` bytes, "..." marking the cut.
std::string shorten(std::string s, size_t max) {
  if (s.size() > max) s = s.substr(0, max - 3) + "...";
  return s;
}

/// The op line. A gemm shows its shape-changing attributes compactly: "gemm b^T +relu".
std::string op_line(const Node& node) {
  std::string line(op_name(node.op));
  if (node.op != OpKind::kGemm) return line;
  if (node.attrs.has_typed<bool>("trans_b") && node.attrs.get_bool("trans_b")) line += " b^T";
  if (node.attrs.has_typed<std::string>("activation") &&
      node.attrs.get_string("activation") != "none") {
    const std::string quoted = quote_string(node.attrs.get_string("activation"));
    line += " +" + shorten(quoted.substr(1, quoted.size() - 2), kMaxAttrLabel);
  }
  return line;
}

/// A fused node's body, one line per step ("#1 = mul($0, #0)"), split at the canonical "; ".
/// The text is not parsed: the DOT of an unverified graph shows whatever the attribute holds.
std::vector<std::string> fused_body_lines(const std::string& expr) {
  std::vector<std::string> lines;
  size_t begin = 0;
  for (int k = 0; begin <= expr.size(); ++k) {
    if (k == kMaxFusedSteps) {
      lines.push_back("...");
      break;
    }
    const size_t end = std::min(expr.find("; ", begin), expr.size());
    const std::string quoted = quote_string(std::string_view(expr).substr(begin, end - begin));
    lines.push_back("#" + std::to_string(k) + " = " +
                    shorten(quoted.substr(1, quoted.size() - 2), kMaxAttrLabel));
    begin = end + 2;
  }
  return lines;
}

/// Node lines: op, one per output, attributes (shortened, without braces; a fused body and a
/// gemm's trans_b and activation shown as above instead), source location.
std::vector<std::string> node_lines(const Graph& graph, const Node& node) {
  std::vector<std::string> lines = {op_line(node)};
  for (ValueId out : node.outputs) lines.push_back(typed_name(graph, out));
  Attributes rest;
  for (const auto& [name, value] : node.attrs.entries()) {
    const bool is_bool = std::holds_alternative<bool>(value),
               is_string = std::holds_alternative<std::string>(value);
    const bool shown = (node.op == OpKind::kGemm &&
                        ((name == "trans_b" && is_bool) || (name == "activation" && is_string))) ||
                       std::holds_alternative<FusedBody>(value);
    if (!shown) rest.set(name, value);
  }
  if (!rest.empty()) {
    std::string attrs = format_attributes(rest);
    lines.push_back(
        shorten(attrs.substr(1, attrs.size() - 2), kMaxAttrLabel));  // without the braces
  }
  for (const auto& [name, value] : node.attrs.entries()) {
    if (const FusedBody* body = std::get_if<FusedBody>(&value)) {
      for (std::string& line : fused_body_lines(fused_expr_to_string(body->expr())))
        lines.push_back(std::move(line));
    }
  }
  const std::string loc = format_loc(node.loc);
  if (!loc.empty()) lines.push_back(loc.substr(1));  // drop the leading space
  return lines;
}

class DotWriter {
 public:
  explicit DotWriter(const Graph& graph)
      : graph_(graph), producer_(static_cast<size_t>(graph.num_values())) {}

  std::string write() {
    out_ = "digraph G {\n  rankdir=TB;\n  node [fontname=\"monospace\"];\n";
    for (ValueId v : graph_.inputs()) declare_value(v, "shape=ellipse");
    for (ValueId v : graph_.constants())
      declare_value(v, "shape=ellipse, style=filled, fillcolor=lightgrey");
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
