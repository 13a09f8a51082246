// Rebuilding a graph's node list in one forward walk: the driver behind the rewriting passes
// (canonicalize, simplify, fuse-epilogues).
//
// The rebuilder takes the nodes out of the graph. The pass then visits them in their old
// (topological) order and appends what it keeps, changes or creates; appended nodes stay in
// topological order as long as each one reads only graph inputs, constants and outputs of nodes
// appended before it. A node can be dropped in favour of a value that already exists (replace),
// and an appended node can be taken back out to be merged into a later one (take).
#pragma once

#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "passes/rewrite.h"
#include "support/status.h"

namespace inferno::passes {

class NodeRebuilder {
 public:
  /// Moves `graph`'s nodes into old_nodes(); the graph has none until the pass appends them.
  explicit NodeRebuilder(ir::Graph& graph);

  ir::Graph& graph() { return graph_; }
  const ir::Graph& graph() const { return graph_; }
  /// The nodes as they were, in order; the pass moves them out as it visits them.
  std::vector<ir::Node>& old_nodes() { return old_nodes_; }

  /// Rewrites `node`'s inputs through the replacements made so far.
  void rename_inputs(ir::Node& node) const;
  /// Every later use of `from` reads `to` instead: node inputs passed through rename_inputs,
  /// and the graph outputs at finish(). `to` must have `from`'s type.
  void replace(ir::ValueId from, ir::ValueId to);

  /// Appends `node`, which becomes the producer of its outputs.
  void append(ir::Node node);
  /// Appends `op(inputs) {attrs}` typed by its shape rule, with a fresh output value named after
  /// `name_hint`.
  Expected<ir::ValueId> build(ir::OpKind op, std::vector<ir::ValueId> inputs, ir::Attributes attrs,
                              std::string_view name_hint, SourceLocation loc);
  /// The appended node that defines `v`; null for graph inputs, constants and values no
  /// appended node defines. The pointer is valid until the next append, build or take.
  const ir::Node* producer(ir::ValueId v) const;
  /// producer(v) if it applies `op`, else null.
  const ir::Node* producer(ir::ValueId v, ir::OpKind op) const;
  /// Removes the appended node that defines `v` and returns it (to be appended again, changed,
  /// at a later position: nothing appended in between may read its outputs).
  ir::Node take(ir::ValueId v);

  /// Completes the rebuild: forgets taken nodes, points graph outputs at their replacements and
  /// drops constants nothing uses any more.
  Status finish();

 private:
  ir::ValueId resolve(ir::ValueId v) const;

  ir::Graph& graph_;
  std::vector<ir::Node> old_nodes_;
  ValueReplacements replacements_;
  std::vector<int64_t> producer_;  ///< value -> index in graph_.nodes(), or -1
};

/// What a local rewrite rule did to a node.
enum class Rewrite {
  kUnchanged,  ///< the node stays as it is
  kChanged,    ///< the node was changed in place (same outputs); the rule looks at it again
  kReplaced,   ///< the node goes: the rule replace()d its output with an existing value
};

/// A local rewrite rule: looks at `node`, whose inputs are renamed already and whose producers
/// are appended. It may build helper nodes through the rebuilder (they are appended before
/// `node` and must be in final form: the rule does not visit them).
using NodeRule = Expected<Rewrite> (*)(NodeRebuilder& rebuilder, ir::Node& node);

/// For rules: drops single-output `node` in favour of `v` (rebuilder.replace) and says so.
Rewrite replace_node(NodeRebuilder& rebuilder, const ir::Node& node, ir::ValueId v);
/// For rules: `node` becomes op(inputs) {attrs}, defining the same outputs at the same location
/// (through redefine, so the types must stay).
Expected<Rewrite> redefine_node(const ir::Graph& graph, ir::Node& node, ir::OpKind op,
                                std::vector<ir::ValueId> inputs, ir::Attributes attrs);

/// For rules: `v` reshaped to `shape` by a new node named after `node`'s output with `suffix`
/// ("_rows"), at `node`'s location.
Expected<ir::ValueId> reshaped(NodeRebuilder& rebuilder, ir::ValueId v, ir::Shape shape,
                               const ir::Node& node, const char* suffix);

/// The forward walk: renames each node's inputs, applies `rule` until it leaves the node alone or
/// replaces it, appends what remains, then finishes the rebuild. Rules look at a node and its
/// producers only, and a node is visited after its producers reached their final form, so one
/// walk reaches a fixpoint of `rule`.
Status rewrite_nodes(ir::Graph& graph, NodeRule rule);

/// The types `op(inputs) {attrs}` produces by its shape rule, as a Node defining `outputs`: used
/// when a rewrite redefines existing values one for one, so their names and uses stay. An
/// internal error if the rule rejects the node or its types differ from the outputs' types
/// (the rewrite that asked for it is wrong).
Expected<ir::Node> redefine(const ir::Graph& graph, ir::OpKind op, std::vector<ir::ValueId> inputs,
                            ir::Attributes attrs, std::vector<ir::ValueId> outputs,
                            SourceLocation loc);

}  // namespace inferno::passes
